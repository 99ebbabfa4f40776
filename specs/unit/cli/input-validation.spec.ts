/**
 * Bad input is one line on stderr that names the fix, exit 2 (docs/design.md §9), and is caught
 * before anything else happens: flag values and $ANDROID_ADB_SERVER_PORT before the config is
 * read, output paths before a device is inspected, bug names before a virtual device starts.
 * Runs main() in process; every case here ends before adb is reached. A history saved with a
 * UTF-8 byte order mark is read like one without.
 */
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, type CliIo } from '../../../src/cli/main.js';
import { runVirtualDevice } from '../../../src/cli/commands/virtual-device.js';
import { describeError } from '../../../src/errors.js';
import { parseHistoryText } from '../../../src/history/jsonl.js';
import { BUG_NAMES } from '../../../src/virtual-device/apps/feed-notifier/bugs.js';

const ROOT = new URL('../../../', import.meta.url);

interface Result {
  code: number;
  out: string;
  err: string;
}

/** main() with `env` set for the call, in `cwd` (default: the project root). */
async function cli(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<Result> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t) };
  const env = options.env ?? {};
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const cwd = process.cwd();
  Object.assign(process.env, env);
  if (options.cwd !== undefined) process.chdir(options.cwd);
  try {
    return { code: await main(['node', 'dedup-verify', ...args], io), out, err };
  } finally {
    process.chdir(cwd);
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Exactly one line on stderr matching `pattern`, nothing on stdout, exit 2, no stack. */
function expectOneLine(r: Result, pattern: RegExp): void {
  expect(r.code, r.err).to.equal(2);
  expect(r.out).to.equal('');
  expect(r.err.endsWith('\n'), JSON.stringify(r.err)).to.equal(true);
  expect(r.err.trimEnd().split('\n'), r.err).to.have.length(1);
  expect(r.err.trimEnd()).to.match(pattern);
  expect(r.err).to.not.match(/\n\s+at |RangeError|EEXIST|ENOENT/);
}

describe('bad input: one line naming the fix, exit 2, before anything starts', () => {
  let work: string;
  /** A directory without dedup-verify.config.json, as a user's project before `init`. */
  let empty: string;
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dv-input-spec-'));
    empty = join(work, 'empty');
    await mkdir(empty);
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('--adb-port out of range names the flag and the range, on every command that has it', async () => {
    for (const command of ['run', 'doctor', 'init', 'restore']) {
      for (const port of ['99999', '0', '65536']) {
        const r = await cli([command, '--adb-port', port, ...(command === 'doctor' ? ['--json'] : [])], { env: { XDG_STATE_HOME: work } });
        expectOneLine(r, new RegExp(`^error: .*--adb-port takes a TCP port from 1 to 65535 \\(got ${port}\\)\\. \\(see \`dedup-verify ${command} --help\`\\)$`, 'm'));
      }
    }
    for (const [command, port] of [['virtual-device', '70000'], ['serve-feed', '65536']] as const) {
      expectOneLine(await cli([command, '--port', port]), new RegExp(`--port takes a TCP port from 0 to 65535 \\(0: a free port\\) \\(got ${port}\\)`));
    }
  });

  it('virtual-device --physical with another --api is refused (the phone is one Android 14 build), and starts nothing', async () => {
    expectOneLine(
      await cli(['virtual-device', '--physical', '--api', '36']),
      /^error: --physical answers as a Pixel 8 on Android 14 \(API 34\); leave out --api 36, or leave out --physical for an emulator of API 36\.$/m,
    );
  });

  it('a bad --shard is reported before the missing config', async () => {
    for (const shard of ['3/2', 'x', '0/2']) {
      expectOneLine(await cli(['run', '--shard', shard], { cwd: empty }), new RegExp(`^error: --shard takes I/N with 1 ≤ I ≤ N, e\\.g\\. --shard 1/4 \\(got "${shard}"\\)\\.$`));
    }
    // The same without a shard: the config is what is missing.
    expectOneLine(await cli(['run'], { cwd: empty }), /^error: No dedup-verify\.config\.json in /);
  });

  it('a shard that selects no scenario says so and lists the selection, before the config is read', async () => {
    const r = await cli(['run', '--shard', '2/3', '--scenario', 'back-to-back', '--config', join(work, 'no-such-config.json')]);
    expectOneLine(r, /^error: --shard 2\/3 selects no scenario: the selection has 1 \(back-to-back\) and shard I\/N takes its scenarios I, I\+N, I\+2N, …; use --shard I\/N with N ≤ 1, or select more scenarios\.$/);
    // A shard with something in it goes on to the config.
    expectOneLine(await cli(['run', '--shard', '1/3', '--scenario', 'back-to-back', '--config', join(work, 'no-such-config.json')]), /^error: config .*no-such-config\.json: cannot read it/);
  });

  it('an unknown bug is refused before adb is reached (here: no adb server on the port given)', async () => {
    const r = await cli(['run', '--virtual', '--bug', 'nope', '--adb-port', '1']);
    expectOneLine(r, new RegExp(`^error: Unknown bug "nope"\\. Bugs: ${BUG_NAMES.join(', ')}\\.$`));
  });

  it('virtual-device --bug with a misspelt name is refused like run --virtual --bug, and starts nothing', async () => {
    const fromRun = await cli(['run', '--virtual', '--bug', 'no-db-checks', '--adb-port', '1']);
    expectOneLine(fromRun, /Unknown bug "no-db-checks"/);
    const stopped = new AbortController();
    stopped.abort();
    let printed = '';
    const io: CliIo = { stdout: (t) => (printed += t), stderr: (t) => (printed += t) };
    let error: unknown;
    try {
      await runVirtualDevice({ port: 0, count: 1, api: 34, bug: ['no-db-checks'] }, io, { signal: stopped.signal });
    } catch (e) {
      error = e;
    }
    expect(error, 'virtual-device accepted the name').to.not.equal(undefined);
    expect(`error: ${describeError(error)}\n`).to.equal(fromRun.err);
    expect(printed, 'no device was started').to.equal('');
  });

  it('a malformed ANDROID_ADB_SERVER_PORT is refused with one line naming the variable, not replaced by 5037', async () => {
    const existing = join(work, 'existing.json');
    await writeFile(existing, '{}');
    for (const value of ['abc', '99999', '0', '-1', '5037x']) {
      const env = { ANDROID_ADB_SERVER_PORT: value };
      const pattern = new RegExp(`^error: ANDROID_ADB_SERVER_PORT is "${value}", not a TCP port: set it to the port of your adb server \\(1 to 65535\\), unset it for 5037, or pass --adb-port P\\.$`);
      expectOneLine(await cli(['run', '--config', join(work, 'no-such-config.json')], { env }), pattern);
      expectOneLine(await cli(['init', '--out', existing], { env }), pattern);
    }
    // With --adb-port the variable is not used, so it is not in the way.
    expectOneLine(await cli(['run', '--config', join(work, 'no-such-config.json'), '--adb-port', '5555'], { env: { ANDROID_ADB_SERVER_PORT: 'abc' } }), /^error: config .*no-such-config\.json: cannot read it/);
  });

  it('run --out naming a regular file is one line naming --out, before any device', async () => {
    const file = join(work, 'afile');
    await writeFile(file, 'mine');
    expectOneLine(await cli(['run', '--virtual', '--out', file, '--adb-port', '1']), new RegExp(`^error: --out ${file} is a file, not a directory: pass a directory \\(it is created when missing\\)`));
    expectOneLine(await cli(['run', '--virtual', '--out', join(file, 'sub'), '--adb-port', '1']), /^error: --out .*afile\/sub: cannot use it \(a part of the path is a file\); pass a directory you can write to\.$/);
    expect(await readFile(file, 'utf8')).to.equal('mine');
  });

  it('init --out in a missing directory, or naming a directory, is one line before adb is reached', async () => {
    const missing = join(work, 'missing', 'x.json');
    expectOneLine(await cli(['init', '--out', missing, '--adb-port', '1']), new RegExp(`^error: --out ${missing}: the directory ${join(work, 'missing')} does not exist; create it first`));
    expectOneLine(await cli(['init', '--out', 'missing/x.json', '--adb-port', '1'], { cwd: work }), /^error: --out missing\/x\.json: the directory .*\/missing does not exist/);
    expectOneLine(await cli(['init', '--out', work, '--force', '--adb-port', '1']), new RegExp(`^error: --out ${work} is a directory: pass a file path, e\\.g\\. --out ${work}/dedup-verify\\.config\\.json\\.$`));
  });
});

describe('check: a history saved with a UTF-8 byte order mark', () => {
  let work: string;
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dv-bom-spec-'));
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('is read like the same file without it', async () => {
    const text = await readFile(new URL('fixtures/histories/passing.jsonl', ROOT), 'utf8');
    const plain = join(work, 'plain.jsonl');
    const bom = join(work, 'bom.jsonl');
    await writeFile(plain, text);
    await writeFile(bom, `\uFEFF${text}`);
    const expected = await cli(['check', plain, '--json']);
    expect(expected.code, expected.err).to.equal(0);
    const r = await cli(['check', bom, '--json']);
    expect(r.err).to.equal('');
    expect(r.code).to.equal(0);
    expect(JSON.parse(r.out)).to.deep.equal(JSON.parse(expected.out));
    expect(parseHistoryText(`\uFEFF${text}`)).to.deep.equal(parseHistoryText(text));
  });

  it('only at the start of the file: elsewhere it is still a malformed line', async () => {
    const text = await readFile(new URL('fixtures/histories/passing.jsonl', ROOT), 'utf8');
    const lines = text.split('\n');
    lines[1] = `\uFEFF${lines[1] ?? ''}`;
    const bad = join(work, 'bad.jsonl');
    await writeFile(bad, lines.join('\n'));
    const r = await cli(['check', bad]);
    expect(r.code).to.equal(2);
    expect(r.err).to.match(/line 2: not valid JSON/);
  });
});
