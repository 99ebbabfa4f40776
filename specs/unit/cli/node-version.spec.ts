/**
 * The Node.js version gate bin/dedup-verify.js runs first: supported versions pass, older ones
 * get one line naming the version found, the version needed and how to get it, and the minimum
 * is the one package.json's `engines.node` declares.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { checkNodeVersion, ENGINES_NODE, MINIMUM_NODE } from '../../../src/cli/node-version.js';

describe('checkNodeVersion', () => {
  it('accepts the minimum and everything newer', () => {
    for (const v of ['20.19.0', '20.19.5', '20.20.2', '21.0.0', '22.11.0', '24.1.0', 'v22.3.1', '30.0.0-nightly20250101']) {
      expect(checkNodeVersion(v), v).to.equal(null);
    }
  });

  it('refuses older versions with one line naming the version found and the one needed', () => {
    for (const v of ['20.18.3', '20.0.0', '18.20.4', '16.20.2', '14.21.3', '12.22.12', '8.17.0']) {
      const message = checkNodeVersion(v);
      expect(message, v).to.be.a('string');
      expect(message).to.include(`this is ${v}`);
      expect(message).to.include(`Node.js ${MINIMUM_NODE.major}.${MINIMUM_NODE.minor} or newer`);
      expect(message).to.match(/Install Node\.js 20 LTS/);
      expect(message).to.not.include('\n');
    }
  });

  it('refuses a version it cannot read instead of guessing', () => {
    const message = checkNodeVersion('unknown');
    expect(message).to.include('"unknown"');
    expect(message).to.not.include('\n');
  });

  it('states the same minimum as package.json engines.node', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines?: { node?: string } };
    expect(pkg.engines?.node).to.equal(ENGINES_NODE);
  });

  it('accepts the Node running this test (the project needs it too)', () => {
    expect(checkNodeVersion(process.versions.node)).to.equal(null);
  });
});
