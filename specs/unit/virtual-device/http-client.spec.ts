/**
 * The reference app's HTTP client against a real fixture server over real TCP: OkHttp 4.12's
 * pooled keep-alive connection and its one silent retry of a request that failed on a pooled
 * connection (src/virtual-device/apps/feed-notifier/http-client.ts cites the OkHttp sources).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { expect } from 'chai';
import { HttpConnectionError, httpRequest } from '../../../src/virtual-device/apps/feed-notifier/http-client.js';
import { AppProcess } from '../../../src/virtual-device/system/app-process.js';
import type { AppContext } from '../../../src/virtual-device/system/app-framework.js';
import { startFixtureServer, type FixtureServer } from '../../../src/feed/fixture-server.js';

interface TestApp {
  readonly context: AppContext;
  readonly process: AppProcess;
  /** Every connection the app opened, in order. */
  readonly sockets: net.Socket[];
  /** Moves elapsedRealtime() on. */
  elapse(ms: number): void;
}

let pid = 4000;

/** What httpRequest uses of an AppContext: its process, elapsedRealtime() and connect(). */
function testApp(): TestApp {
  let elapsed = 1_000_000;
  const sockets: net.Socket[] = [];
  const process = new AppProcess({ pid: ++pid, uid: 10190, packageName: 'com.example.feednotifier', startTimeMs: Date.now(), startElapsedMs: elapsed });
  const context = {
    process,
    elapsedRealtime: () => elapsed,
    connect: async (port: number): Promise<Duplex> => {
      const s = net.connect(port, '127.0.0.1');
      sockets.push(s);
      await once(s, 'connect');
      return s;
    },
  } as unknown as AppContext;
  return {
    context,
    process,
    sockets,
    elapse: (ms) => {
      elapsed += ms;
    },
  };
}

describe('reference app HTTP client (OkHttp 4.12 connection reuse)', function () {
  let server: FixtureServer;
  let apps: TestApp[];
  const get = (app: TestApp, path = '/feed.xml') => httpRequest(app.context, { method: 'GET', port: server.port, path });
  const post = (app: TestApp, key: string, link: string) =>
    httpRequest(app.context, { method: 'POST', port: server.port, path: '/receipts', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: JSON.stringify({ link }) });

  beforeEach(async () => {
    server = await startFixtureServer({ port: 0 });
    apps = [];
  });
  afterEach(async () => {
    for (const a of apps) a.process.kill('test over');
    await server.close();
  });
  /** The error `work` rejects with (it must reject). */
  const failure = async (work: Promise<unknown>): Promise<unknown> => {
    try {
      await work;
    } catch (e) {
      return e;
    }
    throw new Error('expected the request to fail');
  };
  const app = (): TestApp => {
    const a = testApp();
    apps.push(a);
    return a;
  };

  it('sends the headers OkHttp adds and keeps one connection for consecutive requests', async () => {
    const a = app();
    const r1 = await get(a);
    const r2 = await get(a);
    await post(a, 'k-1', 'https://example.test/1');
    expect([r1.status, r2.status]).to.deep.equal([200, 200]);
    expect(a.sockets).to.have.length(1);
    const journal = server.journal();
    expect(journal).to.have.length(3);
    for (const j of journal) {
      expect(j.headers['connection']).to.equal('Keep-Alive');
      expect(j.headers['accept-encoding']).to.equal('gzip');
      expect(j.headers['user-agent']).to.equal('okhttp/4.12.0');
    }
  });

  it('retries a POST dropped on a pooled connection once, on a new connection, with the same Idempotency-Key', async () => {
    const a = app();
    await get(a);
    server.setFault('/receipts', { sequence: ['drop-after-processing'] });
    const res = await post(a, 'op-7', 'https://example.test/7');
    expect(res.status).to.be.within(200, 299);
    expect(a.sockets).to.have.length(2);
    const posts = server.journal().filter((j) => j.method === 'POST');
    expect(posts.map((p) => p.headers['idempotency-key'])).to.deep.equal(['op-7', 'op-7']);
    expect(posts[0]?.dropped).to.equal(true);
    expect(server.effects()).to.have.length(1);
  });

  it('does not retry a request that failed on a new connection', async () => {
    const a = app();
    server.setFault('/receipts', { sequence: ['drop-after-processing'] });
    const error = await failure(post(a, 'op-8', 'https://example.test/8'));
    expect(error).to.be.instanceOf(HttpConnectionError);
    expect((error as Error).message).to.equal(`java.io.IOException: unexpected end of stream on http://127.0.0.1:${server.port}/...`);
    expect(a.sockets).to.have.length(1);
    expect(server.journal().filter((j) => j.method === 'POST')).to.have.length(1);
  });

  it('retries only once: a second failure, on the new connection, is the call\'s failure', async () => {
    const a = app();
    await get(a);
    server.setFault('/receipts', { sequence: ['drop-after-processing', 'drop-after-processing'] });
    const error = await failure(post(a, 'op-9', 'https://example.test/9'));
    expect(error).to.be.instanceOf(HttpConnectionError);
    expect(a.sockets).to.have.length(2);
    expect(server.journal().filter((j) => j.method === 'POST')).to.have.length(2);
  });

  it('a status answer is a response, not a failure: no retry', async () => {
    const a = app();
    await get(a);
    server.setFault('/feed.xml', { sequence: [503] });
    const res = await get(a);
    expect(res.status).to.equal(503);
    expect(server.journal()).to.have.length(2);
    expect(a.sockets).to.have.length(1);
  });

  it('the pool dies with the process: a new process opens its own connection', async () => {
    const a = app();
    await get(a);
    const first = a.sockets[0];
    a.process.kill('am force-stop');
    if (first !== undefined && !first.destroyed) await once(first, 'close');
    expect(first?.destroyed).to.equal(true);
    const b = app();
    await get(b);
    expect(b.sockets).to.have.length(1);
  });

  it('keeps a connection at most 5 minutes idle', async () => {
    const a = app();
    await get(a);
    a.elapse(5 * 60_000);
    await get(a);
    expect(a.sockets).to.have.length(2);
    expect(a.sockets[0]?.destroyed).to.equal(true);
  });
});

describe('reference app HTTP client against a server that closes idle connections', function () {
  let server: Server;
  let port: number;
  let requests: string[];
  let proc: AppProcess | undefined;

  beforeEach(async () => {
    requests = [];
    server = createServer((req, res) => {
      requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as net.AddressInfo).port;
  });
  afterEach(async () => {
    proc?.kill('test over');
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  it('a GET on a pooled connection the server has closed goes out on a new connection; the server sees it once', async () => {
    const a = testApp();
    proc = a.process;
    await httpRequest(a.context, { method: 'GET', port, path: '/feed.xml' });
    const pooled = a.sockets[0];
    expect(pooled).to.not.equal(undefined);
    const ended = once(pooled as net.Socket, 'end');
    server.closeIdleConnections();
    await ended;
    const res = await httpRequest(a.context, { method: 'GET', port, path: '/feed.xml' });
    expect(res.body).to.equal('ok');
    expect(a.sockets).to.have.length(2);
    expect(requests).to.deep.equal(['GET /feed.xml', 'GET /feed.xml']);
  });

  it('a response with Connection: close is not pooled', async () => {
    server.removeAllListeners('request');
    server.on('request', (req, res) => {
      requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
      res.setHeader('Connection', 'close');
      res.end('bye');
    });
    const a = testApp();
    proc = a.process;
    await httpRequest(a.context, { method: 'GET', port, path: '/a' });
    await httpRequest(a.context, { method: 'GET', port, path: '/b' });
    expect(a.sockets).to.have.length(2);
  });
});
