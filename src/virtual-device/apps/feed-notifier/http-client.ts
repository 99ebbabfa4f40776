/**
 * HTTP from inside the app process, as OkHttp 4.12 (what real Android apps use) does it, over
 * connections from the device to 127.0.0.1:PORT (reachable only through `adb reverse`, as on a
 * phone). Sources: square/okhttp tag parent-4.12.0 (commit 4984568367caaf359b82c452bd28b5e192824d1c),
 * files under okhttp/src/main/kotlin/okhttp3/.
 *
 * - Timeouts: OkHttp's defaults, 10 s connect and 10 s read (OkHttpClient.Builder).
 * - Headers: BridgeInterceptor.kt L58-81 adds `Host`, `Connection: Keep-Alive`, `Accept-Encoding:
 *   gzip` and `User-Agent: okhttp/4.12.0` when the request has none; a body gets `Content-Length`.
 * - One connection pool per process (apps share one OkHttpClient): ConnectionPool.kt L47, up to 5
 *   idle connections kept 5 minutes. A response is read to its end, then the connection goes back
 *   to the pool, unless the request or the response said `Connection: close`
 *   (CallServerInterceptor) or the server ended it.
 * - Reuse: ExchangeFinder.findConnection L179-184 takes a pooled connection before any route is
 *   selected; findHealthyConnection L114-120 drops one that is closed, and, for a request other
 *   than GET idle 10 s or more (RealConnection.isHealthy L647-671, IDLE_CONNECTION_HEALTHY_NS), one
 *   whose peer has hung up. A GET on a pooled connection the server has closed is sent, and fails
 *   (`unexpected end of stream on URL`, Http1ExchangeCodec.kt L207-210).
 * - The silent retry: RetryAndFollowUpInterceptor.recover L144-164 retries an IOException unless
 *   it is a ProtocolException or a timeout after the request was sent (isRecoverable L172-201)
 *   and only when ExchangeFinder.retryAfterFailure L274-298 finds a route: after a failure on a
 *   connection taken from the pool the route selector was never made (`routeSelector ?: return
 *   true`), so the request goes again, once, on a new connection (the same request: the same
 *   headers, Idempotency-Key included, whatever its method); after a failure on a new connection
 *   the only route of 127.0.0.1 is used up and the call fails. A failure while reading the body
 *   happens after the interceptors returned and is never retried.
 *
 * A refused or reset connection, or a timeout, surfaces as HttpConnectionError, which the worker
 * treats as retryable; a process death aborts the request (ProcessDeath) and closes the pool.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppContext } from '../../system/app-framework.js';
import { isProcessDeath } from '../../system/app-process.js';

export const CONNECT_TIMEOUT_MS = 10_000;
export const READ_TIMEOUT_MS = 10_000;

export class HttpConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HttpConnectionError';
  }
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly port: number;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** ConnectionPool(): maxIdleConnections = 5, keepAliveDuration = 5 minutes (ConnectionPool.kt L47). */
export const POOL_MAX_IDLE = 5;
export const POOL_KEEP_ALIVE_MS = 5 * 60_000;
/** RealConnection.IDLE_CONNECTION_HEALTHY_NS: 10 s. */
const IDLE_HEALTHY_MS = 10_000;

interface PooledConnection {
  readonly socket: Duplex;
  readonly port: number;
  /** elapsedRealtime() when it went idle. */
  idleAt: number;
  /** The peer ended or reset it while it sat in the pool. */
  hungUp: boolean;
  readonly onHangUp: () => void;
}

/** The process's connection pool: idle connections, oldest first. */
class ConnectionPool {
  private readonly idle: PooledConnection[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly context: AppContext) {
    context.process.signal.addEventListener('abort', () => this.evictAll(), { once: true });
  }

  /** A pooled connection to `port` the health check lets through, or undefined. */
  take(port: number, method: string): PooledConnection | undefined {
    const now = this.context.elapsedRealtime();
    this.evictExpired(now);
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const c = this.idle[i];
      if (c === undefined || c.port !== port) continue;
      this.idle.splice(i, 1);
      c.socket.off('end', c.onHangUp);
      c.socket.off('close', c.onHangUp);
      c.socket.off('error', c.onHangUp);
      const closed = c.socket.destroyed;
      const extensive = method !== 'GET' && now - c.idleAt >= IDLE_HEALTHY_MS;
      if (closed || (extensive && c.hungUp)) {
        c.socket.destroy();
        continue;
      }
      return c;
    }
    return undefined;
  }

  put(socket: Duplex, port: number): void {
    if (!this.context.process.alive || socket.destroyed) {
      socket.destroy();
      return;
    }
    const c: PooledConnection = {
      socket,
      port,
      idleAt: this.context.elapsedRealtime(),
      hungUp: false,
      onHangUp: () => {
        c.hungUp = true;
      },
    };
    socket.on('end', c.onHangUp);
    socket.on('close', c.onHangUp);
    socket.on('error', c.onHangUp);
    this.idle.push(c);
    // RealConnectionPool.cleanup: over maxIdleConnections, the longest idle goes.
    while (this.idle.length > POOL_MAX_IDLE) this.idle.shift()?.socket.destroy();
    this.arm();
  }

  private evictExpired(now: number): void {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const c = this.idle[i];
      if (c !== undefined && now - c.idleAt >= POOL_KEEP_ALIVE_MS) {
        this.idle.splice(i, 1);
        c.socket.destroy();
      }
    }
  }

  /** RealConnectionPool's cleanup task: wakes when the longest idle connection expires. */
  private arm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    const oldest = this.idle[0];
    if (oldest === undefined) return;
    const wait = Math.max(0, oldest.idleAt + POOL_KEEP_ALIVE_MS - this.context.elapsedRealtime());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.evictExpired(this.context.elapsedRealtime());
      this.arm();
    }, wait);
    this.timer.unref();
  }

  private evictAll(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const c of this.idle.splice(0)) c.socket.destroy();
  }
}

const pools = new WeakMap<AppContext['process'], ConnectionPool>();

function poolOf(context: AppContext): ConnectionPool {
  let pool = pools.get(context.process);
  if (pool === undefined) {
    pool = new ConnectionPool(context);
    pools.set(context.process, pool);
  }
  return pool;
}

/** How one attempt ended when it produced no response. */
class AttemptFailed extends Error {
  constructor(
    readonly error: HttpConnectionError,
    /** RetryAndFollowUpInterceptor.isRecoverable: false for a timeout once the request was sent. */
    readonly recoverable: boolean,
  ) {
    super(error.message);
  }
}

export async function httpRequest(context: AppContext, req: HttpRequest): Promise<HttpResponse> {
  const proc = context.process;
  proc.throwIfDead();
  const pool = poolOf(context);
  const pooled = pool.take(req.port, req.method);
  try {
    return await attempt(context, req, pooled?.socket ?? (await connect(context, req.port)), pool);
  } catch (e) {
    if (!(e instanceof AttemptFailed)) throw e;
    // The one silent retry, on a new connection, of a request that failed on a pooled one.
    if (pooled === undefined || !e.recoverable) throw e.error;
    proc.throwIfDead();
    try {
      return await attempt(context, req, await connect(context, req.port), pool);
    } catch (again) {
      throw again instanceof AttemptFailed ? again.error : again;
    }
  }
}

async function connect(context: AppContext, port: number): Promise<Duplex> {
  const proc = context.process;
  try {
    return await proc.guard(withTimeout(context.connect(port), CONNECT_TIMEOUT_MS, 'connect timed out'));
  } catch (e) {
    if (isProcessDeath(e)) throw e;
    // OkHttp 4 RealConnection.connectSocket: `catch (e: ConnectException) { throw
    // ConnectException("Failed to connect to ${route.socketAddress}").apply { initCause(e) } }`
    // (okhttp/src/main/kotlin/okhttp3/internal/connection/RealConnection.kt, 4.12);
    // the route's InetSocketAddress of the literal 127.0.0.1 prints as `/127.0.0.1:PORT`
    // (java.net.InetSocketAddress.toString: hostname empty when the address was not resolved
    // from a name). The message below is the exception's toString(), as an app logs it.
    const refused = (e as { code?: unknown }).code === 'ECONNREFUSED';
    throw new HttpConnectionError(
      refused ? `java.net.ConnectException: Failed to connect to /127.0.0.1:${port}` : `failed to connect to /127.0.0.1:${port}: ${(e as Error).message}`,
      { cause: e },
    );
  }
}

/** One exchange on `socket`; the socket goes back to the pool or is closed. */
async function attempt(context: AppContext, req: HttpRequest, socket: Duplex, pool: ConnectionPool): Promise<HttpResponse> {
  const proc = context.process;
  const work = new Promise<HttpResponse>((resolve, reject) => {
    // BridgeInterceptor's headers, in its order, after the request's own.
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    headers['Host'] = `127.0.0.1:${req.port}`;
    headers['Connection'] = 'Keep-Alive';
    headers['Accept-Encoding'] = 'gzip';
    headers['User-Agent'] = 'okhttp/4.12.0';
    const clientRequest = request({
      host: '127.0.0.1',
      port: req.port,
      method: req.method,
      path: req.path,
      headers,
      createConnection: () => socket,
    });
    let timer: NodeJS.Timeout | undefined;
    let sent = false;
    let timedOut = false;
    const arm = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        clientRequest.destroy(new Error('timeout'));
      }, READ_TIMEOUT_MS);
      timer.unref();
    };
    const disarm = (): void => {
      if (timer !== undefined) clearTimeout(timer);
    };
    const onDeath = (): void => {
      clientRequest.destroy(new Error('process died'));
    };
    proc.signal.addEventListener('abort', onDeath, { once: true });
    const done = (): void => {
      disarm();
      proc.signal.removeEventListener('abort', onDeath);
    };
    arm();
    clientRequest.on('finish', () => {
      sent = true;
    });
    clientRequest.on('response', (res) => {
      const chunks: Buffer[] = [];
      arm();
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        arm();
      });
      res.on('end', () => {
        done();
        const close = /(^|,)\s*close\s*(,|$)/i.test(res.headers.connection ?? '') || res.httpVersion !== '1.1';
        // Node's client has already let go of the socket (responseOnEnd runs first), so it goes
        // back to the pool before the caller sees the body, as OkHttp releases it on the body's end.
        if (close) socket.destroy();
        else pool.put(socket, req.port);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      // Failures while reading the body: never retried (the interceptors have returned).
      res.on('error', (e) => {
        done();
        socket.destroy();
        reject(new HttpConnectionError(e.message, { cause: e }));
      });
      res.on('aborted', () => {
        done();
        socket.destroy();
        reject(new HttpConnectionError('java.net.ProtocolException: unexpected end of stream'));
      });
    });
    clientRequest.on('error', (e) => {
      done();
      socket.destroy();
      // No response headers: the server ended the stream first (Http1ExchangeCodec
      // readResponseHeaders) or the read timed out.
      const message = timedOut ? 'java.net.SocketTimeoutException: timeout' : `java.io.IOException: unexpected end of stream on http://127.0.0.1:${req.port}/...`;
      reject(new AttemptFailed(new HttpConnectionError(message, { cause: e }), !(timedOut && sent)));
    });
    if (req.body !== undefined) clientRequest.write(req.body);
    clientRequest.end();
  });
  work.catch(() => undefined);
  try {
    return await proc.guard(work);
  } finally {
    if (!proc.alive) socket.destroy();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(message)), ms);
    t.unref();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
