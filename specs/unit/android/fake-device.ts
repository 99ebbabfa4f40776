/**
 * A hand-built AndroidDevice for unit specs: every shell call goes to `respond` (argv in, result
 * out) and is recorded; streamed commands are kept so a spec can feed them lines.
 */
import { commandFailed, type AndroidDevice, type ReverseRule, type ShellOptions, type ShellResult, type ShellTextOptions, type StreamEnd, type StreamHandle, type StreamListener } from '../../../src/device/android-device.js';
import { buildShellCommand } from '../../../src/device/shell-quote.js';

export interface FakeReply {
  readonly stdout?: Buffer | string | undefined;
  readonly stderr?: string | undefined;
  readonly exitCode?: number | undefined;
}

export type Responder = (argv: readonly string[], options: ShellOptions) => FakeReply;

export interface FakeStream {
  readonly argv: readonly string[];
  readonly listener: StreamListener;
  stopped: boolean;
  end(reason: StreamEnd['reason']): void;
}

export class FakeDevice implements AndroidDevice {
  readonly serial = 'fake-1';
  readonly calls: { argv: readonly string[]; stdin: Buffer | undefined }[] = [];
  readonly streams: FakeStream[] = [];
  readonly pushed = new Map<string, Buffer>();

  constructor(private readonly respond: Responder) {}

  shell(command: string | readonly string[], options: ShellOptions = {}): Promise<ShellResult> {
    const argv = typeof command === 'string' ? command.split(' ') : command;
    const stdin = options.stdin === undefined ? undefined : Buffer.from(options.stdin);
    this.calls.push({ argv, stdin });
    const result = this.respond(argv, options);
    return Promise.resolve({
      stdout: Buffer.from(result.stdout ?? ''),
      stderr: result.stderr ?? '',
      exitCode: result.exitCode ?? 0,
    });
  }

  /** Each command of a batch answered by `respond` on its own (the batch's wire format has specs of its own). */
  async shellBatch(commands: readonly (string | readonly string[])[]): Promise<ShellResult[]> {
    const results: ShellResult[] = [];
    for (const command of commands) results.push(await this.shell(command));
    return results;
  }

  async shellText(command: string | readonly string[], options: ShellTextOptions = {}): Promise<string> {
    const result = await this.shell(command, options);
    if (result.exitCode !== 0 && !(options.allowExitCodes ?? []).includes(result.exitCode)) {
      throw commandFailed(typeof command === 'string' ? command : buildShellCommand(command), result);
    }
    return result.stdout.toString('utf8');
  }

  execOut(): Promise<Buffer> {
    return Promise.reject(new Error('execOut is not used by these specs'));
  }

  pull(path: string): Promise<Buffer> {
    const data = this.pushed.get(path);
    return data === undefined ? Promise.reject(new Error(`no ${path}`)) : Promise.resolve(data);
  }

  push(data: Buffer | string, path: string): Promise<void> {
    this.pushed.set(path, Buffer.from(data));
    return Promise.resolve();
  }

  streamShell(command: string | readonly string[], listener: StreamListener): Promise<StreamHandle> {
    const argv = typeof command === 'string' ? command.split(' ') : command;
    let resolveDone!: (end: StreamEnd) => void;
    const done = new Promise<StreamEnd>((resolve) => {
      resolveDone = resolve;
    });
    const stream: FakeStream = {
      argv,
      listener,
      stopped: false,
      end: (reason) => resolveDone({ reason, exitCode: undefined }),
    };
    this.streams.push(stream);
    return Promise.resolve({
      stop: () => {
        stream.stopped = true;
        stream.end('stopped');
        return done.then(() => undefined);
      },
      done,
    });
  }

  reverse(): Promise<void> {
    return Promise.resolve();
  }

  listReverses(): Promise<ReverseRule[]> {
    return Promise.resolve([]);
  }

  removeReverse(): Promise<void> {
    return Promise.resolve();
  }

  getProperties(): Promise<Record<string, string>> {
    return Promise.resolve({});
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The calls as command lines, for compact assertions. */
  commandLines(): string[] {
    return this.calls.map((c) => buildShellCommand(c.argv));
  }
}
