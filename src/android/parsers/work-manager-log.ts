/**
 * WorkManager's own log lines the harness reads. `WorkerWrapper` logs the result of every run
 * at INFO under the tag `WM-WorkerWrapper` (androidx `work/work-runtime/src/main/java/androidx/
 * work/impl/WorkerWrapper.kt`: `"Worker result SUCCESS for $workDescription"`, likewise RETRY
 * and FAILURE, where the description is `Work [ id=<uuid>, tags={ … } ]`; the same text in the
 * Java WorkerWrapper of 2.5–2.7). androidx's `Logger` prefixes every tag with `WM-`
 * (`Logger.tagWithPrefix`, 23 characters at most).
 */

export const WORKER_WRAPPER_TAG = 'WM-WorkerWrapper';

export type WorkerOutcome = 'SUCCESS' | 'RETRY' | 'FAILURE';

export interface WorkerResult {
  readonly outcome: WorkerOutcome;
  /** The WorkSpec id (a UUID). */
  readonly workId: string;
}

const RESULT_LINE = /^Worker result (SUCCESS|RETRY|FAILURE) for Work \[ id=([0-9a-fA-F-]+)/;

/** `Worker result … for Work [ id=… ]`; null for any other message. */
export function parseWorkerResult(message: string): WorkerResult | null {
  const match = RESULT_LINE.exec(message);
  if (match === null) return null;
  return { outcome: match[1] as WorkerOutcome, workId: match[2] ?? '' };
}

/** Whether a message announces a worker result (so it must parse). */
export function namesWorkerResult(message: string): boolean {
  return message.startsWith('Worker result');
}
