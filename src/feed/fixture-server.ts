/**
 * The fixture HTTP server (reference-app.md "Fixture server routes"): the feed the app fetches
 * (`GET /feed.xml`) and the backend it posts receipts to (`POST /receipts`, idempotent on the
 * `Idempotency-Key` header as seeds/001 describes: "the server stores/replays the first result
 * for that key"), with a fault plan per route and a journal of every request.
 *
 * Binds to 127.0.0.1 only: the app reaches it through `adb reverse`, as on a phone. Every wait
 * is event driven with a deadline; no polling.
 */
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DedupVerifyError, ErrorCode, TimeoutError } from '../errors.js';
import { itemsRelativeTo } from './feed-items.js';
import type { FeedItem } from './feed-items.js';
import { detectFeedFormat, parseFeedKeys } from './parse-feed.js';
import { DEFAULT_ATOM_FEED, DEFAULT_RSS_CHANNEL, FEED_CONTENT_TYPE, renderAtom, renderRss } from './render-feed.js';
import type { AtomFeed, FeedFormat, RssChannel } from './render-feed.js';

export const FIXTURE_HOST = '127.0.0.1';
export const DEFAULT_FEED_PATH = '/feed.xml';
export const DEFAULT_RECEIPTS_PATH = '/receipts';
export const DEFAULT_IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Bodies are journaled up to this many bytes (as text). */
export const JOURNAL_BODY_LIMIT = 64 * 1024;
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

/**
 * A fault plan for one route (replaces the previous plan of that route):
 * - `statuses`: answered in order (an entry below 300 means "handle normally"), then normal;
 *   `retryAfterSec` adds a `Retry-After` header to the fault answers;
 * - `status` (300..599, e.g. 401, 408, 429, 503): every request until cleared, or `times`
 *   requests; `retryAfterSec` adds a `Retry-After` header;
 * - `delayMs`: every request is handled normally after this delay;
 * - `hold`: every request (after the first `passFirst`, handled normally) waits until
 *   `release()`, which also ends the hold; a held request whose client went away is still
 *   processed on release (the server had the whole request), and journaled `clientClosed`;
 * - `dropAfterProcessing`: the request is handled (a receipt's effect is stored), then the
 *   socket is destroyed before any response byte; every request, or `times` requests.
 */
export type FaultPlan =
  | { readonly statuses: readonly number[]; readonly retryAfterSec?: number }
  | { readonly status: number; readonly retryAfterSec?: number; readonly times?: number }
  | { readonly delayMs: number }
  | { readonly hold: true; readonly passFirst?: number }
  | { readonly sequence: readonly FaultStep[] }
  | { readonly dropAfterProcessing: true; readonly times?: number };

/**
 * One request's fate in a `sequence` plan: handled normally, answered with a status, handled
 * then dropped before any response byte, or held until `release()`. After the last step the
 * route is normal again.
 */
export type FaultStep = 'pass' | 'drop-after-processing' | 'hold' | number;

export interface JournalEntry {
  /** Arrival order, from 1. */
  readonly seq: number;
  /** Server clock at arrival (epoch ms). */
  readonly t: number;
  readonly method: string;
  /** The request target as received (path and query). */
  readonly path: string;
  /** Header names lower-cased; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** Body as UTF-8 text, truncated to JOURNAL_BODY_LIMIT bytes. */
  readonly body: string;
  readonly bodyTruncated?: true;
  /** The status sent; 0 when no response was sent (dropped, or closed while held). */
  readonly status: number;
  /** Item keys (link, "" when missing) in the feed body that was sent. */
  readonly itemsServed?: readonly string[];
  /** The fault applied: `status:503`, `delay:200`, `hold`, `drop-after-processing`. */
  readonly fault?: string;
  readonly held?: true;
  readonly dropped?: true;
  /** The client went away before the response was complete. */
  readonly clientClosed?: true;
  /** Receipts: the idempotency key sent, `null` when the header was missing or empty. */
  readonly idempotencyKey?: string | null;
  readonly idempotencyKeyMissing?: true;
  /** Receipts: the receipt number answered (new or replayed). */
  readonly receipt?: number;
  readonly replayed?: boolean;
  readonly durationMs: number;
}

/** One side effect of the backend: a stored receipt. */
export interface ReceiptEffect {
  readonly receipt: number;
  /** `null` when the request carried no idempotency key. */
  readonly key: string | null;
  readonly link: string;
  readonly title: string;
  /** Server clock when stored. */
  readonly t: number;
  /** Journal seq of the request that stored it. */
  readonly seq: number;
}

export interface HeldRequest {
  readonly seq: number;
  readonly t: number;
  readonly method: string;
  readonly path: string;
  readonly body: string;
  /** The client's connection closed while held (e.g. the app process was killed). */
  readonly clientClosed: boolean;
}

export type RequestListener = (entry: JournalEntry) => void;

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

/** Validates a plan; returns a message naming what is wrong, or null. */
function describePlanProblem(plan: FaultPlan): string | null {
  const isStatus = (s: number): boolean => Number.isInteger(s) && s >= 100 && s <= 599;
  const isCount = (n: number | undefined): boolean => n === undefined || (Number.isInteger(n) && n > 0);
  const isRetryAfter = (n: number | undefined): boolean => n === undefined || (Number.isInteger(n) && n >= 0);
  if ('statuses' in plan) {
    if (plan.statuses.length === 0 || !plan.statuses.every(isStatus)) return 'statuses must be a non-empty list of HTTP statuses (100..599)';
    return isRetryAfter(plan.retryAfterSec) ? null : 'retryAfterSec must be a whole number >= 0';
  }
  if ('status' in plan) {
    if (!isStatus(plan.status) || plan.status < 300) return 'status must be an HTTP status from 300 to 599';
    if (!isRetryAfter(plan.retryAfterSec)) return 'retryAfterSec must be a whole number >= 0';
    return isCount(plan.times) ? null : 'times must be a whole number > 0';
  }
  if ('delayMs' in plan) return Number.isFinite(plan.delayMs) && plan.delayMs >= 0 ? null : 'delayMs must be a number >= 0';
  if ('sequence' in plan) {
    const ok = plan.sequence.length > 0 && plan.sequence.every((step) => step === 'pass' || step === 'drop-after-processing' || step === 'hold' || (typeof step === 'number' && isStatus(step) && step >= 300));
    return ok ? null : 'sequence must be a non-empty list of "pass", "drop-after-processing", "hold" or HTTP statuses 300..599';
  }
  if ('hold' in plan) return plan.passFirst === undefined || (Number.isInteger(plan.passFirst) && plan.passFirst >= 0) ? null : 'passFirst must be a whole number >= 0';
  return isCount(plan.times) ? null : 'times must be a whole number > 0';
}

function statusText(status: number): string {
  return `fixture fault: HTTP ${status}\n`;
}

function lowerCaseHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? '').toLowerCase();
    const value = req.rawHeaders[i + 1] ?? '';
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

function truncateUtf8(buf: Buffer, limit: number): { text: string; truncated: boolean } {
  if (buf.length <= limit) return { text: buf.toString('utf8'), truncated: false };
  return { text: buf.subarray(0, limit).toString('utf8'), truncated: true };
}

interface Responded {
  status: number;
  headers: Record<string, string>;
  body: string;
  itemsServed?: readonly string[];
  receipt?: { key: string | null; receipt: number; replayed: boolean };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The fault one request gets, after sequences and counts are consumed. */
type AppliedFault =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterSec: number | undefined }
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'hold' }
  | { readonly kind: 'drop' };

function faultLabel(fault: AppliedFault): string {
  switch (fault.kind) {
    case 'status':
      return `status:${fault.status}`;
    case 'delay':
      return `delay:${fault.ms}`;
    case 'hold':
      return 'hold';
    case 'drop':
      return 'drop-after-processing';
    default: {
      const unreachable: never = fault;
      return unreachable;
    }
  }
}

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
  private readonly idempotencyHeader: string;
  private feed: { kind: 'rendered'; body: string; contentType: string; keys: readonly string[] } | { kind: 'file'; file: string; contentType: string | undefined };
  private readonly faults = new Map<string, { plan: FaultPlan; used: number }>();
  private readonly holds: Hold[] = [];
  private readonly holdListeners = new Set<() => void>();
  private readonly requestListeners = new Set<RequestListener>();
  private readonly entries: JournalEntry[] = [];
  private readonly stored: ReceiptEffect[] = [];
  private readonly answers = new Map<string, number>();
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
    private readonly journalStream: WriteStream | undefined,
  ) {
    this.port = port;
    this.url = `http://${FIXTURE_HOST}:${port}`;
    this.clock = options.clock ?? Date.now;
    this.feedPath = options.feedPath ?? DEFAULT_FEED_PATH;
    this.receiptsPath = options.receiptsPath ?? DEFAULT_RECEIPTS_PATH;
    this.idempotencyHeader = (options.idempotencyHeader ?? DEFAULT_IDEMPOTENCY_HEADER).toLowerCase();
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
    return { body, contentType: FEED_CONTENT_TYPE[source.format], keys: parseFeedKeys(body) };
  }

  setFeed(source: FeedSource): void {
    if ('format' in source) {
      this.feed = { kind: 'rendered', ...this.renderSource(source) };
    } else if ('xml' in source) {
      this.feed = { kind: 'rendered', body: source.xml, contentType: source.contentType ?? contentTypeOf(source.xml), keys: parseFeedKeys(source.xml) };
    } else {
      this.feed = { kind: 'file', file: source.file, contentType: source.contentType };
    }
  }

  private async currentFeed(): Promise<{ body: string; contentType: string; keys: readonly string[] }> {
    if (this.feed.kind === 'rendered') return this.feed;
    const body = await readFile(this.feed.file, 'utf8');
    return { body, contentType: this.feed.contentType ?? contentTypeOf(body), keys: parseFeedKeys(body) };
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
    const problem = describePlanProblem(plan);
    if (problem !== null) {
      throw new DedupVerifyError(ErrorCode.FixtureServer, `Invalid fault plan for ${route} (${JSON.stringify(plan)}): ${problem}.`);
    }
    this.faults.set(route, { plan, used: 0 });
  }

  clearFaults(route?: string): void {
    if (route === undefined) {
      this.faults.clear();
      return;
    }
    this.assertRoute(route);
    this.faults.delete(route);
  }

  release(route?: string): number {
    if (route !== undefined) this.assertRoute(route);
    for (const [r, f] of this.faults) {
      if ('hold' in f.plan && (route === undefined || r === route)) this.faults.delete(r);
    }
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
        `(held now: ${this.holds.length}, of which client-closed: ${this.holds.filter((h) => h.info.clientClosed).length}; journal: ${this.entries.length} request(s))`,
    );
  }

  /** Takes the fault for this request, or undefined; consumes sequences and counts. */
  private takeFault(route: string): AppliedFault | undefined {
    const f = this.faults.get(route);
    if (f === undefined) return undefined;
    const plan = f.plan;
    f.used += 1;
    if ('statuses' in plan) {
      const status = plan.statuses[f.used - 1];
      if (f.used >= plan.statuses.length) this.faults.delete(route);
      return status === undefined || status < 300 ? undefined : { kind: 'status', status, retryAfterSec: plan.retryAfterSec };
    }
    if ('status' in plan) {
      if (plan.times !== undefined && f.used >= plan.times) this.faults.delete(route);
      return { kind: 'status', status: plan.status, retryAfterSec: plan.retryAfterSec };
    }
    if ('dropAfterProcessing' in plan) {
      if (plan.times !== undefined && f.used >= plan.times) this.faults.delete(route);
      return { kind: 'drop' };
    }
    if ('delayMs' in plan) return { kind: 'delay', ms: plan.delayMs };
    if ('sequence' in plan) {
      const step = plan.sequence[f.used - 1];
      if (f.used >= plan.sequence.length) this.faults.delete(route);
      if (step === undefined || step === 'pass') return undefined;
      if (step === 'hold') return { kind: 'hold' };
      if (step === 'drop-after-processing') return { kind: 'drop' };
      return { kind: 'status', status: step, retryAfterSec: undefined };
    }
    return f.used > (plan.passFirst ?? 0) ? { kind: 'hold' } : undefined;
  }

  // ---- journal and waits ----------------------------------------------------------------

  effects(): ReceiptEffect[] {
    return [...this.stored];
  }

  journal(): JournalEntry[] {
    return [...this.entries].sort((a, b) => a.seq - b.seq);
  }

  onRequest(listener: RequestListener): () => void {
    this.requestListeners.add(listener);
    return () => this.requestListeners.delete(listener);
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
      () => `a matching request on the fixture server (journal: ${this.entries.map((e) => `${e.method} ${e.path} ${e.status}`).join(', ') || 'empty'})`,
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

  async writeJournal(path: string): Promise<void> {
    await writeFile(path, this.journal().map((e) => `${JSON.stringify(e)}\n`).join(''));
  }

  private record(entry: JournalEntry): void {
    this.entries.push(entry);
    this.journalStream?.write(`${JSON.stringify(entry)}\n`);
    for (const l of [...this.requestListeners]) {
      try {
        l(entry);
      } catch {
        // A listener's own failure must not break the server or the other listeners.
      }
    }
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
    const headers = lowerCaseHeaders(req);
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
      const body = truncateUtf8(buf, JOURNAL_BODY_LIMIT);
      entry.body = body.text;
      if (body.truncated || tooLarge) entry.bodyTruncated = true;
      if (res.destroyed) return;

      const known = route === this.feedPath || route === this.receiptsPath;
      const fault = known ? this.takeFault(route) : undefined;
      if (fault !== undefined) entry.fault = faultLabel(fault);
      switch (fault?.kind) {
        case undefined:
        case 'drop':
          break;
        case 'status': {
          const retryAfter: Record<string, string> = fault.retryAfterSec === undefined ? {} : { 'Retry-After': String(fault.retryAfterSec) };
          this.send(res, entry, { status: fault.status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...retryAfter }, body: statusText(fault.status) });
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
      this.record(entry);
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
      return this.storeReceipt(headers, body, seq);
    }
    return {
      status: 404,
      headers: text,
      body: `no route ${method} ${route}; routes: GET ${this.feedPath}, POST ${this.receiptsPath}\n`,
    };
  }

  private storeReceipt(headers: Record<string, string>, body: Buffer, seq: number): Responded {
    const json = { 'Content-Type': 'application/json' };
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return { status: 400, headers: json, body: JSON.stringify({ error: 'body is not JSON; send {"link": "...", "title": "..."}' }) };
    }
    const record = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    const link = record?.['link'];
    const title = record?.['title'] ?? '';
    if (typeof link !== 'string' || typeof title !== 'string') {
      return { status: 400, headers: json, body: JSON.stringify({ error: 'body must be {"link": string, "title": string}' }) };
    }
    const rawKey = (headers[this.idempotencyHeader] ?? '').trim();
    const key = rawKey === '' ? null : rawKey;
    const first = key === null ? undefined : this.answers.get(key);
    if (first !== undefined) {
      return { status: 201, headers: json, body: JSON.stringify({ receipt: first, replayed: true }), receipt: { key, receipt: first, replayed: true } };
    }
    const receipt = this.stored.length + 1;
    this.stored.push({ receipt, key, link, title, t: this.clock(), seq });
    if (key !== null) this.answers.set(key, receipt);
    return { status: 201, headers: json, body: JSON.stringify({ receipt, replayed: false }), receipt: { key, receipt, replayed: false } };
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
      if (this.journalStream !== undefined) {
        const stream = this.journalStream;
        await new Promise<void>((resolve) => stream.end(resolve));
      }
    })();
    return this.closing;
  }
}

function contentTypeOf(xml: string): string {
  const format = detectFeedFormat(xml);
  return format === 'unknown' ? 'application/xml; charset=utf-8' : FEED_CONTENT_TYPE[format];
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
  if (options.journalPath !== undefined) {
    try {
      await appendFile(options.journalPath, '');
    } catch (e) {
      throw new DedupVerifyError(ErrorCode.FixtureServer, `Cannot write the fixture-server journal to ${options.journalPath}: ${(e as NodeJS.ErrnoException).code ?? String(e)}. Check that its directory exists and is writable.`, { cause: e });
    }
  }
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
  let stream: WriteStream | undefined;
  if (options.journalPath !== undefined) {
    stream = createWriteStream(options.journalPath, { flags: 'a' });
    stream.on('error', () => {
      // Evidence is best effort; the in-memory journal stays complete (journal(), writeJournal()).
    });
  }
  // Constructed in the same tick as 'listening': no request can arrive before its handler.
  return new HttpFixtureServer(server, actualPort, options, stream);
}
