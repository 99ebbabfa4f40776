/**
 * The Appium server or WebDriver hub of `run --appium URL`: the endpoint a URL names, and a
 * check that something answers there. Loads no WebDriver code.
 */
import { DedupVerifyError, ErrorCode, UsageError } from '../errors.js';

/** An Appium server, a Selenium Grid hub, appium-device-farm or a cloud farm's hub. */
export interface AppiumEndpoint {
  readonly protocol: 'http' | 'https';
  readonly hostname: string;
  readonly port: number;
  /** The WebDriver base path: `/` for Appium 2 and 3, `/wd/hub` for a Grid 3 or a cloud hub. */
  readonly path: string;
  /** Credentials from the URL (`https://USER:KEY@hub.example/wd/hub`), as cloud farms take them. */
  readonly user?: string;
  readonly key?: string;
}

/**
 * The endpoint of a URL such as `http://127.0.0.1:4723` or `https://USER:KEY@hub.example/wd/hub`.
 * A URL without a port uses its protocol's (80, 443). `flag` names the input in the error.
 */
export function parseAppiumUrl(text: string, flag: string): AppiumEndpoint {
  const example = `e.g. ${flag} http://127.0.0.1:4723 (a local Appium server) or ${flag} https://USER:KEY@hub.example.com/wd/hub`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag} takes the URL of an Appium server or WebDriver hub (got "${text}"), ${example}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${flag} takes an http:// or https:// URL (got "${text}"), ${example}.`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(`${flag} takes the server's base URL without a query or fragment (got "${text}"); capabilities go in --caps.`);
  }
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : '/';
  return {
    protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port !== '' ? Number(url.port) : protocol === 'https' ? 443 : 80,
    path,
    ...(url.username !== '' ? { user: decodeURIComponent(url.username) } : {}),
    ...(url.password !== '' ? { key: decodeURIComponent(url.password) } : {}),
  };
}

/** The endpoint as a URL without its credentials (for messages and progress lines). */
export function describeAppiumEndpoint(endpoint: AppiumEndpoint): string {
  const host = endpoint.hostname.includes(':') ? `[${endpoint.hostname}]` : endpoint.hostname;
  return `${endpoint.protocol}://${host}:${endpoint.port}${endpoint.path === '/' ? '' : endpoint.path}`;
}

/**
 * Checks that an HTTP server answers at the endpoint (`GET <path>/status`, which Appium, the
 * Grid and the hubs of cloud farms serve). Any HTTP answer counts: a hub may want credentials
 * for `/status`; only a connection that fails or stays silent is refused.
 */
export async function probeAppiumServer(endpoint: AppiumEndpoint, timeoutMs = 10_000): Promise<void> {
  const url = `${describeAppiumEndpoint(endpoint)}/status`;
  const headers: Record<string, string> =
    endpoint.user !== undefined ? { authorization: `Basic ${Buffer.from(`${endpoint.user}:${endpoint.key ?? ''}`).toString('base64')}` } : {};
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
    const reason = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : String(cause);
    throw new DedupVerifyError(
      ErrorCode.Appium,
      `No Appium server answers at ${describeAppiumEndpoint(endpoint)} (GET /status: ${reason.replace(/\s+/g, ' ')}). Start one (\`ANDROID_HOME=/path/to/sdk npx appium --allow-insecure uiautomator2:adb_shell --use-drivers uiautomator2\`) or fix the URL given to --appium.`,
      { cause: e },
    );
  }
}

