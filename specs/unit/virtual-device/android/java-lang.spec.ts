import { expect } from 'chai';
import { formatDuration, formatUid, hex08, IdentityHashes, integerToHexString, javaStringHashCode } from '../../../../src/virtual-device/system/java-lang.js';

describe('android/java-lang', () => {
  it('String.hashCode matches Java for ASCII, empty, overflow and UTF-16 input', () => {
    // Values computed by java.lang.String#hashCode (s[0]*31^(n-1) + ... in 32-bit int arithmetic).
    expect(javaStringHashCode('')).to.equal(0);
    expect(javaStringHashCode('a')).to.equal(97);
    expect(javaStringHashCode('hello')).to.equal(99162322);
    // Independent check: the polynomial over BigInt, reduced to a signed 32-bit int.
    const link = 'https://example.org/fresh/1';
    let big = 0n;
    for (const unit of link) big = big * 31n + BigInt(unit.charCodeAt(0));
    expect(javaStringHashCode(link)).to.equal(Number(BigInt.asIntN(32, big)));
    // And the value OpenJDK 17 prints for "https://example.org/fresh/1".hashCode().
    expect(javaStringHashCode(link)).to.equal(-765437518);
    expect(javaStringHashCode('polygenelubricants')).to.equal(-2147483648);
    // A surrogate pair hashes as two UTF-16 code units.
    expect(javaStringHashCode('\u{1F600}')).to.equal(31 * 0xd83d + 0xde00);
  });

  it('Integer.toHexString prints the unsigned value without padding; %08x pads', () => {
    expect(integerToHexString(16)).to.equal('10');
    expect(integerToHexString(-1)).to.equal('ffffffff');
    expect(hex08(0x0dfbaffe)).to.equal('0x0dfbaffe');
    expect(hex08(0)).to.equal('0x00000000');
  });

  it('UserHandle.formatUid prints system uids raw and app uids as u<user>a<n>', () => {
    expect(formatUid(1000)).to.equal('1000');
    expect(formatUid(10190)).to.equal('u0a190');
    expect(formatUid(10233)).to.equal('u0a233');
    expect(formatUid(1010190)).to.equal('u10a190');
  });

  it('TimeUtils.formatDuration', () => {
    expect(formatDuration(0)).to.equal('0');
    expect(formatDuration(30_000)).to.equal('+30s0ms');
    expect(formatDuration(15 * 60_000)).to.equal('+15m0s0ms');
    expect(formatDuration(500)).to.equal('+500ms');
    expect(formatDuration(-(3_600_000 + 2_003))).to.equal('-1h0m2s3ms');
    expect(formatDuration(86_400_000)).to.equal('+1d0h0m0s0ms');
  });

  it('identity hashes are positive, varied and reproducible per seed', () => {
    const a = new IdentityHashes('virtual-1');
    const b = new IdentityHashes('virtual-1');
    const seq = [a.next(), a.next(), a.next()];
    expect([b.next(), b.next(), b.next()]).to.deep.equal(seq);
    expect(new Set(seq).size).to.equal(3);
    for (const h of seq) expect(h).to.be.within(0, 0x7fffffff);
  });
});
