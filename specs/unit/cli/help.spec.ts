/**
 * The CLI's help and usage errors (docs/design.md §9): every command answers --help with exit 0, an
 * Examples block and every flag of the contract; commands that print results have --json;
 * unknown commands, flags and bad values are one line on stderr and exit 2. Runs main() in
 * process: parsing never reaches a command body, so nothing here touches a device.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { buildProgram, HELP_SCENARIO_NAMES, main, type CliIo } from '../../../src/cli/main.js';
import { SCENARIO_NAMES } from '../../../src/scenarios/index.js';
import { BUG_NAMES } from '../../../src/virtual-device/apps/feed-notifier/bugs.js';

interface Captured {
  io: CliIo;
  out: () => string;
  err: () => string;
}

function capture(): Captured {
  let out = '';
  let err = '';
  return {
    io: { stdout: (t) => (out += t), stderr: (t) => (err += t) },
    out: () => out,
    err: () => err,
  };
}

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = capture();
  const code = await main(['node', 'dedup-verify', ...args], c.io);
  return { code, out: c.out(), err: c.err() };
}

/** docs/design.md §9, plus --json on every command that prints results. */
const CONTRACT: Readonly<Record<string, readonly string[]>> = {
  run: ['--config', '--device', '--all-devices', '--virtual', '--bug', '--scenario', '--shard', '--repeat', '--infra-retries', '--adb-host', '--adb-port', '--out', '--json'],
  check: ['--window', '--allowed-duplicates', '--json'],
  report: ['--json'],
  lint: ['--json'],
  doctor: ['--device', '--capture', '--json'],
  capture: ['--device', '--package', '--out'],
  init: ['--device', '--package', '--json'],
  'virtual-device': ['--port', '--count', '--api', '--bug', '--no-root', '--no-sqlite3'],
  'serve-feed': ['--port', '--fixture', '--file'],
  restore: ['--device', '--json'],
};

/** The Options section of a help text: the flags it lists. */
function listedFlags(help: string): string[] {
  const section = help.split('\nOptions:\n')[1]?.split(/\n\n/)[0] ?? '';
  return [...section.matchAll(/(?:^|\s|, )(--[a-z0-9-]+)/gm)].map((m) => m[1] ?? '');
}

describe('dedup-verify --help', () => {
  it('lists every command of the contract and nothing else, with exit codes and examples', async () => {
    const r = await cli('--help');
    expect(r.code).to.equal(0);
    expect(r.err).to.equal('');
    const commands = [...r.out.split('\nCommands:\n')[1]!.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]);
    expect(commands.filter((c) => c !== 'help')).to.have.members(Object.keys(CONTRACT));
    expect(r.out).to.match(/\nExit codes:\n {2}0 .*\n {2}1 .*\n {2}2 /);
    expect(r.out).to.match(/\nExamples:\n {2}\$ dedup-verify run --virtual/);
  });

  for (const [name, flags] of Object.entries(CONTRACT)) {
    it(`${name} --help exits 0 with an Examples block and its flags ${flags.join(' ')}`, async () => {
      const r = await cli(name, '--help');
      expect(r.code, r.err).to.equal(0);
      expect(r.err).to.equal('');
      expect(r.out).to.match(new RegExp(`^Usage: dedup-verify ${name} `));
      const examples = r.out.split('\nExamples:\n')[1];
      expect(examples, 'an Examples block').to.be.a('string');
      expect(examples).to.match(new RegExp(`^ {2}\\$ dedup-verify ${name}\\b`, 'm'));
      const listed = listedFlags(r.out);
      for (const flag of flags) expect(listed, `${name} --help lists ${flag}`).to.include(flag);
    });
  }

  it('lists every option the commands define, each with a description', () => {
    const program = buildProgram(capture().io, () => undefined);
    for (const command of program.commands) {
      for (const option of command.options) {
        expect(option.description, `${command.name()} ${option.flags}`).to.have.length.greaterThan(10);
        expect(command.helpInformation(), `${command.name()} help`).to.include(option.long ?? option.flags);
      }
    }
  });

  it('names every scenario and bug switch the tool knows', async () => {
    expect([...HELP_SCENARIO_NAMES]).to.deep.equal([...SCENARIO_NAMES]);
    const run = (await cli('run', '--help')).out.replace(/\s+/g, ' ');
    for (const s of SCENARIO_NAMES) expect(run).to.include(s);
    for (const b of BUG_NAMES) expect(run).to.include(b);
  });

  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await cli(flag);
      expect(r.code).to.equal(0);
      expect(r.out).to.equal(`${pkg.version}\n`);
    }
  });
});

describe('dedup-verify usage errors', () => {
  /** Exactly one line on stderr, nothing on stdout, exit 2, naming the help to read. */
  function expectOneLine(r: { code: number; out: string; err: string }, help: string, pattern: RegExp): void {
    expect(r.code, r.err).to.equal(2);
    expect(r.out).to.equal('');
    expect(r.err.endsWith('\n'), JSON.stringify(r.err)).to.equal(true);
    expect(r.err.trimEnd().split('\n'), r.err).to.have.length(1);
    expect(r.err).to.match(pattern);
    expect(r.err).to.include(`(see \`${help} --help\`)`);
  }

  it('an unknown command', async () => {
    expectOneLine(await cli('frobnicate'), 'dedup-verify', /^error: unknown command 'frobnicate'/);
  });

  it('a misspelt command suggests the right one on the same line', async () => {
    const r = await cli('doctr');
    expectOneLine(r, 'dedup-verify', /unknown command 'doctr'.*Did you mean doctor\?/);
  });

  for (const name of Object.keys(CONTRACT)) {
    it(`an unknown flag of ${name}`, async () => {
      expectOneLine(await cli(name, '--no-such-flag'), `dedup-verify ${name}`, /^error: unknown option '--no-such-flag'/);
    });
  }

  it('a missing argument and a bad number', async () => {
    expectOneLine(await cli('check'), 'dedup-verify check', /missing required argument 'history'/);
    expectOneLine(await cli('lint'), 'dedup-verify lint', /missing required argument 'path'/);
    expectOneLine(await cli('run', '--repeat', 'many'), 'dedup-verify run', /--repeat takes a whole number/);
    expectOneLine(await cli('serve-feed', '--port', 'http'), 'dedup-verify serve-feed', /--port takes a whole number/);
  });

  it('conflicting flags', async () => {
    expectOneLine(await cli('serve-feed', '--fixture', 'malformed', '--file', 'x.xml'), 'dedup-verify serve-feed', /cannot be used with/);
  });

  it('no command at all prints the help on stderr and exits 2', async () => {
    const r = await cli();
    expect(r.code).to.equal(2);
    expect(r.out).to.equal('');
    expect(r.err).to.match(/^Usage: dedup-verify /);
  });
});
