import { expect } from 'chai';
import type { AdbCommand} from '../../../src/virtual-device/adbd/packet.js';
import { commandName } from '../../../src/virtual-device/adbd/packet.js';
import { AdbStream, type StreamTransport } from '../../../src/virtual-device/adbd/stream.js';

/** A transport that records the packets a stream sends. */
function recordingTransport(maxPayload = 4096): StreamTransport & { sent: string[]; released: number[] } {
  const sent: string[] = [];
  const released: number[] = [];
  return {
    maxPayload,
    sent,
    released,
    sendPacket(command: AdbCommand, arg0: number, arg1: number, data?: Uint8Array) {
      sent.push(`${commandName(command)} ${arg0} ${arg1}${data === undefined ? '' : ` ${Buffer.from(data).toString()}`}`);
    },
    releaseStream(localId: number) {
      released.push(localId);
    },
  };
}

describe('AdbStream (device side of one adb stream)', () => {
  it('hands over bytes the peer wrote before its CLSE, then the end', async () => {
    // adbd's local socket writes what it already received before it closes the fd
    // ([SC29 adb/sockets.cpp local_socket_close]): OKAY, WRTE, CLSE in one TCP read must not
    // lose the WRTE when nobody was reading yet.
    const t = recordingTransport();
    const s = new AdbStream(t, 7, 0, 'tcp:9000');
    const opened = s.waitOpened();
    s.handleOkay(42);
    s.handleWrite(Buffer.from('bye\n'));
    s.handlePeerClose();
    await opened;
    expect(s.isClosed).to.equal(true);
    expect((await s.read())?.toString()).to.equal('bye\n');
    expect(await s.read()).to.equal(null);
    // No OKAY goes to a peer that closed.
    expect(t.sent).to.deep.equal([]);
    expect(t.released).to.deep.equal([7]);
  });

  it('acknowledges each WRTE when the service takes it, not before', async () => {
    const t = recordingTransport();
    const s = new AdbStream(t, 3, 9, 'shell:cat');
    s.handleWrite(Buffer.from('a'));
    s.handleWrite(Buffer.from('b'));
    expect(t.sent).to.deep.equal([]);
    expect((await s.read())?.toString()).to.equal('a');
    expect(t.sent).to.deep.equal(['OKAY 3 9']);
    expect((await s.read())?.toString()).to.equal('b');
    expect(t.sent).to.deep.equal(['OKAY 3 9', 'OKAY 3 9']);
  });

  it('keeps one WRTE in flight; CLSE goes right behind the last WRTE when the service had ended before it, else after its OKAY', async () => {
    // Ended before the last WRTE was formed: adbd's read loop met data and EOF together.
    const t = recordingTransport(4);
    const s = new AdbStream(t, 5, 6, 'shell:echo');
    await s.write(Buffer.from('abcdef'));
    const closed = s.close();
    expect(t.sent).to.deep.equal(['WRTE 5 6 abcd']);
    s.handleOkay(6);
    expect(t.sent).to.deep.equal(['WRTE 5 6 abcd', 'WRTE 5 6 ef', 'CLSE 5 6']);
    await closed;
    // Ended while the last WRTE waited for its OKAY: the end is read after that OKAY.
    const u = recordingTransport(4);
    const v = new AdbStream(u, 7, 8, 'shell:echo');
    await v.write(Buffer.from('abcd'));
    const vClosed = v.close();
    expect(u.sent).to.deep.equal(['WRTE 7 8 abcd']);
    v.handleOkay(8);
    await vClosed;
    expect(u.sent).to.deep.equal(['WRTE 7 8 abcd', 'CLSE 7 8']);
  });

  it('drops our queued output when the peer closes, and later writes fail with EPIPE', async () => {
    const t = recordingTransport(4);
    const s = new AdbStream(t, 5, 6, 'shell:echo');
    await s.write(Buffer.from('abcdefgh'));
    s.handlePeerClose();
    expect(s.queuedOutputBytes).to.equal(0);
    let code: unknown;
    await s.write(Buffer.from('x')).catch((e: NodeJS.ErrnoException) => (code = e.code));
    expect(code).to.equal('EPIPE');
  });
});
