/**
 * The fixture server over real HTTP (node:http client, real sockets on 127.0.0.1), and the
 * `serve-feed` command in-process and as a real process. Every wait is an event with a deadline.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/io.js';
import { runServeFeed } from '../../src/cli/commands/serve-feed.js';
import { buildFreshItems, buildItem, itemKey, publishedAt, withEmptyLink, withMissingLink, withUnparseableDate } from '../../src/feed/feed-items.js';
import { startFixtureServer } from '../../src/feed/fixture-server.js';
import type { FixtureServer, JournalEntry } from '../../src/feed/fixture-server.js';
import { parseFeed, parseFeedKeys } from '../../src/feed/parse-feed.js';
import { renderRss, DEFAULT_RSS_CHANNEL } from '../../src/feed/render-feed.js';

const NOW = 1_796_045_547_000; // 2026-11-30T13:32:27Z
const DEADLINE_MS = 5_000;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function postReceipt(server: FixtureServer, link: string, key?: string): Promise<Reply> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (key !== undefined) headers['Idempotency-Key'] = key;
  return send(`${server.url}/receipts`, { method: 'POST', headers, body: JSON.stringify({ link, title: `T ${link}` }) });
}

/** Resolves with the connection error code, or 'connected'. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    s.once('connect', () => {
      s.destroy();
      resolve('connected');
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

/** Waits for `text` to appear in what `io` printed (event driven, with a deadline). */
function capturingIo(): { io: CliIo; out: () => string; err: () => string; waitFor: (re: RegExp) => Promise<RegExpMatchArray> } {
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const io: CliIo = {
    stdout: (t) => {
      out += t;
      for (const w of [...waiters]) w();
    },
    stderr: (t) => {
      err += t;
    },
  };
  const waitFor = (re: RegExp): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${String(re)} in stdout within ${DEADLINE_MS} ms; stdout: ${out}; stderr: ${err}`));
      }, DEADLINE_MS);
      function check(): void {
        const m = re.exec(out);
        if (m === null) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(m);
      }
      waiters.add(check);
      check();
    });
  return { io, out: () => out, err: () => err, waitFor };
}

/**
 * Runs the CLI in a child process (the way a user does: ESM, one module graph) and collects
 * its exit code and output, with a deadline.
 */
function spawnCli(args: readonly string[]) {
  const script = `const { main } = await import('./src/cli/main.ts'); process.exitCode = await main(['node', 'dedup-verify', ...${JSON.stringify(args)}]);`;
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
}

function runCli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCli(args);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dedup-verify ${args.join(' ')} did not exit within 10 s; stdout: ${stdout}; stderr: ${stderr}`));
    }, 10_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('fixture server (real HTTP on 127.0.0.1)', function () {
  this.timeout(15_000);
  let server: FixtureServer;
  let now: number;

  beforeEach(async () => {
    now = NOW;
    server = await startFixtureServer({ port: 0, clock: () => now });
  });
  afterEach(async () => {
    await server.close();
  });

  describe('GET /feed.xml', () => {
    it('serves the feed built from items and journals the keys served, the time and the headers', async () => {
      const items = [
        ...buildFreshItems(2),
        withUnparseableDate(buildItem('https://example.org/bad', 'Bad', publishedAt(0))),
        withEmptyLink(buildItem('x', 'Empty', publishedAt(NOW - 1000))),
        withMissingLink(buildItem('y', 'Missing', publishedAt(NOW - 2000))),
      ];
      server.setFeed({ format: 'rss', items });
      now = NOW + 60_000;
      const reply = await send(`${server.url}/feed.xml`, { headers: { 'User-Agent': 'okhttp/4.12.0', 'X-Trace': 'Abc' } });
      expect(reply.status).to.equal(200);
      expect(reply.headers['content-type']).to.equal('application/rss+xml; charset=utf-8');
      const parsed = parseFeed(reply.body);
      expect(parsed.items.map((i) => i.key)).to.deep.equal(items.map(itemKey));
      // Relative dates were resolved against the server clock when the feed was set.
      expect(parsed.items.map((i) => i.publishedAt)).to.deep.equal([NOW - 3_600_000, NOW - 7_200_000, 0, NOW - 1000, NOW - 2000]);
      const [entry] = server.journal();
      expect(entry).to.deep.include({ seq: 1, t: NOW + 60_000, method: 'GET', path: '/feed.xml', status: 200, body: '' });
      expect(entry?.itemsServed).to.deep.equal(['https://example.org/fresh/1', 'https://example.org/fresh/2', 'https://example.org/bad', '', '']);
      expect(entry?.headers).to.deep.include({ 'user-agent': 'okhttp/4.12.0', 'x-trace': 'Abc', host: `127.0.0.1:${server.port}` });
      expect(entry?.durationMs).to.be.a('number').and.at.least(0);
      expect(entry).to.not.have.any.keys('fault', 'held', 'dropped', 'clientClosed');
    });

    it('serves an empty RSS channel before any feed is set', async () => {
      const reply = await send(`${server.url}/feed.xml`);
      expect(reply.status).to.equal(200);
      expect(parseFeed(reply.body)).to.deep.equal({ format: 'rss', items: [] });
      expect(server.journal()[0]?.itemsServed).to.deep.equal([]);
    });

    it('serves raw XML verbatim and journals the keys read back from it, even from a document cut short', async () => {
      const xml = '<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://example.org/a"/></entry><entry><title>no link</title></entry><entry><link href="https://example.org/b"/>';
      server.setFeed({ xml });
      const reply = await send(`${server.url}/feed.xml`);
      expect(reply.body).to.equal(xml);
      expect(reply.headers['content-type']).to.equal('application/atom+xml; charset=utf-8');
      // The entry the document was cut in is kept, with the link it holds.
      expect(server.journal()[0]?.itemsServed).to.deep.equal(['https://example.org/a', '', 'https://example.org/b']);
    });

    it('re-reads a feed file on every request', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dv-fixture-server-'));
      try {
        const file = join(dir, 'feed.xml');
        await writeFile(file, renderRss(DEFAULT_RSS_CHANNEL, [buildItem('https://example.org/1', 'One', publishedAt(NOW))]));
        server.setFeed({ file });
        expect(parseFeedKeys((await send(`${server.url}/feed.xml`)).body)).to.deep.equal(['https://example.org/1']);
        await writeFile(file, renderRss(DEFAULT_RSS_CHANNEL, [buildItem('https://example.org/2', 'Two', publishedAt(NOW))]));
        expect(parseFeedKeys((await send(`${server.url}/feed.xml`)).body)).to.deep.equal(['https://example.org/2']);
        expect(server.journal().map((e) => e.itemsServed)).to.deep.equal([['https://example.org/1'], ['https://example.org/2']]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('journals the keys of a file feed as an XML reader sees them: CDATA holding </item>, a document cut short', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dv-fixture-server-'));
      try {
        const file = join(dir, 'feed.xml');
        const xml =
          '<?xml version="1.0"?><rss version="2.0"><channel>' +
          '<item><title>A</title><description><![CDATA[<p>ends with </item> here</p>]]></description><link>https://example.org/a</link></item>' +
          '<item><title>B</title><link>https://example.org/b</link><description><![CDATA[<p>cut sh';
        await writeFile(file, xml);
        server.setFeed({ file });
        const reply = await send(`${server.url}/feed.xml`);
        expect(reply.body).to.equal(xml);
        expect(reply.headers['content-type']).to.equal('application/rss+xml; charset=utf-8');
        expect(server.journal()[0]?.itemsServed).to.deep.equal(['https://example.org/a', 'https://example.org/b']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('faults', () => {
    it('consumes a status sequence in order, then serves normally', async () => {
      server.setFeed({ format: 'atom', items: buildFreshItems(1) });
      server.setFault('/feed.xml', { statuses: [503, 503, 200] });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await send(`${server.url}/feed.xml`)).status);
      expect(statuses).to.deep.equal([503, 503, 200, 200]);
      const journal = server.journal();
      expect(journal.map((e) => [e.status, e.fault ?? null])).to.deep.equal([
        [503, 'status:503'],
        [503, 'status:503'],
        [200, null],
        [200, null],
      ]);
      expect(journal.map((e) => e.itemsServed ?? null)).to.deep.equal([null, null, ['https://example.org/fresh/1'], ['https://example.org/fresh/1']]);
    });

    it('answers 429 with Retry-After until the faults are cleared', async () => {
      server.setFault('/feed.xml', { status: 429, retryAfterSec: 30 });
      const first = await send(`${server.url}/feed.xml`);
      const second = await send(`${server.url}/feed.xml`);
      expect([first.status, second.status]).to.deep.equal([429, 429]);
      expect(first.headers['retry-after']).to.equal('30');
      server.clearFaults();
      const third = await send(`${server.url}/feed.xml`);
      expect(third.status).to.equal(200);
      expect(third.headers['retry-after']).to.equal(undefined);
    });

    it('answers 401 on every request until cleared, only on its route', async () => {
      server.setFault('/feed.xml', { status: 401 });
      expect((await send(`${server.url}/feed.xml`)).status).to.equal(401);
      expect((await send(`${server.url}/feed.xml`)).status).to.equal(401);
      expect((await postReceipt(server, 'https://example.org/1', 'k')).status).to.equal(201);
      server.clearFaults('/feed.xml');
      expect((await send(`${server.url}/feed.xml`)).status).to.equal(200);
    });

    it('a status fault with times stops after that many requests, and a 503 stores no effect', async () => {
      server.setFault('/receipts', { status: 503, times: 2 });
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await postReceipt(server, 'https://example.org/1', 'op-1')).status);
      expect(statuses).to.deep.equal([503, 503, 201]);
      expect(server.effects()).to.have.length(1);
      expect(server.journal()[2]).to.deep.include({ replayed: false, receipt: 1 });
    });

    it('delays a response by delayMs', async () => {
      server.setFault('/feed.xml', { delayMs: 150 });
      const reply = await send(`${server.url}/feed.xml`);
      expect(reply.status).to.equal(200);
      const [entry] = server.journal();
      expect(entry?.fault).to.equal('delay:150');
      expect(entry?.durationMs).to.be.at.least(140);
    });

    it('holds requests until release(); waitForHeld resolves when they are held', async () => {
      server.setFault('/receipts', { hold: true });
      let settled = 0;
      const a = postReceipt(server, 'https://example.org/a', 'op-a').finally(() => (settled += 1));
      const b = postReceipt(server, 'https://example.org/b', 'op-b').finally(() => (settled += 1));
      const held = await server.waitForHeld(2, DEADLINE_MS);
      expect(held.map((h) => JSON.parse(h.body) as unknown)).to.have.deep.members([
        { link: 'https://example.org/a', title: 'T https://example.org/a' },
        { link: 'https://example.org/b', title: 'T https://example.org/b' },
      ]);
      expect(settled).to.equal(0);
      expect(server.effects()).to.deep.equal([]);
      expect(server.journal()).to.deep.equal([]);
      // The feed route is not held.
      expect((await send(`${server.url}/feed.xml`)).status).to.equal(200);

      expect(server.release()).to.equal(2);
      const replies = await Promise.all([a, b]);
      expect(replies.map((r) => r.status)).to.deep.equal([201, 201]);
      expect(server.effects().map((e) => e.key).sort()).to.deep.equal(['op-a', 'op-b']);
      const receipts = server.journal().filter((e) => e.path === '/receipts');
      expect(receipts.map((e) => [e.held, e.fault, e.status])).to.deep.equal([
        [true, 'hold', 201],
        [true, 'hold', 201],
      ]);
      // release() ended the hold: the next request goes through at once.
      expect((await postReceipt(server, 'https://example.org/c', 'op-c')).status).to.equal(201);
      expect(server.held()).to.deep.equal([]);
    });

    it('hold with passFirst lets the first requests through and holds the next one', async () => {
      server.setFault('/receipts', { hold: true, passFirst: 2 });
      expect((await postReceipt(server, 'https://example.org/1', 'op-1')).status).to.equal(201);
      expect((await postReceipt(server, 'https://example.org/2', 'op-2')).status).to.equal(201);
      const third = postReceipt(server, 'https://example.org/3', 'op-3');
      const [held] = await server.waitForHeld(1, DEADLINE_MS);
      expect(held).to.deep.include({ seq: 3, path: '/receipts', clientClosed: false });
      expect(server.effects().map((e) => e.key)).to.deep.equal(['op-1', 'op-2']);
      server.release();
      expect((await third).status).to.equal(201);
      expect(server.journal().map((e) => e.fault ?? null)).to.deep.equal([null, null, 'hold']);
      expect(() => server.setFault('/receipts', { hold: true, passFirst: -1 })).to.throw(/passFirst/);
    });

    it('a held request whose client went away is still processed on release and journaled as clientClosed', async () => {
      server.setFault('/receipts', { hold: true });
      const req = httpRequest(`${server.url}/receipts`, { method: 'POST', headers: { 'Idempotency-Key': 'op-k' }, agent: false });
      const aborted = new Promise<string>((resolve) => req.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message)));
      req.end(JSON.stringify({ link: 'https://example.org/k', title: 'K' }));
      await server.waitForHeld(1, DEADLINE_MS);
      req.destroy();
      expect(await aborted).to.equal('ECONNRESET');
      const [held] = await server.waitForHeld(1, DEADLINE_MS, (h) => h.clientClosed);
      expect(held).to.deep.include({ seq: 1, method: 'POST', path: '/receipts', clientClosed: true });
      server.release('/receipts');
      const entry = await server.waitForRequest((e) => e.path === '/receipts', DEADLINE_MS);
      expect(entry).to.deep.include({ status: 0, held: true, clientClosed: true, idempotencyKey: 'op-k', receipt: 1 });
      expect(server.effects().map((e) => e.key)).to.deep.equal(['op-k']);
    });

    it('waitForHeld rejects at its deadline with a DV_TIMEOUT error saying what it saw', async () => {
      server.setFault('/receipts', { hold: true });
      try {
        await server.waitForHeld(1, 50);
        expect.fail('waitForHeld should time out');
      } catch (e) {
        expect(e).to.have.property('code', 'DV_TIMEOUT');
        expect((e as Error).message).to.match(/Waited 50 ms for 1 held request\(s\) on the fixture server \(held now: 0/);
      }
    });

    it('dropAfterProcessing stores the effect, then the client sees a socket hang up; the retry with the same key replays', async () => {
      server.setFault('/receipts', { dropAfterProcessing: true, times: 1 });
      try {
        await postReceipt(server, 'https://example.org/1', 'op-1');
        expect.fail('the POST should fail with a dropped connection');
      } catch (e) {
        expect(e).to.have.property('code', 'ECONNRESET');
        expect((e as Error).message).to.equal('socket hang up');
      }
      await server.waitForRequest((e) => e.seq === 1, DEADLINE_MS);
      expect(server.effects()).to.deep.equal([{ receipt: 1, key: 'op-1', link: 'https://example.org/1', title: 'T https://example.org/1', t: NOW, seq: 1 }]);
      expect(server.journal()[0]).to.deep.include({ status: 0, dropped: true, fault: 'drop-after-processing', idempotencyKey: 'op-1', receipt: 1, replayed: false });
      expect(server.journal()[0]).to.not.have.property('clientClosed');

      const retry = await postReceipt(server, 'https://example.org/1', 'op-1');
      expect(retry.status).to.equal(201);
      expect(JSON.parse(retry.body)).to.deep.equal({ receipt: 1, replayed: true });
      expect(server.effects()).to.have.length(1);
    });

    it('dropAfterProcessing on the feed sends no byte and journals no items served', async () => {
      server.setFeed({ format: 'rss', items: buildFreshItems(2) });
      server.setFault('/feed.xml', { dropAfterProcessing: true });
      for (let i = 0; i < 2; i += 1) {
        await send(`${server.url}/feed.xml`).then(
          () => expect.fail('the GET should fail'),
          (e: unknown) => expect(e).to.have.property('code', 'ECONNRESET'),
        );
      }
      await server.waitForRequest((e) => e.seq === 2, DEADLINE_MS);
      expect(server.journal().map((e) => [e.status, e.dropped, e.itemsServed])).to.deep.equal([
        [0, true, undefined],
        [0, true, undefined],
      ]);
    });

    it('refuses faults on unknown routes and invalid plans', () => {
      expect(() => server.setFault('/nope', { status: 500 })).to.throw(/Unknown fixture-server route "\/nope"/);
      expect(() => server.setFault('/feed.xml', { statuses: [] })).to.throw(/statuses must be a non-empty list/);
      expect(() => server.setFault('/feed.xml', { status: 200 })).to.throw(/status must be an HTTP status from 300 to 599/);
      expect(() => server.setFault('/feed.xml', { delayMs: -1 })).to.throw(/delayMs/);
    });
  });

  describe('POST /receipts', () => {
    it('answers 201 and replays the first answer for a repeated key, with no new effect', async () => {
      const first = await postReceipt(server, 'https://example.org/1', 'op-1');
      now += 1000;
      const again = await postReceipt(server, 'https://example.org/1', 'op-1');
      const other = await postReceipt(server, 'https://example.org/2', 'op-2');
      expect([first.status, again.status, other.status]).to.deep.equal([201, 201, 201]);
      expect(first.headers['content-type']).to.equal('application/json');
      expect([first.body, again.body, other.body]).to.deep.equal([
        '{"receipt":1,"replayed":false}',
        '{"receipt":1,"replayed":true}',
        '{"receipt":2,"replayed":false}',
      ]);
      expect(server.effects().map((e) => [e.receipt, e.key, e.link, e.t])).to.deep.equal([
        [1, 'op-1', 'https://example.org/1', NOW],
        [2, 'op-2', 'https://example.org/2', NOW + 1000],
      ]);
      const journal = server.journal();
      expect(journal[1]?.headers['idempotency-key']).to.equal('op-1');
      expect(journal[1]?.body).to.equal('{"link":"https://example.org/1","title":"T https://example.org/1"}');
      expect(journal.map((e) => [e.idempotencyKey, e.receipt, e.replayed])).to.deep.equal([
        ['op-1', 1, false],
        ['op-1', 1, true],
        ['op-2', 2, false],
      ]);
    });

    it('a request without a key still creates an effect, every time, and the journal says the key was missing', async () => {
      await postReceipt(server, 'https://example.org/1');
      await postReceipt(server, 'https://example.org/1');
      expect(server.effects().map((e) => [e.receipt, e.key])).to.deep.equal([
        [1, null],
        [2, null],
      ]);
      expect(server.journal().map((e) => [e.idempotencyKey, e.idempotencyKeyMissing])).to.deep.equal([
        [null, true],
        [null, true],
      ]);
    });

    it('rejects a body that is not {link, title} with 400 and no effect', async () => {
      const reply = await send(`${server.url}/receipts`, { method: 'POST', headers: { 'Idempotency-Key': 'k' }, body: 'nope' });
      expect(reply.status).to.equal(400);
      expect((await send(`${server.url}/receipts`, { method: 'POST', headers: { 'Idempotency-Key': 'k' }, body: '{"link": 5}' })).status).to.equal(400);
      expect(server.effects()).to.deep.equal([]);
      // The key of a rejected request is not remembered.
      expect(JSON.parse((await postReceipt(server, 'https://example.org/1', 'k')).body)).to.deep.equal({ receipt: 1, replayed: false });
    });

    it('journals bodies truncated to 64 KiB', async () => {
      const link = `https://example.org/${'x'.repeat(100 * 1024)}`;
      expect((await postReceipt(server, link, 'big')).status).to.equal(201);
      const [entry] = server.journal();
      expect(Buffer.byteLength(entry?.body ?? '')).to.equal(64 * 1024);
      expect(entry?.bodyTruncated).to.equal(true);
      expect(server.effects()[0]?.link).to.equal(link);
    });

    it('takes the receipts path and the idempotency header name from the options', async () => {
      const custom = await startFixtureServer({ receiptsPath: '/api/v1/receipts', idempotencyHeader: 'X-Operation-Id' });
      try {
        const body = JSON.stringify({ link: 'l', title: 't' });
        const post = (): Promise<Reply> => send(`${custom.url}/api/v1/receipts`, { method: 'POST', headers: { 'x-operation-id': 'op' }, body });
        expect(JSON.parse((await post()).body)).to.deep.equal({ receipt: 1, replayed: false });
        expect(JSON.parse((await post()).body)).to.deep.equal({ receipt: 1, replayed: true });
        expect((await send(`${custom.url}/receipts`, { method: 'POST', body })).status).to.equal(404);
        expect(custom.effects().map((e) => e.key)).to.deep.equal(['op']);
      } finally {
        await custom.close();
      }
    });
  });

  describe('routes, journal and lifecycle', () => {
    it('answers 404 for unknown routes and 405 for the wrong method, and journals both', async () => {
      const missing = await send(`${server.url}/feed.rss?x=1`);
      expect(missing.status).to.equal(404);
      expect(missing.body).to.contain('routes: GET /feed.xml, POST /receipts');
      const wrong = await send(`${server.url}/receipts`);
      expect(wrong.status).to.equal(405);
      expect(wrong.headers['allow']).to.equal('POST');
      expect(server.journal().map((e) => [e.method, e.path, e.status])).to.deep.equal([
        ['GET', '/feed.rss?x=1', 404],
        ['GET', '/receipts', 405],
      ]);
    });

    it('binds only to 127.0.0.1', async () => {
      expect(server.url).to.equal(`http://127.0.0.1:${server.port}`);
      expect(await tryConnect('127.0.0.1', server.port)).to.equal('connected');
      // Linux routes all of 127.0.0.0/8 to lo: a wildcard or 127/8 bind would accept here.
      expect(await tryConnect('127.0.0.2', server.port)).to.not.equal('connected');
      expect(await tryConnect('::1', server.port)).to.not.equal('connected');
      const external = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a !== undefined && !a.internal)
        .map((a) => a!.address);
      for (const address of external) expect(await tryConnect(address, server.port), address).to.not.equal('connected');
      await startFixtureServer({ host: '0.0.0.0' as '127.0.0.1' }).then(
        () => expect.fail('a non-loopback host must be refused'),
        (e: unknown) => expect((e as Error).message).to.match(/binds to 127\.0\.0\.1 only/),
      );
    });

    it('reports a port in use with DV_FIXTURE_SERVER and what to do', async () => {
      await startFixtureServer({ port: server.port }).then(
        () => expect.fail('a second server on the same port must fail'),
        (e: unknown) => {
          expect(e).to.have.property('code', 'DV_FIXTURE_SERVER');
          expect((e as Error).message).to.equal(
            `Cannot listen on 127.0.0.1:${server.port}: the port is in use (EADDRINUSE). Stop the program listening there or choose another port.`,
          );
        },
      );
    });

    it('waitForRequest resolves for a request already journaled and for one still to come; onRequest sees each', async () => {
      const seen: number[] = [];
      const unsubscribe = server.onRequest((e) => seen.push(e.seq));
      await send(`${server.url}/feed.xml`);
      expect((await server.waitForRequest((e) => e.path === '/feed.xml', DEADLINE_MS)).seq).to.equal(1);
      const later = server.waitForRequest((e) => e.path === '/receipts', DEADLINE_MS);
      await postReceipt(server, 'https://example.org/1', 'k');
      expect((await later).seq).to.equal(2);
      unsubscribe();
      await send(`${server.url}/feed.xml`);
      expect(seen).to.deep.equal([1, 2]);
      await server.waitForRequest((e) => e.path === '/never', 30).then(
        () => expect.fail('should time out'),
        (e: unknown) => expect((e as Error).message).to.match(/Waited 30 ms for a matching request.*GET \/feed\.xml 200/),
      );
    });

    it('writes the journal as JSON Lines, streamed and on demand', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dv-fixture-journal-'));
      const streamed = join(dir, 'streamed.jsonl');
      const s = await startFixtureServer({ journalPath: streamed, clock: () => NOW });
      try {
        await send(`${s.url}/feed.xml`, { headers: { 'X-A': '1' } });
        await postReceipt(s, 'https://example.org/1', 'k');
        await s.writeJournal(join(dir, 'dumped.jsonl'));
        await s.close();
        const lines = (await readFile(streamed, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as JournalEntry);
        expect(lines).to.deep.equal(s.journal());
        expect(lines.map((l) => [l.method, l.path, l.status, l.headers['x-a'] ?? null])).to.deep.equal([
          ['GET', '/feed.xml', 200, '1'],
          ['POST', '/receipts', 201, null],
        ]);
        expect(await readFile(join(dir, 'dumped.jsonl'), 'utf8')).to.equal(await readFile(streamed, 'utf8'));
      } finally {
        await s.close();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('refuses a journal file it cannot write, naming the path', async () => {
      await startFixtureServer({ journalPath: '/nonexistent-dir/journal.jsonl' }).then(
        () => expect.fail('an unwritable journal path must be refused'),
        (e: unknown) => {
          expect(e).to.have.property('code', 'DV_FIXTURE_SERVER');
          expect((e as Error).message).to.equal('Cannot write the fixture-server journal to /nonexistent-dir/journal.jsonl: ENOENT. Check that its directory exists and is writable.');
        },
      );
    });

    it('close() ends held requests, journals them without a response, and rejects pending waits', async () => {
      server.setFault('/receipts', { hold: true });
      const pending = postReceipt(server, 'https://example.org/1', 'k').then(
        () => 'answered',
        (e: NodeJS.ErrnoException) => e.code ?? 'error',
      );
      await server.waitForHeld(1, DEADLINE_MS);
      const waiting = server.waitForRequest((e) => e.path === '/never', DEADLINE_MS).then(
        () => 'resolved',
        (e: Error) => e.message,
      );
      await server.close();
      expect(await pending).to.equal('ECONNRESET');
      expect(await waiting).to.match(/closed while waiting/);
      expect(server.journal().map((e) => [e.status, e.held, e.clientClosed])).to.deep.equal([[0, true, undefined]]);
      expect(server.effects()).to.deep.equal([]);
      expect(await tryConnect('127.0.0.1', server.port)).to.equal('ECONNREFUSED');
    });
  });
});

describe('serve-feed command', function () {
  this.timeout(20_000);

  it('serves a built-in fixture, logs one line per request, and returns 0 when stopped', async () => {
    const { io, out, waitFor } = capturingIo();
    const stop = new AbortController();
    const done = runServeFeed({ port: 0, fixture: 'malformed' }, io, { signal: stop.signal });
    const [, url] = await waitFor(/^serving feed on (http:\/\/127\.0\.0\.1:\d+\/feed\.xml)\n/);
    const reply = await send(url!);
    expect(parseFeed(reply.body).items.map((i) => i.title)).to.deep.equal(['Fresh 1', 'Fresh 2', 'Fresh 3', 'Bad date', 'Empty link', 'No link']);
    await send(url!.replace('/feed.xml', '/receipts'), { method: 'POST', headers: { 'Idempotency-Key': 'k' }, body: '{"link":"l","title":"t"}' });
    await waitFor(/POST \/receipts 201\n/);
    stop.abort();
    expect(await done).to.equal(0);
    expect(out().split('\n').slice(1)).to.deep.equal(['GET /feed.xml 200 6 items', 'POST /receipts 201', '']);
    expect(await tryConnect('127.0.0.1', Number(/:(\d+)\//.exec(url!)?.[1]))).to.equal('ECONNREFUSED');
  });

  it('serves a file as /feed.xml', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dv-serve-feed-'));
    try {
      const file = join(dir, 'feed.xml');
      const xml = '<?xml version="1.0"?><rss version="2.0"><channel><item><title>A</title><link>https://example.org/a</link><pubDate>Mon, 30 Nov 2026 13:32:27 +0000</pubDate></item></channel></rss>\n';
      await writeFile(file, xml);
      const { io, waitFor } = capturingIo();
      const stop = new AbortController();
      const done = runServeFeed({ port: 0, file }, io, { signal: stop.signal });
      const [, url] = await waitFor(/serving feed on (\S+)\n/);
      expect((await send(url!)).body).to.equal(xml);
      stop.abort();
      expect(await done).to.equal(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a port in use is a one-line error naming the fix, exit 2', async () => {
    const busy = await startFixtureServer();
    try {
      await runServeFeed({ port: busy.port }, capturingIo().io).then(
        () => expect.fail('serve-feed must refuse a busy port'),
        (e: unknown) => expect(e).to.have.property('code', 'DV_FIXTURE_SERVER'),
      );
      const run = await runCli(['serve-feed', '--port', String(busy.port)]);
      expect(run).to.deep.equal({
        code: 2,
        stdout: '',
        stderr: `error: Port ${busy.port} on 127.0.0.1 is in use. Stop the program listening there (another serve-feed?) or pass --port N with a free port.\n`,
      });
    } finally {
      await busy.close();
    }
  });

  it('an unknown fixture or an unreadable file is an error listing what to use, exit 2', async () => {
    await runServeFeed({ port: 0, fixture: 'nope' }, capturingIo().io).then(
      () => expect.fail('unknown fixture must be refused'),
      (e: unknown) => {
        expect(e).to.have.property('code', 'DV_USAGE');
        expect((e as Error).message).to.match(/^Unknown feed fixture "nope"\. Available: ancient, atom-fresh-five, duplicate-links, edited-title, fresh-five, malformed, mixed-ages \(in .*fixtures\/feeds\); or serve your own file with --file FEED\.xml\.$/);
      },
    );
    await runServeFeed({ port: 0, file: '/nonexistent/feed.xml' }, capturingIo().io).then(
      () => expect.fail('a missing file must be refused'),
      (e: unknown) => expect((e as Error).message).to.equal('Cannot read feed file /nonexistent/feed.xml (ENOENT). Check the path given to --file.'),
    );
    const run = await runCli(['serve-feed', '--port', '0', '--fixture', 'nope']);
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/^error: Unknown feed fixture "nope"\. Available: ancient, .*\n$/);
    expect(run.stderr.split('\n')).to.have.length(2);
  });

  it('runs as a process until SIGTERM and exits 0', async () => {
    const child = spawnCli(['serve-feed', '--port', '0']);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let stdout = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve-feed did not print its URL within 10 s; stdout: ${stdout}`)), 10_000);
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          const m = /serving feed on (\S+)\n/.exec(stdout);
          if (m?.[1] !== undefined) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        child.once('exit', () => reject(new Error(`serve-feed exited early; stdout: ${stdout}`)));
      });
      expect(parseFeedKeys((await send(url)).body)).to.have.length(5);
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
