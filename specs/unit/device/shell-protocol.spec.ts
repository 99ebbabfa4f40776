import { expect } from 'chai';
import { encodeShellPacket, encodeStdin, MAX_STDIN_PACKET, ShellPacketDecoder, ShellPacketId } from '../../../src/device/shell-protocol.js';

describe('shell protocol v2 packets', () => {
  it('encodes id, little-endian length and data', () => {
    expect([...encodeShellPacket(ShellPacketId.stdout, Buffer.from('hi'))]).to.deep.equal([1, 2, 0, 0, 0, 0x68, 0x69]);
    expect([...encodeShellPacket(ShellPacketId.closeStdin)]).to.deep.equal([4, 0, 0, 0, 0]);
  });

  it('decodes packets split and merged across chunks', () => {
    const stream = Buffer.concat([
      encodeShellPacket(ShellPacketId.stdout, Buffer.from([0, 255, 10, 13])),
      encodeShellPacket(ShellPacketId.stderr, Buffer.from('oops\n')),
      encodeShellPacket(ShellPacketId.exit, Buffer.from([3])),
    ]);
    const decoder = new ShellPacketDecoder();
    const packets = [];
    for (let at = 0; at < stream.length; at += 3) packets.push(...decoder.push(stream.subarray(at, at + 3)));
    expect(packets.map((p) => [p.id, [...p.data]])).to.deep.equal([
      [1, [0, 255, 10, 13]],
      [2, [...Buffer.from('oops\n')]],
      [3, [3]],
    ]);
    expect(decoder.bufferedBytes).to.equal(0);
  });

  it('keeps an incomplete packet until the rest arrives', () => {
    const decoder = new ShellPacketDecoder();
    expect(decoder.push(Buffer.from([1, 4, 0, 0, 0, 0x61]))).to.deep.equal([]);
    expect(decoder.bufferedBytes).to.equal(6);
    expect(decoder.push(Buffer.from([0x62, 0x63, 0x64])).map((p) => p.data.toString())).to.deep.equal(['abcd']);
  });

  it('splits large stdin and ends with CloseStdin', () => {
    const data = Buffer.alloc(MAX_STDIN_PACKET + 10, 7);
    const packets = new ShellPacketDecoder().push(encodeStdin(data));
    expect(packets.map((p) => [p.id, p.data.length])).to.deep.equal([
      [0, MAX_STDIN_PACKET],
      [0, 10],
      [4, 0],
    ]);
    expect(new ShellPacketDecoder().push(encodeStdin(Buffer.alloc(0))).map((p) => p.id)).to.deep.equal([4]);
  });
});
