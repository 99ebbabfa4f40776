/**
 * The device's process table (ShellHost.processes), part of the core so the Android model can
 * add its processes (system_server, the app) and `ps`, `pidof` and `kill` see them. Shell
 * commands register themselves while they run.
 */

/** Linux signal numbers (asm-generic/signal.h) and names as toybox's kill -l lists them. */
export const SIGNALS = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  ILL: 4,
  TRAP: 5,
  ABRT: 6,
  BUS: 7,
  FPE: 8,
  KILL: 9,
  USR1: 10,
  SEGV: 11,
  USR2: 12,
  PIPE: 13,
  ALRM: 14,
  TERM: 15,
  STKFLT: 16,
  CHLD: 17,
  CONT: 18,
  STOP: 19,
  TSTP: 20,
  TTIN: 21,
  TTOU: 22,
  URG: 23,
  XCPU: 24,
  XFSZ: 25,
  VTALRM: 26,
  PROF: 27,
  WINCH: 28,
  IO: 29,
  PWR: 30,
  SYS: 31,
} as const;
export type SignalName = keyof typeof SIGNALS;

/** A signal number from a name (`TERM`, `SIGTERM`, case-insensitive) or a number string. */
export function signalNumber(spec: string): number | undefined {
  if (/^\d+$/.test(spec)) {
    const n = Number(spec);
    return n <= 64 ? n : undefined;
  }
  const name = spec.toUpperCase().replace(/^SIG/, '');
  return name in SIGNALS ? SIGNALS[name as SignalName] : undefined;
}

export function signalName(n: number): string | undefined {
  return (Object.keys(SIGNALS) as SignalName[]).find((k) => SIGNALS[k] === n);
}

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly uid: number;
  /** Process name as `ps` shows it (argv[0] basename or the package name). */
  readonly name: string;
  readonly args: readonly string[];
  /** Device wall-clock time the process started (epoch ms). */
  readonly startMs: number;
}

export interface ProcessSpec {
  name: string;
  uid: number;
  ppid?: number;
  args?: readonly string[];
  /** Fixed pid (for well-known processes); otherwise the next free one. */
  pid?: number;
  startMs?: number;
  /** Receives signals sent with kill; without it a fatal signal just removes the process. */
  onSignal?: (signal: number) => void;
  /** SELinux domain of the process when it matters to a policy check (an app's `untrusted_app`). */
  domain?: string;
}

export interface ProcessHandle {
  readonly pid: number;
  /** Removes the process from the table. */
  exit(): void;
}

export type SignalResult = 'ok' | 'ESRCH' | 'EPERM' | 'EACCES';

/**
 * The SELinux check of kill(2) (security_task_kill → selinux_task_kill, torvalds/linux
 * security/selinux/hooks.c): whether the sender's domain may send `signal` to a process of
 * `targetDomain`. True when the policy denies it.
 */
export type SignalPolicy = (sender: { uid: number }, target: { uid: number; domain: string | undefined }, signal: number) => boolean;

interface Entry {
  info: ProcessInfo;
  onSignal: ((signal: number) => void) | undefined;
  domain: string | undefined;
}

export class ProcessTable {
  private readonly entries = new Map<number, Entry>();
  private nextPid: number;
  /** Installed by the Android model for its API level; none allows every signal DAC allows. */
  signalPolicy: SignalPolicy | undefined;

  constructor(options: { firstPid?: number } = {}) {
    this.nextPid = options.firstPid ?? 4200;
    this.spawn({ name: 'init', uid: 0, pid: 1, ppid: 0, args: ['/system/bin/init', 'second_stage'] });
  }

  spawn(spec: ProcessSpec): ProcessHandle {
    let pid = spec.pid;
    if (pid === undefined) {
      while (this.entries.has(this.nextPid)) this.nextPid++;
      pid = this.nextPid++;
      if (this.nextPid > 32767) this.nextPid = 300;
    }
    const info: ProcessInfo = {
      pid,
      ppid: spec.ppid ?? 1,
      uid: spec.uid,
      name: spec.name,
      args: spec.args ?? [spec.name],
      startMs: spec.startMs ?? Date.now(),
    };
    this.entries.set(pid, { info, onSignal: spec.onSignal, domain: spec.domain });
    const id = pid;
    return { pid: id, exit: () => void this.entries.delete(id) };
  }

  list(): ProcessInfo[] {
    return [...this.entries.values()].map((e) => e.info).sort((a, b) => a.pid - b.pid);
  }

  get(pid: number): ProcessInfo | undefined {
    return this.entries.get(pid)?.info;
  }

  /**
   * kill(2): root may signal anyone, others only processes of their own uid (EPERM, the DAC
   * check of check_kill_permission, torvalds/linux kernel/signal.c), then the LSM hook, whose
   * denial is EACCES (avc_has_perm in security/selinux/hooks.c). Signal 0 probes: SELinux maps
   * it to the `signal` permission too, but no policy here denies that.
   */
  signal(pid: number, signal: number, senderUid: number): SignalResult {
    const entry = this.entries.get(pid);
    if (entry === undefined) return 'ESRCH';
    if (senderUid !== 0 && senderUid !== entry.info.uid) return 'EPERM';
    if (signal !== 0 && this.signalPolicy?.({ uid: senderUid }, { uid: entry.info.uid, domain: entry.domain }, signal) === true) return 'EACCES';
    if (signal === 0) return 'ok';
    if (entry.onSignal !== undefined) entry.onSignal(signal);
    else if (!isIgnoredByDefault(signal)) this.entries.delete(pid);
    return 'ok';
  }
}

/** Signals whose default action is to ignore (or continue) rather than terminate. */
export function isIgnoredByDefault(signal: number): boolean {
  return signal === SIGNALS.CHLD || signal === SIGNALS.CONT || signal === SIGNALS.URG || signal === SIGNALS.WINCH;
}
