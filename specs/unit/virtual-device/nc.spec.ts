import { expect } from 'chai';
import type { Duplex } from 'node:stream';
import { createTestDevice, run, stdinOf, WatchedSink, type TestDevice } from './shell-harness.js';
import type { Shell } from '../../../src/virtual-device/shell/shell.js';
import { CaptureSink } from '../../../src/virtual-device/shell/streams.js';

function readAll(socket: Duplex): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });
}

describe('nc through the device network', () => {
  let device: TestDevice;
  let shell: Shell;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    ({ device, shell, dispose } = await createTestDevice());
  });
  afterEach(async () => {
    await dispose();
  });

  it('sends stdin, half-closes at EOF and prints the reply until the peer closes', async () => {
    let received: Promise<string> | undefined;
    device.network.listen(8765, (socket) => {
      received = readAll(socket).then((text) => {
        socket.end(`echo:${text}`);
        return text;
      });
    });
    const r = await run(shell, 'echo ping | nc 127.0.0.1 8765');
    expect(device.network.connects).to.deep.equal([8765]);
    expect(await received).to.equal('ping\n');
    expect(r.stdout).to.equal('echo:ping\n');
    expect(r.status).to.equal(0);
  });

  it('accepts localhost as the loopback name', async () => {
    device.network.listen(9000, (socket) => socket.end('hi'));
    expect((await run(shell, 'nc localhost 9000 </dev/null')).stdout).to.equal('hi');
  });

  it('fails like toybox when nothing listens', async () => {
    const r = await run(shell, 'echo x | nc 127.0.0.1 1');
    expect(r.status).to.equal(1);
    expect(r.stderr).to.equal('nc: connect: Connection refused\n');
  });

  it('stops when the session is aborted while the peer keeps the connection open', async () => {
    device.network.listen(7000, (socket) => socket.write('partial '));
    const controller = new AbortController();
    const stdout = new WatchedSink();
    const done = shell.run('nc 127.0.0.1 7000', { stdin: stdinOf(undefined, controller.signal), stdout, stderr: new CaptureSink(), signal: controller.signal });
    await stdout.waitFor('partial ');
    controller.abort();
    expect(await done).to.equal(129);
  });

  it('rejects a bad argument count', async () => {
    const r = await run(shell, 'nc 127.0.0.1');
    expect(r.stderr).to.equal('nc: bad argument count (see "nc --help")\n');
    expect(r.status).to.equal(1);
  });
});
