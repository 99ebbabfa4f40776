/**
 * The ground most virtual specs stand on: a private adb server and a temp directory made before
 * the suite, and the virtual devices it started, the server and the directory removed after it.
 * Call inside a `describe`: it registers the mocha hooks there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServer } from './adb-server.js';
import { testDevices, type TestDevices } from './virtual-devices.js';

export interface VirtualLab {
  readonly devices: TestDevices;
  /** Set once the suite's `before` hooks ran. */
  readonly adb: AdbServer;
  readonly work: string;
}

export function virtualLab(tempPrefix: string): VirtualLab {
  const devices = testDevices();
  let adb: AdbServer | undefined;
  let work: string | undefined;
  before(async () => {
    adb = await startAdbServer();
    work = await mkdtemp(join(tmpdir(), tempPrefix));
  });
  after(async () => {
    await devices.stopAll();
    await adb?.stop();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });
  return {
    devices,
    get adb(): AdbServer {
      if (adb === undefined) throw new Error('the lab is used before its before() hook ran');
      return adb;
    },
    get work(): string {
      if (work === undefined) throw new Error('the lab is used before its before() hook ran');
      return work;
    },
  };
}
