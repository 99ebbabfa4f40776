import { expect } from 'chai';
import { parseMarkedOutput, wrapWithExitMarker } from '../../../src/device/exit-marker.js';

const NONCE = '0123456789abcdef0123456789abcdef';

describe('legacy shell exit marker', () => {
  it('wraps the command in a subshell with stderr to a file and a split marker', () => {
    const wrapped = wrapWithExitMarker('cat /nope', NONCE, { stderrPath: '/data/local/tmp/.dv-err-x' });
    expect(wrapped).to.equal(
      `( cat /nope\n) 2>/data/local/tmp/.dv-err-x; __dv_r=$?; echo; echo "__DV_EXIT_""${NONCE}""_$__dv_r"; ` +
        'cat /data/local/tmp/.dv-err-x 2>/dev/null; rm -f /data/local/tmp/.dv-err-x 2>/dev/null',
    );
    // the command line never contains the contiguous marker
    expect(wrapped).not.to.include(`__DV_EXIT_${NONCE}`);
  });

  it('redirects stdin from a file when given', () => {
    const wrapped = wrapWithExitMarker('cat', NONCE, { stderrPath: '/t/e', stdinPath: '/t/i' });
    expect(wrapped).to.match(/^\( cat\n\) <\/t\/i 2>\/t\/e;/);
    expect(wrapped).to.match(/rm -f \/t\/e \/t\/i 2>\/dev\/null$/);
  });

  it('splits stdout (byte-exact), exit code and stderr', () => {
    const stdout = Buffer.from([0, 1, 2, 255, 10, 0x5f]);
    const output = Buffer.concat([stdout, Buffer.from(`\n__DV_EXIT_${NONCE}_23\nCould not find job 7\n`)]);
    const parsed = parseMarkedOutput(output, NONCE);
    expect(parsed?.exitCode).to.equal(23);
    expect([...(parsed?.stdout ?? [])]).to.deep.equal([...stdout]);
    expect(parsed?.stderr.toString()).to.equal('Could not find job 7\n');
  });

  it('does not take a marker with another nonce or without digits', () => {
    const fake = Buffer.from(`out\n__DV_EXIT_ffffffffffffffffffffffffffffffff_0\n__DV_EXIT_${NONCE}_$__dv_r\n`);
    expect(parseMarkedOutput(fake, NONCE)).to.equal(null);
  });

  it('tolerates CRLF from a PTY', () => {
    expect(parseMarkedOutput(Buffer.from(`a\r\n\r\n__DV_EXIT_${NONCE}_0\r\n`), NONCE)).to.deep.include({ exitCode: 0 });
  });

  it('refuses a weak nonce', () => {
    expect(() => wrapWithExitMarker('true', 'abc', { stderrPath: '/t/e' })).to.throw(/nonce/);
  });
});
