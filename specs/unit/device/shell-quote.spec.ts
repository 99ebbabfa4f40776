import { expect } from 'chai';
import { buildShellCommand, quoteShellArg, toCommandLine } from '../../../src/device/shell-quote.js';
import { DedupVerifyError } from '../../../src/errors.js';

describe('device shell quoting', () => {
  it('leaves plain words alone', () => {
    expect(quoteShellArg('com.example.feednotifier')).to.equal('com.example.feednotifier');
    expect(quoteShellArg('/data/local/tmp/x-1_2,3:4@5%6+7=8')).to.equal('/data/local/tmp/x-1_2,3:4@5%6+7=8');
  });

  it('single-quotes anything the shell would interpret', () => {
    expect(quoteShellArg('')).to.equal("''");
    expect(quoteShellArg('a b')).to.equal("'a b'");
    expect(quoteShellArg('$(reboot)')).to.equal("'$(reboot)'");
    expect(quoteShellArg('`id`;rm -rf /')).to.equal("'`id`;rm -rf /'");
    expect(quoteShellArg('*:S')).to.equal("'*:S'");
    expect(quoteShellArg('line1\nline2')).to.equal("'line1\nline2'");
  });

  it("writes an embedded ' as '\\''", () => {
    expect(quoteShellArg("it's")).to.equal("'it'\\''s'");
    expect(quoteShellArg("'")).to.equal("''\\'''");
  });

  it('rejects a NUL byte with a config error', () => {
    expect(() => quoteShellArg('a\0b')).to.throw(DedupVerifyError, /NUL byte/).with.property('code', 'DV_CONFIG');
  });

  it('joins argv word by word, and passes strings through', () => {
    expect(buildShellCommand(['run-as', 'com.example.app', 'sh', '-c', "cat > 'x y'"])).to.equal("run-as com.example.app sh -c 'cat > '\\''x y'\\'''");
    expect(toCommandLine('echo $HOME')).to.equal('echo $HOME');
    expect(() => buildShellCommand([])).to.throw(DedupVerifyError);
  });
});
