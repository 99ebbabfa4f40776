/**
 * The fixture HTTP server (reference-app.md "Fixture server routes"): the feed the app fetches
 * (`GET /feed.xml`) and the backend it posts receipts to (`POST /receipts`, idempotent on the
 * `Idempotency-Key` header; receipts.ts), with a fault plan per route (faults.ts) and a journal
 * of every request (journal.ts). This module holds the HTTP handling and the waits.
 *
 * Binds to 127.0.0.1 only: the app reaches it through `adb reverse`, as on a phone. Every wait
 * is event driven with a deadline; no polling.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DedupVerifyError, ErrorCode, TimeoutError } from '../errors.js';
import { FaultPlans, faultLabel, faultStatusText } from './faults.js';
import type { FaultPlan } from './faults.js';
import { itemsRelativeTo } from './feed-items.js';
import type { FeedItem } from './feed-items.js';
import { Journal, checkJournalFile, journalBody, journalHeaders } from './journal.js';
import type { JournalEntry, RequestListener } from './journal.js';
import { parseFeed } from './parse-feed.js';
import { ReceiptStore } from './receipts.js';
import type { ReceiptAnswer, ReceiptEffect } from './receipts.js';
import { DEFAULT_ATOM_FEED, DEFAULT_RSS_CHANNEL, FEED_CONTENT_TYPE, renderAtom, renderRss } from './render-feed.js';
import type { AtomFeed, FeedFormat, RssChannel } from './render-feed.js';

export type { FaultPlan, FaultStep } from './faults.js';
export { JOURNAL_BODY_LIMIT } from './journal.js';
export type { JournalEntry, RequestListener } from './journal.js';
export type { ReceiptEffect } from './receipts.js';

export const FIXTURE_HOST = '127.0.0.1';
export const DEFAULT_FEED_PATH = '/feed.xml';
export const DEFAULT_RECEIPTS_PATH = '/receipts';
export const DEFAULT_IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Request bodies beyond this are answered 413 and not processed. */
const BODY_READ_LIMIT = 1024 * 1024;

export interface FixtureServerOptions {
  /** TCP port; 0 (default) picks a free one. */
  readonly port?: number;
  /** Loopback only: anything else is refused. */
  readonly host?: typeof FIXTURE_HOST;
  /** Server clock (epoch ms) for journal times, effect times and relative feed dates. Default Date.now. */
  readonly clock?: () => number;
  readonly feedPath?: string;
  readonly receiptsPath?: string;
  /** Name of the idempotency header (case-insensitive). */
  readonly idempotencyHeader?: string;
  /** Also append every journal entry to this file as JSON Lines (evidence). */
  readonly journalPath?: string;
  /** The first feed; default an empty RSS channel. */
  readonly feed?: FeedSource;
}

/**
 * What `GET /feed.xml` serves. Items with relative dates are resolved against the server clock
 * when the feed is set, so every response carries the same dates. `xml` is served verbatim
 * (broken documents included); `file` is re-read on every request, so it can be edited while
 * served. For both, the journal's `itemsServed` is read back from the XML.
 */
export type FeedSource =
  | { readonly format: FeedFormat; readonly items: readonly FeedItem[]; readonly channel?: RssChannel; readonly atom?: AtomFeed }
  | { readonly xml: string; readonly contentType?: string }
  | { readonly file: string; readonly contentType?: string };

export interface HeldRequest {
  readonly seq: number;
  readonly t: number;
  readonly method: string;
  readonly path: string;
  readonly body: string;
  /** The client's connection closed while held (e.g. the app process was killed). */
  readonly clientClosed: boolean;
}

export interface FixtureServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly feedPath: string;
  readonly receiptsPath: string;
  setFeed(source: FeedSource): void;
  setFault(route: string, plan: FaultPlan): void;
  clearFaults(route?: string): void;
  /** Lets every held request (of `route`, or all) proceed and ends the hold. Returns how many. */
  release(route?: string): number;
  /** Requests being held now, oldest first. */
  held(): HeldRequest[];
  /**
   * Resolves when at least `count` held requests (matching `predicate`, if given) are being
   * held; rejects after `deadlineMs` ms. Re-checked on every hold and every client close.
   */
  waitForHeld(count: number, deadlineMs: number, predicate?: (held: HeldRequest) => boolean): Promise<HeldRequest[]>;
  effects(): ReceiptEffect[];
  /** Every completed request, in arrival order. */
  journal(): JournalEntry[];
  /** Called with each entry as its request completes. Returns the unsubscribe function. */
  onRequest(listener: RequestListener): () => void;
  /**
   * The first journal entry (already recorded or yet to come) matching `predicate`; rejects
   * after `deadlineMs` ms. Filter on `seq` to wait only for requests after a point.
   */
  waitForRequest(predicate: (entry: JournalEntry) => boolean, deadlineMs: number): Promise<JournalEntry>;
  /** Writes the journal as JSON Lines. */
  writeJournal(path: string): Promise<void>;
  /** Ends held requests, destroys every socket, stops listening. Idempotent. */
  close(): Promise<void>;
}

interface Responded extends ReceiptAnswer {
  readonly itemsServed?: readonly string[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface Hold {
  readonly route: string;
  readonly info: Mutable<HeldRequest>;
  readonly resolve: (outcome: 'released' | 'closed') => void;
}

class HttpFixtureServer implements FixtureServer {
  readonly url: string;
  readonly port: number;
  readonly feedPath: string;
  readonly receiptsPath: string;

  private readonly clock: () => number;
  private feed: { kind: 'rendered'; body: string; contentType: string; keys: readonly string[] } | { kind: 'file'; file: string; contentType: string | undefined };
  private readonly faults = new FaultPlans();
  private readonly holds: Hold[] = [];
  private readonly holdListeners = new Set<() => void>();
  private readonly requestJournal: Journal;
  private readonly receipts: ReceiptStore;
  private readonly pendingTimers = new Set<{ timer: NodeJS.Timeout; done: () => void }>();
  private readonly sockets = new Set<Socket>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closeListeners = new Set<() => void>();
  private seq = 0;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly server: Server,
    port: number,
    options: FixtureServerOptions,
  ) {
    this.port = port;
    this.url = `http://${FIXTURE_HOST}:${port}`;
    this.clock = options.clock ?? Date.now;
    this.feedPath = options.feedPath ?? DEFAULT_FEED_PATH;
    this.receiptsPath = options.receiptsPath ?? DEFAULT_RECEIPTS_PATH;
    this.receipts = new ReceiptStore((options.idempotencyHeader ?? DEFAULT_IDEMPOTENCY_HEADER).toLowerCase(), this.clock);
    this.requestJournal = new Journal(options.journalPath);
    this.feed = { kind: 'rendered', ...this.renderSource({ format: 'rss', items: [] }) };
    if (options.feed !== undefined) this.setFeed(options.feed);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void this.handle(req, res);
    });
  }

  // ---- feed -----------------------------------------------------------------------------

  private renderSource(source: Extract<FeedSource, { format: FeedFormat }>): { body: string; contentType: string; keys: readonly string[] } {
    const items = itemsRelativeTo(this.clock(), source.items);
    const body = source.format === 'rss' ? renderRss(source.channel ?? DEFAULT_RSS_CHANNEL, items) : renderAtom(source.atom ?? DEFAULT_ATOM_FEED, items);
    return readBack(body, FEED_CONTENT_TYPE[source.format]);
  }

  setFeed(source: FeedSource): void {
    if ('format' in source) {
      this.feed = { kind: 'rendered', ...this.renderSource(source) };
    } else if ('xml' in source) {
      this.feed = { kind: 'rendered', ...readBack(source.xml, source.contentType) };
    } else {
      this.feed = { kind: 'file', file: source.file, contentType: source.contentType };
    }
  }

  private async currentFeed(): Promise<{ body: string; contentType: string; keys: readonly string[] }> {
    if (this.feed.kind === 'rendered') return this.feed;
    return readBack(await readFile(this.feed.file, 'utf8'), this.feed.contentType);
  }

  // ---- faults ---------------------------------------------------------------------------

  private assertRoute(route: string): void {
    if (route !== this.feedPath && route !== this.receiptsPath) {
      throw new DedupVerifyError(
        ErrorCode.FixtureServer,
        `Unknown fixture-server route "${route}". Faults apply to "${this.feedPath}" or "${this.receiptsPath}".`,
      );
    }
  }

  setFault(route: string, plan: FaultPlan): void {
    this.assertRoute(route);
    this.faults.set(route, plan);
  }

  clearFaults(route?: string): void {
    if (route !== undefined) this.assertRoute(route);
    this.faults.clear(route);
  }

  release(route?: string): number {
    if (route !== undefined) this.assertRoute(route);
    this.faults.endHolds(route);
    const released = this.holds.filter((h) => route === undefined || h.route === route);
    for (const h of released) {
      this.holds.splice(this.holds.indexOf(h), 1);
      h.resolve('released');
    }
    return released.length;
  }

  held(): HeldRequest[] {
    return this.holds.map((h) => ({ ...h.info }));
  }

  waitForHeld(count: number, deadlineMs: number, predicate?: (held: HeldRequest) => boolean): Promise<HeldRequest[]> {
    return this.waitFor(
      () => {
        const matching = predicate === undefined ? this.held() : this.held().filter(predicate);
        return matching.length >= count ? matching : undefined;
      },
      this.holdListeners,
      deadlineMs,
      () =>
        `${count} held request(s)${predicate === undefined ? '' : ' matching the predicate'} on the fixture server ` +
        `(held now: ${this.holds.length}, of which client-closed: ${this.holds.filter((h) => h.info.clientClosed).length}; journal: ${this.requestJournal.size} request(s))`,
    );
  }

  // ---- journal and waits ----------------------------------------------------------------

  effects(): ReceiptEffect[] {
    return this.receipts.effects();
  }

  journal(): JournalEntry[] {
    return this.requestJournal.all();
  }

  onRequest(listener: RequestListener): () => void {
    return this.requestJournal.onRequest(listener);
  }

  waitForRequest(predicate: (entry: JournalEntry) => boolean, deadlineMs: number): Promise<JournalEntry> {
    const listeners = new Set<() => void>();
    const unsubscribe = this.onRequest(() => {
      for (const l of listeners) l();
    });
    const p = this.waitFor(
      () => this.journal().find(predicate),
      listeners,
      deadlineMs,
      () => `a matching request on the fixture server (journal: ${this.requestJournal.summary()})`,
    );
    return p.finally(unsubscribe);
  }

  /** Resolves with `probe()` as soon as it is defined, re-probing on each `listeners` event. */
  private waitFor<T>(probe: () => T | undefined, listeners: Set<() => void>, deadlineMs: number, what: () => string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = (): boolean => {
        let value: T | undefined;
        try {
          value = probe();
        } catch (e) {
          finish();
          reject(e instanceof Error ? e : new Error(String(e)));
          return true;
        }
        if (value === undefined) return false;
        finish();
        resolve(value);
        return true;
      };
      const onEvent = (): void => {
        check();
      };
      const onClose = (): void => {
        finish();
        reject(new DedupVerifyError(ErrorCode.FixtureServer, `The fixture server closed while waiting for ${what()}.`));
      };
      const timer = setTimeout(() => {
        finish();
        reject(new TimeoutError(`Waited ${deadlineMs} ms for ${what()}.`, deadlineMs));
      }, deadlineMs);
      const finish = (): void => {
        clearTimeout(timer);
        listeners.delete(onEvent);
        this.closeListeners.delete(onClose);
      };
      if (this.closing !== undefined) {
        onClose();
        return;
      }
      listeners.add(onEvent);
      this.closeListeners.add(onClose);
      check();
    });
  }

  writeJournal(path: string): Promise<void> {
    return this.requestJournal.write(path);
  }

  // ---- request handling -----------------------------------------------------------------

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const pending = {
        timer: setTimeout(() => {
          this.pendingTimers.delete(pending);
          resolve();
        }, ms),
        done: resolve,
      };
      this.pendingTimers.add(pending);
    });
  }

  private async readBody(req: IncomingMessage): Promise<{ buf: Buffer; tooLarge: boolean }> {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    for await (const chunk of req) {
      const b = chunk as Buffer;
      if (size + b.length > BODY_READ_LIMIT) tooLarge = true;
      else chunks.push(b);
      size += b.length;
    }
    return { buf: Buffer.concat(chunks), tooLarge };
  }

  private handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const done = this.process(req, res);
    this.inFlight.add(done);
    return done.finally(() => this.inFlight.delete(done));
  }

  private async process(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const seq = ++this.seq;
    const t = this.clock();
    const started = performance.now();
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const route = path.split('?')[0] ?? path;
    const headers = journalHeaders(req);
    const entry: Mutable<JournalEntry> = { seq, t, method, path, headers, body: '', status: 0, durationMs: 0 };
    let endedByServer = false;
    const endConnection = (): void => {
      endedByServer = true;
      req.socket.destroy();
    };
    try {
      let buf: Buffer = Buffer.alloc(0);
      let tooLarge = false;
      try {
        ({ buf, tooLarge } = await this.readBody(req));
      } catch {
        // The client went away mid-body: journaled below as clientClosed.
      }
      const body = journalBody(buf);
      entry.body = body.text;
      if (body.truncated || tooLarge) entry.bodyTruncated = true;
      if (res.destroyed) return;

      const known = route === this.feedPath || route === this.receiptsPath;
      const fault = known ? this.faults.take(route) : undefined;
      if (fault !== undefined) entry.fault = faultLabel(fault);
      switch (fault?.kind) {
        case undefined:
        case 'drop':
          break;
        case 'status': {
          const retryAfter: Record<string, string> = fault.retryAfterSec === undefined ? {} : { 'Retry-After': String(fault.retryAfterSec) };
          this.send(res, entry, { status: fault.status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...retryAfter }, body: faultStatusText(fault.status) });
          return;
        }
        case 'delay':
          await this.sleep(fault.ms);
          break;
        case 'hold': {
          entry.held = true;
          const outcome = await new Promise<'released' | 'closed'>((resolve) => {
            const info: Mutable<HeldRequest> = { seq, t, method, path, body: body.text, clientClosed: false };
            this.holds.push({ route, info, resolve });
            res.once('close', () => {
              if (!this.holds.some((h) => h.info === info)) return;
              info.clientClosed = true;
              for (const l of [...this.holdListeners]) l();
            });
            for (const l of [...this.holdListeners]) l();
          });
          if (outcome === 'closed') {
            endConnection();
            return;
          }
          break;
        }
        default: {
          const unreachable: never = fault;
          return unreachable;
        }
      }
      if (this.closing !== undefined) {
        endConnection();
        return;
      }
      const response = tooLarge
        ? { status: 413, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: `request body over ${BODY_READ_LIMIT} bytes\n` }
        : await this.respond(method, route, headers, buf, seq);
      if (response.receipt !== undefined) {
        entry.idempotencyKey = response.receipt.key;
        if (response.receipt.key === null) entry.idempotencyKeyMissing = true;
        entry.receipt = response.receipt.receipt;
        entry.replayed = response.receipt.replayed;
      }
      if (fault?.kind === 'drop') {
        // Processed (a receipt's effect is stored), then the connection dies before any byte.
        entry.dropped = true;
        endConnection();
        return;
      }
      if (response.itemsServed !== undefined) entry.itemsServed = response.itemsServed;
      this.send(res, entry, response);
    } catch (e) {
      if (!res.headersSent && !res.destroyed) {
        const message = e instanceof Error ? e.message : String(e);
        this.send(res, entry, { status: 500, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: `fixture server error: ${message}\n` });
      }
    } finally {
      await this.settled(res);
      if (!res.writableFinished) {
        entry.status = 0;
        delete entry.itemsServed;
        if (!endedByServer) entry.clientClosed = true;
      }
      entry.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      this.requestJournal.record(entry);
    }
  }

  private settled(res: ServerResponse): Promise<void> {
    if (res.writableFinished || res.destroyed || res.closed) return Promise.resolve();
    return new Promise((resolve) => {
      res.once('close', resolve);
      res.once('finish', resolve);
    });
  }

  private send(res: ServerResponse, entry: Mutable<JournalEntry>, r: Responded): void {
    entry.status = r.status;
    if (res.destroyed) return;
    const bytes = Buffer.from(r.body, 'utf8');
    res.writeHead(r.status, { ...r.headers, 'Content-Length': String(bytes.length) });
    res.end(entry.method === 'HEAD' ? undefined : bytes);
  }

  private async respond(method: string, route: string, headers: Record<string, string>, body: Buffer, seq: number): Promise<Responded> {
    const text = { 'Content-Type': 'text/plain; charset=utf-8' };
    if (route === this.feedPath) {
      if (method !== 'GET' && method !== 'HEAD') return { status: 405, headers: { ...text, Allow: 'GET, HEAD' }, body: `${method} not allowed on ${route}; use GET\n` };
      const feed = await this.currentFeed();
      return {
        status: 200,
        headers: { 'Content-Type': feed.contentType, 'Cache-Control': 'no-store' },
        body: feed.body,
        ...(method === 'GET' ? { itemsServed: feed.keys } : {}),
      };
    }
    if (route === this.receiptsPath) {
      if (method !== 'POST') return { status: 405, headers: { ...text, Allow: 'POST' }, body: `${method} not allowed on ${route}; use POST\n` };
      return this.receipts.receive(headers, body, seq);
    }
    return {
      status: 404,
      headers: text,
      body: `no route ${method} ${route}; routes: GET ${this.feedPath}, POST ${this.receiptsPath}\n`,
    };
  }

  // ---- shutdown -------------------------------------------------------------------------

  close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    this.closing = (async () => {
      for (const l of [...this.closeListeners]) l();
      for (const h of this.holds.splice(0)) h.resolve('closed');
      for (const p of [...this.pendingTimers]) {
        clearTimeout(p.timer);
        p.done();
      }
      this.pendingTimers.clear();
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const s of this.sockets) s.destroy();
      this.server.closeAllConnections();
      await closed;
      await Promise.allSettled([...this.inFlight]);
      await this.requestJournal.close();
    })();
    return this.closing;
  }
}

/** A feed body with the item keys (link, "" when missing) read back from it, and its type: as given, else by its format. */
function readBack(body: string, contentType: string | undefined): { body: string; contentType: string; keys: readonly string[] } {
  const parsed = parseFeed(body);
  const type = contentType ?? (parsed.format === 'unknown' ? 'application/xml; charset=utf-8' : FEED_CONTENT_TYPE[parsed.format]);
  return { body, contentType: type, keys: parsed.items.map((i) => i.key) };
}

/** Starts the fixture server on 127.0.0.1 and resolves once it is listening. */
export async function startFixtureServer(options: FixtureServerOptions = {}): Promise<FixtureServer> {
  const host: string = options.host ?? FIXTURE_HOST;
  if (host !== FIXTURE_HOST) {
    throw new DedupVerifyError(ErrorCode.FixtureServer, `The fixture server binds to ${FIXTURE_HOST} only (asked for "${host}"); the app reaches it through adb reverse.`);
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new DedupVerifyError(ErrorCode.FixtureServer, `Invalid fixture-server port ${port}: use 0 (a free port) or 1..65535.`);
  }
  if (options.journalPath !== undefined) await checkJournalFile(options.journalPath);
  const server = createServer({ keepAlive: true });
  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      const why =
        e.code === 'EADDRINUSE'
          ? 'the port is in use (EADDRINUSE). Stop the program listening there or choose another port'
          : e.code === 'EACCES'
            ? 'permission denied (EACCES). Use a port above 1023'
            : `${e.code ?? e.message}`;
      reject(new DedupVerifyError(ErrorCode.FixtureServer, `Cannot listen on ${FIXTURE_HOST}:${port}: ${why}.`, { cause: e }));
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host: FIXTURE_HOST, exclusive: true });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  // Constructed in the same tick as 'listening': no request can arrive before its handler.
  return new HttpFixtureServer(server, actualPort, options);
}
