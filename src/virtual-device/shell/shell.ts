/**
 * Android's /system/bin/sh as adbd runs it: `sh -c COMMAND` for `shell:COMMAND` and
 * `exec:COMMAND`, an interactive login shell for an empty command.
 *
 * Environment (packages/modules/adb daemon/shell_service.cpp Subprocess::ForkAndExec): adbd
 * passes its own environment (init's, system/core/rootdir/init.environ.rc.in) and sets HOME,
 * HOSTNAME, LOGNAME, SHELL and USER from the passwd entry of the uid, TMPDIR=/data/local/tmp,
 * and TERM when the client sent one. PATH is bionic's _PATH_DEFPATH (libc/include/paths.h).
 * The interactive prompt is /system/etc/mkshrc's: `[STATUS|]HOSTNAME:PWD $ ` (`#` for root).
 */
import type { ShellIo } from '../types.js';
import { Uid } from '../types.js';
import type { ShellHost } from './context.js';
import { Fds, Interpreter, createShellState, type SessionEnv } from './interpreter.js';
import { ShellAborted } from './control-flow.js';
import { BrokenPipeError, InputReader } from './streams.js';
import { SIGNALS } from './process-table.js';
import { passwdOf } from '../fs/android-ids.js';

export const DEFAULT_PATH = '/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin';

/** init.environ.rc's exports (BOOTCLASSPATH and friends left out). */
const INIT_ENVIRONMENT: Readonly<Record<string, string>> = {
  ANDROID_ASSETS: '/system/app',
  ANDROID_ART_ROOT: '/apex/com.android.art',
  ANDROID_BOOTLOGO: '1',
  ANDROID_DATA: '/data',
  ANDROID_I18N_ROOT: '/apex/com.android.i18n',
  ANDROID_ROOT: '/system',
  ANDROID_STORAGE: '/storage',
  ANDROID_TZDATA_ROOT: '/apex/com.android.tzdata',
  ASEC_MOUNTPOINT: '/mnt/asec',
  DOWNLOAD_CACHE: '/data/cache',
  EXTERNAL_STORAGE: '/sdcard',
  PATH: DEFAULT_PATH,
};

export interface ShellRunOptions {
  /** Effective uid (default: root after `adb root`, else shell). */
  uid?: number;
  /** Working directory (default `/`). */
  cwd?: string;
  /** Extra environment (TERM from the `shell,TERM=xterm:` service arguments). */
  env?: Readonly<Record<string, string>>;
  /** Run as an interactive login shell reading stdin (default: when the command is empty). */
  interactive?: boolean;
}

export class Shell {
  private readonly device: ShellHost;

  constructor(device: ShellHost) {
    this.device = device;
  }

  /** The environment adbd gives a shell running as `uid`. */
  environment(uid: number, extra: Readonly<Record<string, string>> = {}): Map<string, string> {
    const pw = passwdOf(uid);
    const env = new Map<string, string>(Object.entries(INIT_ENVIRONMENT));
    env.set('HOME', pw.dir);
    // GetHostName(): gethostname() unless it is "localhost", else ro.product.device.
    env.set('HOSTNAME', this.device.props.get('ro.product.device') ?? 'android');
    env.set('LOGNAME', pw.name);
    env.set('SHELL', pw.shell);
    env.set('TMPDIR', '/data/local/tmp');
    env.set('USER', pw.name);
    for (const [k, v] of Object.entries(extra)) env.set(k, v);
    return env;
  }

  /** Runs one command line as adbd's `sh -c LINE`; resolves with the exit status (0-255). */
  async run(line: string, io: ShellIo, options: ShellRunOptions = {}): Promise<number> {
    const uid = options.uid ?? (this.device.adbdIsRoot ? Uid.root : Uid.shell);
    const interactive = options.interactive ?? line === '';
    const processes = this.device.processes;
    const killer = new AbortController();
    let killedBy: number | undefined;
    const proc = processes.spawn({
      name: 'sh',
      uid,
      args: interactive ? ['-/system/bin/sh'] : ['/system/bin/sh', '-c', line],
      onSignal: (sig) => {
        killedBy = sig;
        killer.abort();
        proc.exit();
      },
    });
    const signal = AbortSignal.any([io.signal, killer.signal]);
    const session: SessionEnv = { host: this.device, signal, processes, jobs: new Set() };
    const state = createShellState({ env: this.environment(uid, options.env), arg0: '/system/bin/sh', uid, cwd: options.cwd ?? '/', pid: proc.pid });
    const interpreter = new Interpreter(session, state);
    const stdin = new InputReader(io.stdin);
    const fds = Fds.fromIo({ stdin, stdout: io.stdout, stderr: io.stderr });
    try {
      let status: number;
      if (interactive) {
        const prompt = (): string => {
          const last = state.lastStatus;
          return `${last !== 0 ? `${last}|` : ''}${state.get('HOSTNAME') ?? 'localhost'}:${state.cwd} ${state.uid === Uid.root ? '#' : '$'} `;
        };
        status = await interpreter.runFromInput(stdin, fds, prompt);
      } else {
        status = await interpreter.runScript(line, fds);
      }
      // adbd ends the session at EOF on the child's output, which background jobs keep open.
      while (session.jobs.size > 0) await Promise.allSettled([...session.jobs]);
      return status & 0xff;
    } catch (e) {
      if (e instanceof ShellAborted) return 128 + (killedBy ?? SIGNALS.HUP);
      if (e instanceof BrokenPipeError) return 128 + SIGNALS.PIPE;
      throw e;
    } finally {
      proc.exit();
    }
  }
}
