/**
 * The worker API the app implements (androidx.work.ListenableWorker / CoroutineWorker) and the
 * WorkManager logger (androidx work/work-runtime/src/main/java/androidx/work/Logger.kt).
 */
import type { AppContext } from '../../system/app-framework.js';
import { LogPriority } from '../../types.js';

/** ListenableWorker.Result. */
export type WorkerResult =
  | { readonly type: 'success' }
  | { readonly type: 'retry' }
  | { readonly type: 'failure'; readonly output?: Readonly<Record<string, string>> };

export const Result = {
  success: (): WorkerResult => ({ type: 'success' }),
  retry: (): WorkerResult => ({ type: 'retry' }),
  failure: (output?: Readonly<Record<string, string>>): WorkerResult => (output === undefined ? { type: 'failure' } : { type: 'failure', output }),
} as const;

/** WorkerParameters (the parts a worker reads). */
export interface WorkerParams {
  readonly id: string;
  readonly tags: readonly string[];
  readonly runAttemptCount: number;
  readonly generation: number;
}

export interface ListenableWorker {
  startWork(): Promise<WorkerResult>;
}

/** WorkerFactory.createWorker: undefined when the class is unknown. */
export type WorkerFactory = (workerClassName: string, params: WorkerParams) => ListenableWorker | undefined;

/**
 * androidx.work.Logger: tags are `WM-` + name, at most 23 characters (Logger.tagWithPrefix,
 * MAX_TAG_LENGTH = 23). Its LogcatLogger writes a line only when the configured level is at or
 * below the line's (`if (mLoggingLevel <= Log.INFO) Log.i(...)`, androidx
 * work/work-runtime/src/main/java/androidx/work/Logger.java @24607fc9); WorkManagerImpl sets it
 * from Configuration's `minimumLoggingLevel`, which defaults to Log.INFO and which an app's
 * Configuration.Provider changes with `Configuration.Builder().setMinimumLoggingLevel(level)`
 * (Configuration.kt). At the default no debug line reaches logcat; at Log.WARN or above the
 * `Worker result ...` lines (INFO) are gone too.
 */
export class WorkLogger {
  private readonly context: AppContext;
  private readonly minimumLevel: LogPriority;

  constructor(context: AppContext, minimumLevel: LogPriority = LogPriority.I) {
    this.context = context;
    this.minimumLevel = minimumLevel;
  }

  static tag(name: string): string {
    const tag = `WM-${name}`;
    return tag.length > 23 ? tag.slice(0, 23) : tag;
  }

  debug(tag: string, message: string): void {
    this.write(LogPriority.D, tag, message);
  }

  info(tag: string, message: string): void {
    this.write(LogPriority.I, tag, message);
  }

  warning(tag: string, message: string): void {
    this.write(LogPriority.W, tag, message);
  }

  error(tag: string, message: string): void {
    this.write(LogPriority.E, tag, message);
  }

  private write(priority: LogPriority, tag: string, message: string): void {
    if (priority < this.minimumLevel) return;
    this.context.log.println(priority, tag, message);
  }
}
