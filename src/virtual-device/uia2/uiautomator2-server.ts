/**
 * The UiAutomator2 server inside the virtual device: what
 * `am instrument -w … io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner`
 * runs in the `io.appium.uiautomator2.server` process. Its one test
 * (io.appium.uiautomator2.server.test.AppiumUiAutomator2Server#startServer) starts an HTTP server
 * on the device's port 6790 (reached from the host through `adb forward tcp:N tcp:6790`) and
 * waits until a DELETE of the session stops it 15 ms after answering.
 *
 * The HTTP API is the part the Appium driver uses for a session (appium/appium-uiautomator2-driver
 * lib/uiautomator2-server/core.ts startSession and deleteSession, lib/driver.ts getDeviceDetails):
 * GET /status, GET /sessions, POST /session, GET /session/:id, DELETE /session/:id, and the device
 * details (pixel_ratio, system_bars, window/current/size, appium/device/info). Everything else
 * answers 404 `unknown command` as the real server does for an unknown route: the model has no
 * UI hierarchy, so element, screenshot and gesture commands are not available.
 *
 * Source: appium/appium-uiautomator2-server @10.6.2 app/src/main/java/io/appium/uiautomator2/
 * (server/ServerConfig.java DEFAULT_SERVER_PORT 6790; http/ServerHandler.java: `/wd/hub` prefix
 * stripped, keep-alive, unknown routes → UnknownCommandException; http/AppiumResponse.java:
 * `{"sessionId":…,"value":…}` as application/json, errors `{error,message,stacktrace}`;
 * handler/Status.java, GetSessions.java, NewSession.java, DeleteSession.java,
 * GetDeviceInfo.java, GetDevicePixelRatio.java, GetSystemBars.java, GetDeviceSize.java;
 * model/api/*Model.java field names), androidTestServer/…/AppiumUiAutomator2Server.java; the
 * server APK's versionName/versionCode come from the installed package.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { AndroidSystem } from '../system/android-system.js';
import { InstrumentationCode, type ActiveInstrumentation } from '../system/instrumentation.js';
import { LogPriority } from '../types.js';

export const SERVER_PACKAGE = 'io.appium.uiautomator2.server';
export const TEST_PACKAGE = 'io.appium.uiautomator2.server.test';
export const RUNNER_CLASS = 'androidx.test.runner.AndroidJUnitRunner';
export const SERVER_PORT = 6790;
const TEST_CLASS = 'io.appium.uiautomator2.server.test.AppiumUiAutomator2Server';
const TEST_METHOD = 'startServer';
const LOG_TAG = 'appium';

/** What the emulator image's display reports (sdk_gphone64_x86_64: 1080x2400, 420 dpi, 63 px status bar). */
const DISPLAY = { width: 1080, height: 2400, densityDpi: 420, statusBar: 63 } as const;

interface Session {
  readonly id: string;
  readonly capabilities: Record<string, unknown>;
}

/** W3C error codes and HTTP statuses the server's exceptions carry (UiAutomator2Exception subclasses). */
const Errors = {
  unknownCommand: { error: 'unknown command', status: 404, message: 'The requested resource could not be found, or a request was received using an HTTP method that is not supported by the mapped resource' },
  invalidSession: { error: 'invalid session id', status: 404, message: 'A session is either terminated or not started' },
  invalidArgument: { error: 'invalid argument', status: 400, message: '' },
  sessionNotCreated: { error: 'session not created', status: 500, message: '' },
} as const;

class Uia2HttpServer {
  private session: Session | undefined;
  private readonly server: http.Server;
  private readonly sockets = new Set<Duplex>();
  private listener: { close(): void } | undefined;
  private stopping = false;

  constructor(
    private readonly system: AndroidSystem,
    private readonly run: ActiveInstrumentation,
  ) {
    this.server = http.createServer({ keepAlive: true }, (req, res) => {
      void this.handle(req, res);
    });
  }

  start(): void {
    this.listener = this.system.device.network.listen(SERVER_PORT, (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      // Any Duplex stream can be injected as an HTTP connection (node:http 'connection' event).
      this.server.emit('connection', socket);
    });
    this.log(LogPriority.I, `AppiumServer started at port ${SERVER_PORT}`);
  }

  /** Closes the listening port and every open connection. */
  close(): void {
    this.listener?.close();
    this.listener = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.server.close();
  }

  private log(priority: LogPriority, message: string): void {
    const p = this.run.process;
    if (!p.alive) return;
    this.system.device.logs.write({ buffer: 'main', priority, tag: LOG_TAG, message, pid: p.pid, tid: p.pid, uid: p.uid });
  }

  private send(res: http.ServerResponse, status: number, sessionId: string | null, value: unknown): void {
    const body = JSON.stringify({ sessionId, value });
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), pragma: 'no-cache', 'cache-control': 'no-store' });
    res.end(body);
  }

  private fail(res: http.ServerResponse, sessionId: string | null, kind: (typeof Errors)[keyof typeof Errors], message?: string): void {
    this.send(res, kind.status, sessionId, { error: kind.error, message: message ?? kind.message, stacktrace: `io.appium.uiautomator2.common.exceptions.${kind.error.replace(/ (\w)/g, (_m, c: string) => c.toUpperCase())}Exception: ${message ?? kind.message}` });
  }

  private async body(req: http.IncomingMessage): Promise<unknown> {
    const parts: Buffer[] = [];
    for await (const chunk of req) parts.push(chunk as Buffer);
    const text = Buffer.concat(parts).toString('utf8');
    if (text.trim() === '') return {};
    return JSON.parse(text) as unknown;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/wd/hub')) path = path.slice('/wd/hub'.length) || '/';
    const method = req.method ?? 'GET';
    this.log(LogPriority.I, `channel read: ${method} ${path}`);
    let body: unknown;
    try {
      body = await this.body(req);
    } catch {
      this.fail(res, null, Errors.invalidArgument, 'The request body is not valid JSON');
      return;
    }
    const parts = path.split('/').filter((p) => p !== '');
    if (method === 'GET' && path === '/status') {
      const pkg = this.system.packages.get(SERVER_PACKAGE);
      this.send(res, 200, null, {
        ready: true,
        message: 'UiAutomator2 Server is ready to accept commands',
        build: { version: pkg?.versionName ?? '', versionCode: pkg?.versionCode ?? 0 },
      });
      return;
    }
    if (method === 'GET' && path === '/sessions') {
      this.send(res, 200, null, this.session === undefined ? [] : [{ id: this.session.id, sessionId: this.session.id, capabilities: this.session.capabilities }]);
      return;
    }
    if (method === 'POST' && path === '/session') {
      const caps = (body as { capabilities?: unknown }).capabilities;
      if (caps === undefined || caps === null || typeof caps !== 'object') {
        this.fail(res, null, Errors.sessionNotCreated, "'capabilities' are mandatory for session creation");
        return;
      }
      const id = randomUUID();
      this.session = { id, capabilities: caps as Record<string, unknown> };
      this.log(LogPriority.I, `Created the new session with id ${id}`);
      this.send(res, 200, id, { sessionId: id, capabilities: caps });
      return;
    }
    if (parts[0] !== 'session' || parts[1] === undefined) {
      this.fail(res, null, Errors.unknownCommand);
      return;
    }
    const sid = parts[1];
    if (this.session === undefined || this.session.id !== sid) {
      this.fail(res, sid, Errors.invalidSession, `The session identified by ${sid} is not known`);
      return;
    }
    const rest = parts.slice(2).join('/');
    if (method === 'DELETE' && rest === '') {
      this.session = undefined;
      this.send(res, 200, sid, null);
      // DeleteSession: the server stops 15 ms after the response went out.
      setTimeout(() => this.stop(), 15);
      return;
    }
    if (method !== 'GET') {
      this.fail(res, sid, Errors.unknownCommand);
      return;
    }
    switch (rest) {
      case '':
        this.send(res, 200, sid, this.session.capabilities);
        return;
      case 'appium/device/pixel_ratio':
        this.send(res, 200, sid, DISPLAY.densityDpi / 160);
        return;
      case 'appium/device/system_bars':
        this.send(res, 200, sid, { statusBar: DISPLAY.statusBar });
        return;
      case 'window/current/size':
        this.send(res, 200, sid, { width: DISPLAY.width, height: DISPLAY.height });
        return;
      case 'appium/device/info': {
        const props = this.system.device.props;
        this.send(res, 200, sid, {
          androidId: this.system.settings.get('secure', 'android_id') ?? null,
          manufacturer: props.get('ro.product.manufacturer') ?? null,
          model: props.get('ro.product.model') ?? null,
          brand: props.get('ro.product.brand') ?? 'google',
          apiVersion: props.get('ro.build.version.sdk') ?? null,
          platformVersion: props.get('ro.build.version.release') ?? null,
          carrierName: null,
          realDisplaySize: `${DISPLAY.width}x${DISPLAY.height}`,
          displayDensity: DISPLAY.densityDpi,
          networks: [],
          locale: 'en_US',
          timeZone: props.get('persist.sys.timezone') ?? 'UTC',
          bluetooth: null,
        });
        return;
      }
      default:
        this.fail(res, sid, Errors.unknownCommand);
    }
  }

  /** ServerInstrumentation.stop: the test method returns and the instrumentation finishes. */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.close();
    const seconds = ((this.system.device.clock.elapsedRealtime() - this.run.startedElapsedMs) / 1000).toFixed(3);
    this.run.sendStatus(0, testBundle('.'));
    this.run.finish(InstrumentationCode.OK, new Map([['stream', `\n\nTime: ${seconds}\n\nOK (1 test)\n\n`]]));
  }
}

/** The status bundle AndroidJUnitRunner's InstrumentationResultPrinter sends for the one test. */
function testBundle(stream: string): ReadonlyMap<string, string> {
  return new Map([
    ['class', TEST_CLASS],
    ['current', '1'],
    ['id', 'AndroidJUnitRunner'],
    ['numtests', '1'],
    ['stream', stream],
    ['test', TEST_METHOD],
  ]);
}

/** The InstrumentationRunner registered for io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner. */
export function runUiAutomator2Server(run: ActiveInstrumentation, system: AndroidSystem): void {
  // INSTRUMENTATION_STATUS_CODE 1 = test started.
  run.sendStatus(1, testBundle(`\n${TEST_CLASS}:`));
  const server = new Uia2HttpServer(system, run);
  run.process.onDeath(() => server.close());
  try {
    server.start();
  } catch (e) {
    // The port is taken (another server still listens): the test fails and the run ends.
    run.sendStatus(-2, testBundle(`\nError in ${TEST_METHOD}(${TEST_CLASS}):\n${e instanceof Error ? e.message : String(e)}\n`));
    run.finish(InstrumentationCode.OK, new Map([['stream', '\n\nTime: 0.1\nThere was 1 failure:\n\nFAILURES!!!\nTests run: 1,  Failures: 1\n\n']]));
  }
}
