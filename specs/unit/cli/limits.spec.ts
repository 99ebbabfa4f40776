/**
 * Limits as one-line errors, exit 2 (docs/cli.md "Limits"): a capture file that is not a regular
 * file, too large or not UTF-8; invalid UTF-8 and over-long lines in a history given to `check`;
 * and control characters from a history or a capture shown escaped on the terminal. Runs main()
 * in process with real files, FIFOs and sockets.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCaptureDir } from '../../../src/android/capture/read-capture.js';
import { main, type CliIo } from '../../../src/cli/main.js';
import { escapeControls } from '../../../src/text.js';

async function cli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t) };
  return { code: await main(['node', 'dedup-verify', ...args], io), out, err };
}

/** The raw control characters a terminal obeys: C0 but TAB and LF, DEL, C1. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const LOGCAT = '12-01 10:00:00.000  1508  1508 I WM-WorkerWrapper: Worker result SUCCESS for Work [ id=1 ]\n';

describe('limits and control characters on the command line', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dv-limits-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('doctor --capture', () => {
    it('refuses a FIFO named device.json at once: one line, exit 2', async () => {
      execFileSync('mkfifo', [join(dir, 'device.json')]);
      await writeFile(join(dir, 'logcat-main.txt'), LOGCAT);
      const r = await cli(['doctor', '--capture', dir]);
      expect(r.code).to.equal(2);
      expect(r.err).to.equal(`error: capture file ${join(dir, 'device.json')} is a FIFO (named pipe), not a regular file; a capture directory holds only the files \`dedup-verify capture\` wrote: copy the output into a regular file or remove it\n`);
    });

    it('refuses a FIFO, a socket, a symbolic link to a device and a directory named device.json', async () => {
      const cases: [string, () => unknown, string][] = [
        ['logcat-events.txt', () => execFileSync('mkfifo', [join(dir, 'logcat-events.txt')]), 'a FIFO (named pipe)'],
        ['zero.txt', () => symlink('/dev/zero', join(dir, 'zero.txt')), 'a symbolic link'],
        ['device.json', () => mkdir(join(dir, 'device.json')), 'a directory'],
      ];
      for (const [name, make, what] of cases) {
        await rm(dir, { recursive: true, force: true });
        await mkdir(dir);
        await writeFile(join(dir, 'logcat-main.txt'), LOGCAT);
        await make();
        const r = await cli(['doctor', '--capture', dir]);
        expect([r.code, r.err.split('\n').length], name).to.deep.equal([2, 2]);
        expect(r.err, name).to.contain(`capture file ${join(dir, name)} is ${what}, not a regular file`);
      }
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir);
      await writeFile(join(dir, 'logcat-main.txt'), LOGCAT);
      const server: Server = createServer();
      await new Promise<void>((resolve) => server.listen(join(dir, 'sock.txt'), resolve));
      try {
        const r = await cli(['doctor', '--capture', dir]);
        expect(r.code).to.equal(2);
        expect(r.err).to.contain(`capture file ${join(dir, 'sock.txt')} is a socket, not a regular file`);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('refuses a file over the size limit, with both figures', async () => {
      await writeFile(join(dir, 'logcat-main.txt'), LOGCAT.repeat(100));
      let error: unknown;
      try {
        await readCaptureDir(dir, { maxFileBytes: 1000 });
      } catch (e) {
        error = e;
      }
      expect((error as Error).message).to.contain(`is ${LOGCAT.length * 100} bytes, over the limit of 1000 bytes`);
      expect((await readCaptureDir(dir, { maxFileBytes: LOGCAT.length * 100 })).files).to.have.length(1);
    });

    it('refuses invalid UTF-8, naming the file and the line', async () => {
      await writeFile(join(dir, 'logcat-main.txt'), Buffer.concat([Buffer.from(LOGCAT + LOGCAT), Buffer.from([0x41, 0xc3, 0x28, 0x0a])]));
      const r = await cli(['doctor', '--capture', dir]);
      expect(r.code).to.equal(2);
      expect(r.err).to.equal(`error: capture file ${join(dir, 'logcat-main.txt')} line 3 is not valid UTF-8 (byte 3 of the line, 0x28); save the file as UTF-8\n`);
    });

    it('shows escape sequences from capture lines escaped', async () => {
      await writeFile(join(dir, 'logcat-main.txt'), `${LOGCAT}12-01 10:00:01.000 not a log line \u001b[2J\u001b]8;;http://x/\u0007click\u001b]8;;\u0007\u009b31m\r\n`);
      const r = await cli(['doctor', '--capture', dir]);
      expect(r.out).to.contain('\\u001b[2J\\u001b]8;;http://x/\\u0007click');
      expect(r.out).to.contain('\\u009b31m');
      expect(r.out).not.to.match(RAW_CONTROL);
    });
  });

  describe('check', () => {
    const config = '{"type":"config","windowMs":172800000}';

    it('shows ESC[2J, OSC 8 and BEL in a notification tag escaped, in the summary and in --json', async () => {
      const item = 'https://e/a\u001b[2J\u001b]8;;http://evil/\u0007x\u001b]8;;\u0007\u0007';
      const lines = [
        config,
        JSON.stringify({ type: 'run-started', t: 1, run: 1, deviceTime: 1 }),
        JSON.stringify({ type: 'fetched', t: 2, run: 1, items: [], status: 200 }),
        JSON.stringify({ type: 'notified', t: 3, run: 1, item, status: 'post' }),
        JSON.stringify({ type: 'run-finished', t: 4, run: 1, outcome: 'success' }),
      ];
      const path = join(dir, 'h.jsonl');
      await writeFile(path, `${lines.join('\n')}\n`);
      const human = await cli(['check', path]);
      expect(human.code).to.equal(1);
      expect(human.out).to.contain('https://e/a\\u001b[2J\\u001b]8;;http://evil/\\u0007x\\u001b]8;;\\u0007\\u0007');
      expect(human.out).not.to.match(RAW_CONTROL);
      const json = await cli(['check', path, '--json']);
      expect(json.out).not.to.match(RAW_CONTROL);
      const parsed = JSON.parse(json.out) as { anomalies: { item: string }[] };
      expect(parsed.anomalies.map((a) => a.item)).to.include(item);
    });

    it('gives exit 2 and one line for invalid UTF-8', async () => {
      const path = join(dir, 'u.jsonl');
      await writeFile(path, Buffer.concat([Buffer.from(`${config}\n{"type":"published","t":1,"item":"a","publishedAt":1,"title":"`), Buffer.from([0xff]), Buffer.from('"}\n')]));
      const r = await cli(['check', path]);
      expect(r.code).to.equal(2);
      expect(r.err).to.equal(`error: history ${path} line 2 is not valid UTF-8 (byte 63 of the line, 0xff); save the history as UTF-8\n`);
    });

    it('quotes a file name with a line end and an escape on one line', async () => {
      const path = join(dir, 'a\nb\u001b[31m.jsonl');
      const r = await cli(['check', path]);
      expect(r.code).to.equal(2);
      expect(r.err.split('\n')).to.have.length(2);
      expect(r.err).to.contain('a\\u000ab\\u001b[31m.jsonl');
    });
  });

  it('escapeControls keeps text, TAB and LF, and escapes C0, DEL, C1 and bidi overrides', () => {
    expect(escapeControls('ok é 😀\tx\n')).to.equal('ok é 😀\tx\n');
    expect(escapeControls('\u0000\u0007\r\u001b\u007f\u0085\u009b\u202e\u2066')).to.equal('\\u0000\\u0007\\u000d\\u001b\\u007f\\u0085\\u009b\\u202e\\u2066');
    expect(escapeControls('a\nb', { oneLine: true })).to.equal('a\\u000ab');
    const once = escapeControls('\u001b[2J');
    expect(escapeControls(once)).to.equal(once);
  });
});
