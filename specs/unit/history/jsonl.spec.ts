import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHistoryEvent, type HistoryEvent } from '../../../src/history/events.js';
import { HistoryError } from '../../../src/history/history-error.js';
import { HistoryRecorder, MAX_HISTORY_LINE_BYTES, MemoryHistory, parseHistoryText, readHistory } from '../../../src/history/jsonl.js';

async function collect(path: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  for await (const e of readHistory(path)) events.push(e);
  return events;
}

async function readError(path: string): Promise<HistoryError> {
  try {
    await collect(path);
  } catch (e) {
    expect(e).to.be.instanceOf(HistoryError);
    return e as HistoryError;
  }
  throw new Error(`reading ${path} did not fail`);
}

const EVENTS: HistoryEvent[] = [
  { type: 'config', windowMs: 172800000, intervalMs: 86400000, allowedDuplicates: 0 },
  { type: 'published', t: 1, item: 'https://e/a', publishedAt: 100, title: 'A' },
  { type: 'published', t: 1, item: '', publishedAt: 0, title: 'no link, bad date' },
  { type: 'run-started', t: 2, run: 1, deviceTime: 2 },
  { type: 'fetched', t: 3, run: 1, items: ['https://e/a', ''], status: 200 },
  { type: 'notified', t: 4, run: 1, item: 'https://e/a', status: 'post', device: 'emulator-5554', evidence: ['I notification_enqueue: [...]'] },
  { type: 'notified', t: 4, run: 1, item: 'https://e/a', status: 'update' },
  { type: 'stored', t: 5, run: 1, item: 'https://e/a' },
  { type: 'shed', t: 5, item: 'https://e/b', run: 1 },
  { type: 'shed', t: 5, item: 'https://e/c' },
  { type: 'run-finished', t: 6, run: 1, outcome: 'killed' },
  { type: 'forgotten', t: 7, items: 'all' },
  { type: 'forgotten', t: 8, items: ['https://e/a'] },
];

describe('history: JSON Lines', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dv-history-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('parseHistoryEvent', () => {
    it('accepts every event type of docs/design.md §5 and keeps extra fields', () => {
      for (const e of EVENTS) expect(parseHistoryEvent(e)).to.deep.equal({ event: e });
      const extra = { type: 'stored', t: 1, run: 1, item: 'x', row: 7 };
      expect(parseHistoryEvent(extra)).to.deep.equal({ event: extra });
    });

    it('names the field, the value found and what is expected', () => {
      const problems: [unknown, string][] = [
        [[1], 'an event must be a JSON object, got [1]'],
        [{ type: 'posted' }, '"type" must be one of config, published, run-started, fetched, notified, stored, run-finished, forgotten, shed, request, effect, rows, schedule, schema, action, aborted, unparsed, system-summary, not-an-item, got "posted"'],
        [{ type: 'notified', t: 1, run: 1, item: 'x', status: 'posted' }, '"notified" event: "status" must be "post" or "update", got "posted"'],
        [{ type: 'notified', t: 1, run: '1', item: 'x', status: 'post' }, '"notified" event: "run" must be a whole number >= 0, got "1"'],
        [{ type: 'stored', run: 1, item: 'x' }, '"stored" event: "t" must be a number (device epoch ms), got nothing'],
        [{ type: 'published', t: 1, item: null, publishedAt: 0, title: '' }, '"published" event: "item" must be a string (the item key, "" when the entry has no link), got null'],
        [{ type: 'published', t: 1, item: 'x', publishedAt: 'yesterday', title: '' }, '"published" event: "publishedAt" must be a number of ms (0 when the date did not parse), got "yesterday"'],
        [{ type: 'fetched', t: 1, run: 1, items: 'x', status: 200 }, '"fetched" event: "items" must be an array of item keys, got "x"'],
        [{ type: 'run-finished', t: 1, run: 1, outcome: 'crashed' }, '"run-finished" event: "outcome" must be one of success, retry, failure, killed, refused, finished, got "crashed"'],
        [{ type: 'forgotten', t: 1, items: 'some' }, '"forgotten" event: "items" must be "all" or an array of item keys, got "some"'],
        [{ type: 'config', windowMs: 0 }, '"config" event: "windowMs" must be a positive number of ms, got 0'],
        [{ type: 'shed', t: 1, item: 'x', evidence: 'line' }, '"shed" event: "evidence" must be an array of strings, got "line"'],
      ];
      for (const [value, problem] of problems) expect(parseHistoryEvent(value)).to.deep.equal({ problem });
    });
  });

  describe('HistoryRecorder and readHistory', () => {
    it('writes events one per line and streams them back', async () => {
      const path = join(dir, 'history.jsonl');
      const recorder = await HistoryRecorder.open(path);
      for (const e of EVENTS) recorder.record(e);
      await recorder.flush();
      expect((await readFile(path, 'utf8')).split('\n')).to.have.length(EVENTS.length + 1);
      await recorder.close();
      expect(recorder.count).to.equal(EVENTS.length);
      expect(await collect(path)).to.deep.equal(EVENTS);
    });

    it('appends to an existing history with append: true', async () => {
      const path = join(dir, 'history.jsonl');
      const first = await HistoryRecorder.open(path);
      first.record(EVENTS[1]!);
      await first.close();
      const second = await HistoryRecorder.open(path, { append: true });
      second.record(EVENTS[3]!);
      await second.close();
      expect(await collect(path)).to.deep.equal([EVENTS[1], EVENTS[3]]);
    });

    it('refuses to record an invalid event, and records a later config event as a new segment', async () => {
      const path = join(dir, 'segments.jsonl');
      const recorder = await HistoryRecorder.open(path);
      expect(() => recorder.record({ type: 'stored', t: 1, run: -1, item: 'x' })).to.throw(HistoryError, '"run" must be a whole number >= 0, got -1');
      recorder.record(EVENTS[1]!);
      recorder.record(EVENTS[0]!);
      await recorder.close();
      expect(await collect(path)).to.deep.equal([EVENTS[1], EVENTS[0]]);
    });

    it('says which directory is missing when the history cannot be created', async () => {
      const path = join(dir, 'no', 'such', 'dir', 'h.jsonl');
      let error: unknown;
      try {
        await HistoryRecorder.open(path);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(HistoryError);
      expect((error as Error).message).to.equal(`cannot write history ${path}: no such file; check that the directory exists and is writable`);
    });

    it('keeps events in memory with MemoryHistory, with the same rules', async () => {
      const memory = new MemoryHistory();
      memory.record(EVENTS[1]!);
      await memory.flush();
      await memory.close();
      expect(memory.events).to.deep.equal([EVENTS[1]]);
      expect(() => memory.record({ type: 'stored', t: 1, run: -1, item: 'x' })).to.throw(HistoryError);
    });

    it('skips blank lines and accepts CRLF line ends', async () => {
      const path = join(dir, 'crlf.jsonl');
      await writeFile(path, `\r\n${JSON.stringify(EVENTS[0])}\r\n\r\n   \r\n${JSON.stringify(EVENTS[1])}\r\n`);
      expect(await collect(path)).to.deep.equal([EVENTS[0], EVENTS[1]]);
    });

    it('streams a large history without holding it', async () => {
      const path = join(dir, 'big.jsonl');
      const recorder = await HistoryRecorder.open(path);
      for (let i = 0; i < 20_000; i++) {
        if (!recorder.record({ type: 'published', t: i, item: `https://e/${i}`, publishedAt: i + 1, title: `item ${i}` })) await recorder.flush();
      }
      await recorder.close();
      let n = 0;
      let last: HistoryEvent | undefined;
      for await (const e of readHistory(path)) {
        n += 1;
        last = e;
      }
      expect(n).to.equal(20_000);
      expect(last).to.deep.equal({ type: 'published', t: 19_999, item: 'https://e/19999', publishedAt: 20_000, title: 'item 19999' });
    });
  });

  describe('errors name the file, the line and the fix', () => {
    it('for a line that is not JSON', async () => {
      const path = join(dir, 'bad.jsonl');
      await writeFile(path, `${JSON.stringify(EVENTS[1])}\n\n{"type":"stored",\n`);
      const e = await readError(path);
      expect(e.line).to.equal(3);
      expect(e.code).to.equal('DV_HISTORY');
      expect(e.message).to.match(new RegExp(`^history ${path} line 3: not valid JSON \\(.+\\); each line must be one JSON event as in docs/design.md §5, e\\.g\\. \\{"type":"notified",`));
    });

    it('for an event with a bad field, quoting a valid line of that type', async () => {
      const path = join(dir, 'bad.jsonl');
      await writeFile(path, `${JSON.stringify(EVENTS[1])}\n{"type":"run-finished","t":1,"run":1,"outcome":"ok"}\n`);
      const e = await readError(path);
      expect(e.message).to.equal(
        `history ${path} line 2: "run-finished" event: "outcome" must be one of success, retry, failure, killed, refused, finished, got "ok"; ` +
          'fix the line, e.g. {"type":"run-finished","t":1717000000400,"run":1,"outcome":"success"}',
      );
    });

    it('for a missing file and for a directory', async () => {
      const missing = join(dir, 'nope.jsonl');
      expect((await readError(missing)).message).to.equal(`cannot read history ${missing}: no such file; check the path (run --out DIR writes DIR/history.jsonl)`);
      expect((await readError(dir)).message).to.equal(`cannot read history ${dir}: it is a directory; pass the history file inside it, e.g. ${dir}/history.jsonl`);
    });

    it('parseHistoryText reports the same line numbers', () => {
      expect(() => parseHistoryText(`${JSON.stringify(EVENTS[1])}\n{}`, 'mem')).to.throw(HistoryError, /^history mem line 2: "type" must be one of/);
      expect(parseHistoryText(`${JSON.stringify(EVENTS[1])}\n`, 'mem')).to.deep.equal([EVENTS[1]]);
    });
  });
});

describe('history limits', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dv-history-limits-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const config = '{"type":"config","windowMs":172800000}';

  it('refuses a line over the limit with its number, its length and the limit, without building it', async () => {
    const path = join(dir, 'long.jsonl');
    // 200 000 bytes spread over several 64 KiB reads, then a valid line after it.
    const long = `{"type":"published","t":1,"item":"https://e/a","publishedAt":1,"title":"${'x'.repeat(200_000 - 74)}"}`;
    expect(Buffer.byteLength(long)).to.equal(200_000);
    await writeFile(path, `${config}\n${long}\n${config}\n`);
    let error: unknown;
    try {
      for await (const e of readHistory(path, { maxLineBytes: 100_000 })) void e;
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(HistoryError);
    const e = error as HistoryError;
    expect(e.line).to.equal(2);
    expect(e.message).to.equal(`history ${path} line 2 is 200000 bytes (0.2 MiB), over the limit of 100000 bytes (0.1 MiB); a history line is one event; split or remove the line`);
    // The same line under a higher limit is read.
    const events: HistoryEvent[] = [];
    for await (const ev of readHistory(path, { maxLineBytes: 200_000 })) events.push(ev);
    expect(events).to.have.length(3);
  });

  it('refuses a last line over the limit that has no line end', async () => {
    const path = join(dir, 'tail.jsonl');
    await writeFile(path, `${config}\n${'y'.repeat(70_000)}`);
    let error: unknown;
    try {
      for await (const e of readHistory(path, { maxLineBytes: 65_536 })) void e;
    } catch (e) {
      error = e;
    }
    expect((error as HistoryError).message).to.contain('line 2 is 70000 bytes');
  });

  it('has a default limit of 64 MiB', () => {
    expect(MAX_HISTORY_LINE_BYTES).to.equal(64 * 1024 * 1024);
  });

  it('refuses invalid UTF-8, naming the line and the byte, instead of reading U+FFFD', async () => {
    const path = join(dir, 'latin1.jsonl');
    const bad = Buffer.concat([
      Buffer.from(`${config}\n{"type":"published","t":1,"item":"https://e/a","publishedAt":1,"title":"A`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}\n'),
    ]);
    await writeFile(path, bad);
    const e = await readError(path);
    expect(e.line).to.equal(2);
    expect(e.message).to.equal(`history ${path} line 2 is not valid UTF-8 (byte 74 of the line, 0xff); save the history as UTF-8`);
  });

  it('refuses an overlong encoding and a lone surrogate, and reads multi-byte text split across reads', async () => {
    for (const bytes of [[0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const path = join(dir, 'bad.jsonl');
      await writeFile(path, Buffer.concat([Buffer.from(`${config}\n{"type":"published","t":1,"item":"https://e/a","publishedAt":1,"title":"`), Buffer.from(bytes), Buffer.from('"}\n')]));
      expect((await readError(path)).message).to.contain('line 2 is not valid UTF-8');
    }
    const path = join(dir, 'ok.jsonl');
    // "é" (2 bytes) and "😀" (4 bytes) repeated so that some fall across the 64 KiB read boundary.
    const title = 'é😀'.repeat(30_000);
    await writeFile(path, `\ufeff${config}\r\n{"type":"published","t":1,"item":"https://e/a","publishedAt":1,"title":"${title}"}\r\n`);
    const events = await collect(path);
    expect(events).to.have.length(2);
    expect((events[1] as { title: string }).title).to.equal(title);
  });
});
