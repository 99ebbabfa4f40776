/**
 * Why an app's fetch failed, from what its HTTP stack throws as an app logs it (the exception's
 * `toString()`, class name and message, or Log.w's stack trace, whose first line is the same).
 * Pure: the harness looks at the lines of a run that fetched nothing from the fixture server.
 *
 * The messages, by source:
 * - refused: OkHttp 4 `RealConnection.connectSocket` rethrows the platform's
 *   `ConnectException` as `ConnectException("Failed to connect to ${route.socketAddress}")`
 *   (square/okhttp okhttp/src/main/kotlin/okhttp3/internal/connection/RealConnection.kt, 4.x);
 *   the cause, from libcore `IoBridge.connect`, ends `ECONNREFUSED (Connection refused)`
 *   (aosp-mirror/platform_libcore luni/src/main/java/libcore/io/IoBridge.java).
 * - cleartext refused by the network security config: OkHttp 4 `RealConnection.connect`
 *   throws `UnknownServiceException("CLEARTEXT communication to $host not permitted by network
 *   security policy")` (same file); the platform's HttpURLConnection (AOSP's repackaged OkHttp)
 *   throws `IOException("Cleartext HTTP traffic to " + host + " not permitted")`
 *   (aosp-mirror/platform_external_okhttp android/main/java/com/squareup/okhttp/HttpHandler.java,
 *   CleartextURLFilter.checkURLPermitted).
 * - unknown host: libcore `Inet6AddressImpl.lookupHostByName` throws
 *   `UnknownHostException("Unable to resolve host \"" + host + "\": " + gai_strerror(error))`
 *   (aosp-mirror/platform_libcore luni/src/main/java/java/net/Inet6AddressImpl.java), which
 *   OkHttp's `Dns.SYSTEM` lets through. `Log.w(tag, msg, tr)` prints no stack trace for it
 *   (android.util.Log.getStackTraceString returns "" when an UnknownHostException is in the
 *   cause chain: frameworks/base core/java/android/util/Log.java), so only an app that logs the
 *   exception itself shows the message.
 * - timeout: `java.net.SocketTimeoutException` (libcore IoBridge's connect timeout, Okio's
 *   `AsyncTimeout` "timeout" for a read).
 */
import type { FetchErrorCause } from '../../history/events.js';

const PATTERNS: readonly { readonly cause: FetchErrorCause; readonly pattern: RegExp }[] = [
  { cause: 'cleartext-not-permitted', pattern: /CLEARTEXT communication to \S+ not permitted by network security policy|Cleartext HTTP traffic to \S+ not permitted/ },
  { cause: 'unknown-host', pattern: /java\.net\.UnknownHostException|Unable to resolve host "/ },
  { cause: 'connection-refused', pattern: /java\.net\.ConnectException: Failed to connect to |ECONNREFUSED \(Connection refused\)/ },
  { cause: 'timeout', pattern: /java\.net\.SocketTimeoutException/ },
];

/** The cause a log message names, or undefined when it is not a fetch error this knows. */
export function parseFetchError(message: string): FetchErrorCause | undefined {
  return PATTERNS.find((p) => p.pattern.test(message))?.cause;
}
