/**
 * The adbd framing and per-stream flow control, without sockets: packet codec and incremental
 * reader, stream output queue (one WRTE in flight, chunks ≤ max payload), input acknowledgement.
 */
import { expect } from 'chai';
import {
  AdbCommand,
  HEADER_SIZE,
  PacketError,
  PacketReader,
  checksumOf,
  commandName,
  encodePacket,
} from '../../src/virtual-device/adbd/packet.js';
import { AdbStream, type StreamTransport } from '../../src/virtual-device/adbd/stream.js';
import { buildDeviceBanner } from '../../src/virtual-device/adbd/banner.js';
import { encodeStatV2, encodeListDone, encodeDentV1, parseStrtoul, SyncId } from '../../src/virtual-device/adbd/sync-protocol.js';

describe('adbd packet codec', () => {
  it('encodes the 24-byte little-endian header with magic = command ^ 0xffffffff', () => {
    const p = encodePacket(AdbCommand.Open, 7, 0, Buffer.from('shell:id\0'), true);
    expect(p.length).to.equal(HEADER_SIZE + 9);
    expect(p.subarray(0, 4).toString('latin1')).to.equal('OPEN');
    expect(p.readUInt32LE(4)).to.equal(7);
    expect(p.readUInt32LE(12)).to.equal(9);
    expect(p.readUInt32LE(16)).to.equal(checksumOf(Buffer.from('shell:id\0')));
    expect(p.readUInt32LE(20)).to.equal((AdbCommand.Open ^ 0xffffffff) >>> 0);
    expect(encodePacket(AdbCommand.Okay, 1, 2).readUInt32LE(16)).to.equal(0);
  });

  it('names the command constants after their ASCII letters', () => {
    expect(['CNXN', 'AUTH', 'OPEN', 'OKAY', 'CLSE', 'WRTE', 'SYNC', 'STLS']).to.deep.equal(
      [AdbCommand.Cnxn, AdbCommand.Auth, AdbCommand.Open, AdbCommand.Okay, AdbCommand.Clse, AdbCommand.Wrte, AdbCommand.Sync, AdbCommand.Stls].map(commandName),
    );
  });

  it('reassembles packets split at every byte and packets merged in one chunk', () => {
    const a = encodePacket(AdbCommand.Wrte, 1, 2, Buffer.from('hello'));
    const b = encodePacket(AdbCommand.Okay, 3, 4);
    const c = encodePacket(AdbCommand.Clse, 5, 6);
    const all = Buffer.concat([a, b, c]);
    const reader = new PacketReader();
    const got = [];
    for (let i = 0; i < all.length; i++) got.push(...reader.push(all.subarray(i, i + 1)));
    expect(got.map((p) => [commandName(p.command), p.arg0, p.arg1, p.data.toString()])).to.deep.equal([
      ['WRTE', 1, 2, 'hello'],
      ['OKAY', 3, 4, ''],
      ['CLSE', 5, 6, ''],
    ]);
    const merged = new PacketReader().push(all);
    expect(merged).to.have.length(3);
    expect(reader.bufferedBytes).to.equal(0);
  });

  it('rejects a bad magic and a data_length above the limit', () => {
    const bad = encodePacket(AdbCommand.Open, 1, 0, Buffer.from('x'));
    bad.writeUInt32LE(0, 20);
    expect(() => new PacketReader().push(bad)).to.throw(PacketError, /bad magic/);
    const big = Buffer.alloc(HEADER_SIZE);
    big.writeUInt32LE(AdbCommand.Wrte, 0);
    big.writeUInt32LE(4097, 12);
    big.writeUInt32LE((AdbCommand.Wrte ^ 0xffffffff) >>> 0, 20);
    expect(() => new PacketReader(4096).push(big)).to.throw(PacketError, /exceeds/);
  });

  it('builds the device banner from the product properties with the implemented features', () => {
    const props = new Map([
      ['ro.product.name', 'sdk_gphone64_x86_64'],
      ['ro.product.model', 'Pixel:7'],
      ['ro.product.device', 'emu64xa'],
    ]);
    expect(buildDeviceBanner(props)).to.equal(
      'device::ro.product.name=sdk_gphone64_x86_64;ro.product.model=Pixel_7;ro.product.device=emu64xa;features=shell_v2,stat_v2,ls_v2,fixed_push_mkdir',
    );
  });
});

describe('sync records', () => {
  it('lays out stat_v2 in 72 bytes and list DONE as a whole zeroed record', () => {
    const st = { dev: 1, ino: 2, mode: 0o100644, nlink: 1, uid: 2000, gid: 2000, size: 5, atimeSec: 10, mtimeSec: 11, ctimeSec: 12 };
    const b = encodeStatV2(SyncId.StatV2, st);
    expect(b.length).to.equal(72);
    expect(b.subarray(0, 4).toString('latin1')).to.equal('STA2');
    expect([b.readUInt32LE(4), b.readUInt32LE(24), b.readUInt32LE(32), Number(b.readBigUInt64LE(40)), Number(b.readBigInt64LE(56))]).to.deep.equal([
      0,
      0o100644,
      2000,
      5,
      11,
    ]);
    const err = encodeStatV2(SyncId.LstatV2, undefined, 2);
    expect(err.subarray(0, 4).toString('latin1')).to.equal('LST2');
    expect(err.readUInt32LE(4)).to.equal(2);
    expect(err.subarray(8).every((x) => x === 0)).to.equal(true);
    expect(encodeListDone(20)).to.deep.equal(Buffer.concat([Buffer.from('DONE'), Buffer.alloc(16)]));
    expect(encodeListDone(76).length).to.equal(76);
    expect(encodeDentV1(Buffer.from('a.txt'), st).length).to.equal(25);
  });

  it('parses SEND modes like strtoul(…, 0)', () => {
    expect([parseStrtoul('33188'), parseStrtoul('0755'), parseStrtoul('0x1ff'), parseStrtoul('junk')]).to.deep.equal([33188, 0o755, 0x1ff, 0]);
  });
});

class FakeTransport implements StreamTransport {
  readonly sent: { command: number; arg0: number; arg1: number; data: Buffer }[] = [];
  released: number[] = [];
  constructor(readonly maxPayload: number) {}
  sendPacket(command: number, arg0: number, arg1: number, data: Uint8Array = Buffer.alloc(0)): void {
    this.sent.push({ command, arg0, arg1, data: Buffer.from(data) });
  }
  releaseStream(localId: number): void {
    this.released.push(localId);
  }
  take(): { command: string; arg0: number; arg1: number; size: number }[] {
    return this.sent.splice(0).map((p) => ({ command: commandName(p.command), arg0: p.arg0, arg1: p.arg1, size: p.data.length }));
  }
}

describe('adbd stream flow control', () => {
  it('keeps exactly one WRTE in flight, each at most max payload, coalescing small writes', async () => {
    const t = new FakeTransport(10);
    const s = new AdbStream(t, 1, 9, 'test');
    await s.write(Buffer.from('abc'));
    await s.write(Buffer.from('defghijklmnop'), Buffer.from('qr'));
    expect(t.take()).to.deep.equal([{ command: 'WRTE', arg0: 1, arg1: 9, size: 3 }]);
    s.handleOkay(9);
    expect(t.take()).to.deep.equal([{ command: 'WRTE', arg0: 1, arg1: 9, size: 10 }]);
    s.handleOkay(9);
    expect(t.take()).to.deep.equal([{ command: 'WRTE', arg0: 1, arg1: 9, size: 5 }]);
    const closed = s.close();
    expect(t.take()).to.deep.equal([]);
    s.handleOkay(9);
    expect(t.take()).to.deep.equal([{ command: 'CLSE', arg0: 1, arg1: 9, size: 0 }]);
    await closed;
    expect(t.released).to.deep.equal([1]);
    expect(s.signal.aborted).to.equal(true);
  });

  it('sends CLSE right behind the last WRTE when the service ended before that WRTE went out, as adbd does when one read meets data and EOF', async () => {
    const t = new FakeTransport(100);
    const s = new AdbStream(t, 2, 6, 'shell,v2,raw:echo hi');
    await s.write(Buffer.from('stdout packet'));
    expect(t.take()).to.deep.equal([{ command: 'WRTE', arg0: 2, arg1: 6, size: 13 }]);
    // The exit packet and the end come while the first WRTE waits for its OKAY.
    await s.write(Buffer.from('exit'));
    const closed = s.close();
    expect(t.take()).to.deep.equal([]);
    s.handleOkay(6);
    expect(t.take()).to.deep.equal([
      { command: 'WRTE', arg0: 2, arg1: 6, size: 4 },
      { command: 'CLSE', arg0: 2, arg1: 6, size: 0 },
    ]);
    await closed;
    // The OKAY for that last WRTE finds the stream gone.
    s.handleOkay(6);
    expect(t.take()).to.deep.equal([]);
    expect(t.released).to.deep.equal([2]);
  });

  it('acknowledges a WRTE only when the service takes it, and ends reads at CLSE', async () => {
    const t = new FakeTransport(100);
    const s = new AdbStream(t, 4, 8, 'test');
    s.handleWrite(Buffer.from('one'));
    expect(t.take()).to.deep.equal([]);
    expect((await s.read())?.toString()).to.equal('one');
    expect(t.take()).to.deep.equal([{ command: 'OKAY', arg0: 4, arg1: 8, size: 0 }]);
    const pending = s.read();
    s.handlePeerClose();
    expect(await pending).to.equal(null);
    expect(t.take()).to.deep.equal([]);
    let error: unknown;
    await s.write(Buffer.from('late')).catch((e: unknown) => (error = e));
    expect((error as { code?: string }).code).to.equal('EPIPE');
  });

  it('holds output of a device-opened stream until the host OKAYs the OPEN', async () => {
    const t = new FakeTransport(100);
    const s = new AdbStream(t, 3, 0, 'tcp:1234');
    const opened = s.waitOpened();
    await s.write(Buffer.from('early'));
    expect(t.take()).to.deep.equal([]);
    s.handleOkay(77);
    await opened;
    expect(s.remoteId).to.equal(77);
    expect(t.take()).to.deep.equal([{ command: 'WRTE', arg0: 3, arg1: 77, size: 5 }]);
  });

  it('rejects the open of a device-opened stream on CLSE(0, id)', async () => {
    const t = new FakeTransport(100);
    const s = new AdbStream(t, 3, 0, 'tcp:1234');
    const opened = s.waitOpened();
    s.handlePeerClose();
    let error: unknown;
    await opened.catch((e: unknown) => (error = e));
    expect((error as { code?: string }).code).to.equal('ECONNREFUSED');
  });
});
