/**
 * HTTP from inside the app process: node:http over a connection from the device to
 * 127.0.0.1:PORT (reachable only through `adb reverse`, as on a phone). Timeouts follow
 * OkHttp's defaults (10 s connect, 10 s read: okhttp3.OkHttpClient.Builder). A refused or reset
 * connection, or a timeout, surfaces as HttpConnectionError, which the worker treats as
 * retryable; a process death aborts the request (ProcessDeath).
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

export async function httpRequest(context: AppContext, req: HttpRequest): Promise<HttpResponse> {
  const proc = context.process;
  proc.throwIfDead();
  let socket: Duplex;
  try {
    socket = await proc.guard(withTimeout(context.connect(req.port), CONNECT_TIMEOUT_MS, 'connect timed out'));
  } catch (e) {
    if (isProcessDeath(e)) throw e;
    // OkHttp 4 RealConnection.connectSocket: `catch (e: ConnectException) { throw
    // ConnectException("Failed to connect to ${route.socketAddress}").apply { initCause(e) } }`
    // (square/okhttp okhttp/src/main/kotlin/okhttp3/internal/connection/RealConnection.kt, 4.12);
    // the route's InetSocketAddress of the literal 127.0.0.1 prints as `/127.0.0.1:PORT`
    // (java.net.InetSocketAddress.toString: hostname empty when the address was not resolved
    // from a name). The message below is the exception's toString(), as an app logs it.
    const refused = (e as { code?: unknown }).code === 'ECONNREFUSED';
    throw new HttpConnectionError(
      refused ? `java.net.ConnectException: Failed to connect to /127.0.0.1:${req.port}` : `failed to connect to /127.0.0.1:${req.port}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  const work = new Promise<HttpResponse>((resolve, reject) => {
    const headers: Record<string, string> = { Host: `127.0.0.1:${req.port}`, 'User-Agent': 'okhttp/4.12.0', ...(req.headers ?? {}) };
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    const clientRequest = request({
      host: '127.0.0.1',
      port: req.port,
      method: req.method,
      path: req.path,
      headers,
      createConnection: () => socket,
    });
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => clientRequest.destroy(new Error('timeout')), READ_TIMEOUT_MS);
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
    clientRequest.on('response', (res) => {
      const chunks: Buffer[] = [];
      arm();
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        arm();
      });
      res.on('end', () => {
        done();
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', (e) => {
        done();
        reject(new HttpConnectionError(e.message, { cause: e }));
      });
      res.on('aborted', () => {
        done();
        reject(new HttpConnectionError('unexpected end of stream'));
      });
    });
    clientRequest.on('error', (e) => {
      done();
      socket.destroy();
      reject(new HttpConnectionError(e.message, { cause: e }));
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
