/**
 * An app process on the virtual device. Apps run inside the device's Node process; "the process"
 * is this object. Killing it (am force-stop, am kill, pm clear, run-as kill) aborts its running
 * code at the next await point: every await in app code goes through `checkpoint()`/`guard()`,
 * which throw ProcessDeath once the process is dead, and the process drops its in-memory state
 * and closes its open files (databases) through `onDeath` hooks, as the kernel would reclaim them.
 */

/** Thrown into app code that was running when its process died. */
export class ProcessDeath extends Error {
  readonly pid: number;
  constructor(pid: number, reason: string) {
    super(`process ${pid} died (${reason})`);
    this.name = 'ProcessDeath';
    this.pid = pid;
  }
}

export function isProcessDeath(e: unknown): e is ProcessDeath {
  return e instanceof ProcessDeath;
}

export class AppProcess {
  readonly pid: number;
  readonly uid: number;
  readonly packageName: string;
  /** Process name as `ps` shows it (the package name for the default process). */
  readonly name: string;
  /** Device wall-clock time the process started (ms). */
  readonly startTimeMs: number;
  /** elapsedRealtime() when the process started. */
  readonly startElapsedMs: number;
  private readonly controller = new AbortController();
  private readonly deathHooks: (() => void)[] = [];
  private deathReason: string | undefined;
  private readonly died: Promise<never>;
  private rejectDied: ((e: ProcessDeath) => void) | undefined;
  /** Per-process memory the app keeps (e.g. a session key set): lost with the process. */
  readonly memory = new Map<string, unknown>();

  constructor(args: { pid: number; uid: number; packageName: string; startTimeMs: number; startElapsedMs: number }) {
    this.pid = args.pid;
    this.uid = args.uid;
    this.packageName = args.packageName;
    this.name = args.packageName;
    this.startTimeMs = args.startTimeMs;
    this.startElapsedMs = args.startElapsedMs;
    this.died = new Promise<never>((_resolve, reject) => {
      this.rejectDied = reject;
    });
    // Nobody may be awaiting death yet: keep the rejection from being reported as unhandled.
    this.died.catch(() => undefined);
  }

  get alive(): boolean {
    return this.deathReason === undefined;
  }

  /** Aborted when the process dies: pass to sockets and timers the app opens. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Registers cleanup that runs when the process dies (closing files, sockets). */
  onDeath(hook: () => void): void {
    if (!this.alive) {
      hook();
      return;
    }
    this.deathHooks.push(hook);
  }

  /** Throws ProcessDeath if the process is dead; otherwise yields once to the event loop. */
  async checkpoint(): Promise<void> {
    this.throwIfDead();
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.throwIfDead();
  }

  /** Awaits `work`, but throws ProcessDeath as soon as the process dies (and after it resolves). */
  async guard<T>(work: Promise<T>): Promise<T> {
    this.throwIfDead();
    const result = await Promise.race([work, this.died]);
    this.throwIfDead();
    return result;
  }

  throwIfDead(): void {
    if (this.deathReason !== undefined) throw new ProcessDeath(this.pid, this.deathReason);
  }

  /** Kills the process (SIGKILL semantics: no callbacks into the app, hooks release resources). */
  kill(reason: string): void {
    if (this.deathReason !== undefined) return;
    this.deathReason = reason;
    this.memory.clear();
    this.controller.abort(new ProcessDeath(this.pid, reason));
    this.rejectDied?.(new ProcessDeath(this.pid, reason));
    for (const hook of this.deathHooks.splice(0)) {
      try {
        hook();
      } catch {
        // A dying process cannot report anything.
      }
    }
  }
}
