/**
 * A virtual device in a process of its own (as a real device is apart from the host), which
 * also records the name of every service the host opens on it: each OPEN is one adb round trip
 * (a shell command, a sync session, a reverse rule, …). Driven over the IPC channel by
 * device-process.ts; argv[2] is the JSON of StartVirtualDeviceOptions.
 */
import { startVirtualDevice, type StartVirtualDeviceOptions } from '../../src/virtual-device/server.js';
import type { ChildMessage, ParentMessage } from './device-messages.js';

const options = JSON.parse(process.argv[2] ?? '{}') as StartVirtualDeviceOptions;
const running = await startVirtualDevice({ ...options, port: 0 });
const opened: string[] = [];
const daemon = running.daemon;
const resolve = daemon.resolveService.bind(daemon);
daemon.resolveService = (name, transport) => {
  opened.push(name);
  return resolve(name, transport);
};

function send(message: ChildMessage): void {
  process.send?.(message);
}

let closing: Promise<void> | undefined;
function stop(): Promise<void> {
  closing ??= running.close();
  return closing;
}

process.on('message', (m: ParentMessage) => {
  switch (m.kind) {
    case 'take':
      send({ kind: 'opened', id: m.id, names: opened.splice(0) });
      return;
    case 'stop':
      void stop().then(() => {
        send({ kind: 'stopped' });
        process.disconnect();
      });
      return;
    default: {
      const unreachable: never = m;
      throw new Error(`unknown message ${JSON.stringify(unreachable)}`);
    }
  }
});
// The parent went away: do not outlive it.
process.on('disconnect', () => {
  void stop();
});
send({ kind: 'ready', serial: running.serial, port: running.port });
