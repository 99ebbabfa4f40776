/**
 * Starts a virtual device in its own Node process (bench/lib/device-child.ts) and reads the
 * services the host opened on it since the last reading. Only the process started here is
 * stopped here.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { StartVirtualDeviceOptions } from '../../src/virtual-device/server.js';
import type { ChildMessage, ParentMessage } from './device-messages.js';
import { ROOT } from './processes.js';

export interface DeviceProcess {
  readonly serial: string;
  readonly pid: number;
  /** Services opened (one name per OPEN, in order) since the previous call; resets the list. */
  takeOpened(): Promise<readonly string[]>;
  stop(): Promise<void>;
}

export async function startDeviceProcess(options: Omit<StartVirtualDeviceOptions, 'port'> = {}): Promise<DeviceProcess> {
  const child: ChildProcess = fork(join(ROOT, 'bench', 'lib', 'device-child.ts'), [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, DEDUP_VERIFY_ADBD_TRACE: '0' },
  });
  const waiters = new Map<number, (names: readonly string[]) => void>();
  let nextId = 1;
  const ready = new Promise<{ serial: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the virtual device process exited (${String(code)}) before it was ready`)));
    child.on('message', (m: ChildMessage) => {
      if (m.kind === 'ready') resolve({ serial: m.serial });
      else if (m.kind === 'opened') {
        waiters.get(m.id)?.(m.names);
        waiters.delete(m.id);
      }
    });
  });
  const { serial } = await ready;
  const send = (m: ParentMessage): void => {
    child.send(m);
  };
  let stopping: Promise<void> | undefined;
  return {
    serial,
    pid: child.pid ?? -1,
    takeOpened: () =>
      new Promise((resolve) => {
        const id = nextId++;
        waiters.set(id, resolve);
        send({ kind: 'take', id });
      }),
    stop: () => {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        send({ kind: 'stop' });
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/** How many of `names` each kind of service (classifyService) is. */
export function tallyServices(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) {
    const key = classifyService(name);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * A service name reduced to what it does: `shell,v2,raw:run-as PKG cat databases/feed.db` →
 * `shell: run-as cat databases/feed.db`; `sync:` → `sync`; reverse rules keep their verb.
 */
export function classifyService(name: string): string {
  const colon = name.indexOf(':');
  const head = colon < 0 ? name : name.slice(0, colon);
  const rest = colon < 0 ? '' : name.slice(colon + 1);
  // Commands sent in one shell invocation (src/device/shell-batch.ts, reads or a sequence of
  // changes): `( CMD\n) </dev/null; … "__DV_B_""…`.
  if (head.startsWith('shell') && rest.startsWith('( ') && rest.includes('"__DV_B_""')) {
    const commands = [...rest.matchAll(/(?:^|\n)\( ([^\n]*)\n\) <\/dev\/null;/g)].map((m) => classifyService(`${head}:${m[1] ?? ''}`).replace(/^shell: /, ''));
    return `shell: batch of ${commands.length} (${commands.join(' + ')})`;
  }
  if (head.startsWith('shell') || head === 'exec') {
    // `adb logcat` runs `export ANDROID_LOG_TAGS="…"; exec logcat …` (adb/client/commandline.cpp logcat).
    const command = rest.replace(/^export ANDROID_LOG_TAGS=\S*; exec /, '');
    const words = command.replace(/'/g, '').split(/\s+/).filter((w) => w !== '');
    const [cmd = '', ...args] = words;
    switch (cmd) {
      case 'run-as':
        return `${head === 'exec' ? 'exec' : 'shell'}: run-as ${args.slice(1, 3).join(' ')}`;
      case 'cmd':
        return `shell: cmd ${args.slice(0, 2).join(' ')}`;
      case 'dumpsys':
      case 'settings':
      case 'am':
      case 'pm':
        return `shell: ${cmd} ${args[0] ?? ''}`.trim();
      case 'log':
        return 'shell: log (stream sync marker)';
      case 'logcat':
        return `shell: logcat ${args.filter((a) => /^-[cdT]$/.test(a)).join(' ') || '(stream)'}`.trim();
      default:
        return `${head === 'exec' ? 'exec' : 'shell'}: ${[cmd, ...args.slice(0, 1)].join(' ')}`;
    }
  }
  if (head === 'reverse') return `reverse: ${rest.split(':')[0] ?? ''}`;
  return head;
}
