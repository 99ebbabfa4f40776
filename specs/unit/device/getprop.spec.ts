import { expect } from 'chai';
import { parseGetprop } from '../../../src/device/getprop.js';
import { loadFixture } from '../android/fixtures.js';

describe('getprop output', () => {
  it('reads [name]: [value] lines, including a value spanning lines', () => {
    expect(parseGetprop(loadFixture('34/getprop.txt').body)).to.deep.equal({
      'ro.build.type': 'userdebug',
      'ro.build.version.release': '14',
      'ro.build.version.sdk': '34',
      'ro.debuggable': '1',
      'ro.product.model': 'sdk_gphone64_x86_64',
      'sys.boot_completed': '1',
      'test.multiline': 'first\nsecond',
    });
  });

  it('reads an empty value', () => {
    expect(parseGetprop('[a]: []\n[b]: [x]\n')).to.deep.equal({ a: '', b: 'x' });
  });
});
