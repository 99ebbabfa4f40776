/**
 * sync: through the real adb CLI (STA2/LST2, LIS2, SEND, RECV, QUIT) and adbkit (STAT, LIST,
 * SEND with 65536-byte chunks, RECV), plus exact record checks on a raw connection.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAll, startAdbServer, type AdbServer } from '../support/adb-server.js';
import { RawAdbHost, testDevices, type RunningVirtualDevice } from '../support/virtual-devices.js';

function syncRequest(id: string, path: string): Buffer {
  const p = Buffer.from(path);
  const h = Buffer.alloc(8);
  h.write(id, 0, 'latin1');
  h.writeUInt32LE(p.length, 4);
  return Buffer.concat([h, p]);
}

describe('virtual adbd: sync', () => {
  const devices = testDevices();
  let adb: AdbServer;
  let dev: RunningVirtualDevice;
  let work: string;
  let blob: Buffer;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dv-adbd-sync-'));
    blob = randomBytes(5 * 1024 * 1024);
    await writeFile(join(work, 'blob'), blob);
    adb = await startAdbServer();
    dev = await devices.start();
    await adb.connect(dev.serial);
  });

  after(async () => {
    await adb?.stop();
    await devices.stopAll();
    await rm(work, { recursive: true, force: true });
  });

  it('adb push and adb pull move a 5 MiB random file byte for byte, keeping its mtime', async () => {
    await utimes(join(work, 'blob'), 1_600_000_000, 1_600_000_000);
    const push = await adb.adb(['-s', dev.serial, 'push', join(work, 'blob'), '/data/local/tmp/blob']);
    expect(push.code, push.stderr).to.equal(0);
    const pull = await adb.adb(['-s', dev.serial, 'pull', '/data/local/tmp/blob', join(work, 'back')]);
    expect(pull.code, pull.stderr).to.equal(0);
    expect(Buffer.compare(await readFile(join(work, 'back')), blob)).to.equal(0);
    const st = await adb.client.getDevice(dev.serial).stat('/data/local/tmp/blob');
    expect(st.size).to.equal(blob.length);
    expect(st.mtimeMs).to.equal(1_600_000_000_000);
    // adbd copies the user permission bits to group and other: 0644 arrives as 0666.
    expect(st.mode).to.equal(0o100666);
  });

  it('adbkit push (65536-byte DATA chunks) and pull move a 5 MiB file byte for byte', async () => {
    const device = adb.client.getDevice(dev.serial);
    const transfer = await device.push(join(work, 'blob'), '/data/local/tmp/adbkit.bin', 0o600);
    await new Promise<void>((resolve, reject) => {
      transfer.on('end', () => resolve());
      transfer.on('error', reject);
    });
    const pulled = await readAll(await device.pull('/data/local/tmp/adbkit.bin'));
    expect(Buffer.compare(pulled, blob)).to.equal(0);
    // SEND ",33152" (0100600): the user bits are copied to group and other as well.
    expect((await device.stat('/data/local/tmp/adbkit.bin')).mode).to.equal(0o100666);
  });

  it('push creates missing parent directories (fixed_push_mkdir)', async () => {
    await writeFile(join(work, 'small.txt'), 'small\n');
    const r = await adb.adb(['-s', dev.serial, 'push', join(work, 'small.txt'), '/data/local/tmp/a/b/c/small.txt']);
    expect(r.code, r.stderr).to.equal(0);
    const st = await adb.client.getDevice(dev.serial).stat('/data/local/tmp/a/b/c/small.txt');
    expect(st.size).to.equal(6);
  });

  it('a push the shell user may not write fails with adbd\'s message', async () => {
    const r = await adb.adb(['-s', dev.serial, 'push', join(work, 'small.txt'), '/data/data/nope.txt']);
    expect(r.code).to.equal(1);
    // adb 29 prints sync errors on stdout.
    expect(r.stdout.toString() + r.stderr).to.contain("remote couldn't create file: Permission denied");
  });

  it('`adb ls` lists through LIS2, with . and .. and each entry\'s mode, size and mtime', async () => {
    const r = await adb.adb(['-s', dev.serial, 'ls', '/data/local/tmp']);
    expect(r.code).to.equal(0);
    const lines = r.stdout.toString().trim().split('\n');
    const names = lines.map((l) => l.split(' ').slice(3).join(' '));
    expect(names).to.include.members(['.', '..', 'blob', 'adbkit.bin', 'a']);
    const blobLine = lines.find((l) => l.endsWith(' blob'));
    // "%08x %08x %08x %s": mode, size, mtime, name ([SC29 adb/client/commandline.cpp])
    expect(blobLine).to.equal(`000081b6 00500000 ${(1_600_000_000).toString(16)} blob`);
  });

  it('adbkit readdir lists through LIST without . and ..', async () => {
    const entries: { name: string; size: number; isDirectory(): boolean }[] = await adb.client.getDevice(dev.serial).readdir('/data/local/tmp');
    const byName = new Map(entries.map((e) => [e.name, e]));
    expect([...byName.keys()].sort()).to.deep.equal(['a', 'adbkit.bin', 'blob']);
    expect(byName.get('blob')?.size).to.equal(blob.length);
    expect(byName.get('a')?.isDirectory()).to.equal(true);
  });

  it('adbkit stat (STAT v1) answers ENOENT for a missing path', async () => {
    let error: unknown;
    await Promise.resolve(adb.client.getDevice(dev.serial).stat('/data/local/tmp/missing')).catch((e: unknown) => (error = e));
    expect((error as { code?: string }).code).to.equal('ENOENT');
  });

  it('a pull of a missing file reports the STA2 errno as the adb client prints it', async () => {
    const r = await adb.adb(['-s', dev.serial, 'pull', '/data/local/tmp/nope.txt', join(work, 'nope')]);
    expect(r.code).to.equal(1);
    expect(r.stdout.toString() + r.stderr).to.contain("failed to stat remote object '/data/local/tmp/nope.txt': No such file or directory");
  });

  it('answers STAT, STA2, LST2, LIST and RECV with the exact record sizes', async () => {
    const host = await RawAdbHost.connect(dev.port);
    try {
      await host.handshake();
      const input = Buffer.concat([
        syncRequest('STAT', '/data/local/tmp/blob'),
        syncRequest('STA2', '/data/local/tmp/blob'),
        syncRequest('LST2', '/sdcard'),
        syncRequest('STA2', '/data/local/tmp/none'),
        syncRequest('LIST', '/data/local/tmp/a'),
        syncRequest('RECV', '/data/local/tmp/a/b/c/small.txt'),
        syncRequest('RECV', '/data/local/tmp/none'),
      ]);
      const { opened, data } = await host.runService(1, 'sync:', input);
      expect(opened).to.equal(true);
      let off = 0;
      const take = (n: number): Buffer => data.subarray(off, (off += n));
      const statV1 = take(16);
      expect(statV1.subarray(0, 4).toString()).to.equal('STAT');
      expect([statV1.readUInt32LE(4), statV1.readUInt32LE(8), statV1.readUInt32LE(12)]).to.deep.equal([0o100666, blob.length, 1_600_000_000]);
      const sta2 = take(72);
      expect(sta2.subarray(0, 4).toString()).to.equal('STA2');
      expect([sta2.readUInt32LE(4), sta2.readUInt32LE(24), sta2.readUInt32LE(32), Number(sta2.readBigUInt64LE(40))]).to.deep.equal([0, 0o100666, 2000, blob.length]);
      const lst2 = take(72);
      expect(lst2.subarray(0, 4).toString()).to.equal('LST2');
      expect(lst2.readUInt32LE(24) & 0o170000).to.equal(0o120000); // /sdcard is a symlink
      const missing = take(72);
      expect([missing.subarray(0, 4).toString(), missing.readUInt32LE(4)]).to.deep.equal(['STA2', 2]);
      const dents: string[] = [];
      for (;;) {
        const rec = take(20);
        if (rec.subarray(0, 4).toString() === 'DONE') {
          expect(rec.subarray(4).every((b) => b === 0)).to.equal(true);
          break;
        }
        expect(rec.subarray(0, 4).toString()).to.equal('DENT');
        dents.push(take(rec.readUInt32LE(16)).toString());
      }
      expect(dents).to.deep.equal(['.', '..', 'b']);
      const dataHeader = take(8);
      expect([dataHeader.subarray(0, 4).toString(), dataHeader.readUInt32LE(4)]).to.deep.equal(['DATA', 6]);
      expect(take(6).toString()).to.equal('small\n');
      expect(take(8)).to.deep.equal(Buffer.concat([Buffer.from('DONE'), Buffer.alloc(4)]));
      const failHeader = take(8);
      expect(failHeader.subarray(0, 4).toString()).to.equal('FAIL');
      expect(take(failHeader.readUInt32LE(4)).toString()).to.equal('open failed: No such file or directory');
      expect(off).to.equal(data.length);
    } finally {
      host.close();
    }
  });

  it('answers an unknown sync request with FAIL and closes the stream', async () => {
    const host = await RawAdbHost.connect(dev.port);
    try {
      await host.handshake();
      const { data } = await host.runService(1, 'sync:', syncRequest('NOPE', '/'));
      expect(data.subarray(0, 4).toString()).to.equal('FAIL');
      expect(data.subarray(8).toString()).to.equal(`unknown command ${Buffer.from('NOPE').readUInt32LE(0).toString(16)}`);
    } finally {
      host.close();
    }
  });

  it('adb pull of a directory copies the whole tree', async () => {
    const r = await adb.adb(['-s', dev.serial, 'pull', '/data/local/tmp/a', join(work, 'tree')]);
    expect(r.code, r.stderr).to.equal(0);
    expect((await stat(join(work, 'tree', 'b', 'c', 'small.txt'))).size).to.equal(6);
  });
});
