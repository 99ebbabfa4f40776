/**
 * IntentFilter matching for the activities `am start` resolves an intent to when it names no
 * component (an implicit intent, restricted to a package with `-p`).
 *
 * Sources (aosp-mirror/platform_frameworks_base):
 * - core/java/android/content/IntentFilter.java @b54e7a3d: match() checks the action (the
 *   filter lists it), then matchData(type, scheme, data), then matchCategories (every category
 *   of the intent is in the filter). matchData: a filter with neither schemes nor types takes only
 *   an intent with neither data nor type; with schemes, the intent's scheme must be one
 *   ("" when it has none), then an authority (AuthorityEntry: a host starting with `*` matches
 *   every host ending with the rest; a port when given), then a path (PatternMatcher) when the
 *   filter has paths; without schemes, only an intent whose scheme is none, "", "content" or
 *   "file"; then with types the intent's type must be one (findMimeType, with the `base/*` and
 *   any-type wildcards), and without types the intent must have no type (NO_MATCH_TYPE).
 * - core/java/android/os/PatternMatcher.java @01a7983f matchGlobPattern (PATTERN_SIMPLE_GLOB,
 *   android:pathPattern): `X*` zero or more X, `.` any character, `.*` any run, `\` escapes.
 * - services/core/java/com/android/server/wm/ActivityTaskSupervisor.java resolveIntent: an
 *   activity start resolves with PackageManager.MATCH_DEFAULT_ONLY, so only filters with
 *   android.intent.category.DEFAULT take an implicit intent.
 */
import type { IntentFilterSpec } from './app-framework.js';
import type { Intent } from './intent.js';

export const CATEGORY_DEFAULT = 'android.intent.category.DEFAULT';

/** The parts of a URI matchData reads (Uri.parse: scheme before the first ':', authority after '//'). */
interface UriParts {
  readonly scheme: string | undefined;
  readonly host: string | undefined;
  readonly port: number;
  readonly path: string | undefined;
}

function uriParts(data: string): UriParts {
  const colon = data.indexOf(':');
  const scheme = colon > 0 ? data.slice(0, colon) : undefined;
  const rest = colon > 0 ? data.slice(colon + 1) : data;
  if (!rest.startsWith('//')) return { scheme, host: undefined, port: -1, path: undefined };
  const afterAuthority = rest.slice(2).search(/[/\\?#]/);
  const authority = afterAuthority < 0 ? rest.slice(2) : rest.slice(2, 2 + afterAuthority);
  const tail = afterAuthority < 0 ? '' : rest.slice(2 + afterAuthority);
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const portAt = hostPort.lastIndexOf(':');
  const host = portAt >= 0 ? hostPort.slice(0, portAt) : hostPort;
  const port = portAt >= 0 && /^\d+$/.test(hostPort.slice(portAt + 1)) ? Number(hostPort.slice(portAt + 1)) : -1;
  const end = tail.search(/[?#]/);
  return { scheme, host: host.toLowerCase(), port, path: end < 0 ? tail : tail.slice(0, end) };
}

/** PatternMatcher.matchGlobPattern, as written there. */
export function matchGlobPattern(pattern: string, match: string): boolean {
  const NP = pattern.length;
  if (NP <= 0) return match.length <= 0;
  const NM = match.length;
  let ip = 0;
  let im = 0;
  let nextChar = pattern.charAt(0);
  while (ip < NP && im < NM) {
    let c = nextChar;
    ip++;
    nextChar = ip < NP ? pattern.charAt(ip) : '\0';
    const escaped = c === '\\';
    if (escaped) {
      c = nextChar;
      ip++;
      nextChar = ip < NP ? pattern.charAt(ip) : '\0';
    }
    if (nextChar === '*') {
      if (!escaped && c === '.') {
        if (ip >= NP - 1) return true;
        ip++;
        nextChar = pattern.charAt(ip);
        if (nextChar === '\\') {
          ip++;
          nextChar = ip < NP ? pattern.charAt(ip) : '\0';
        }
        do {
          if (match.charAt(im) === nextChar) break;
          im++;
        } while (im < NM);
        if (im === NM) return false;
        ip++;
        nextChar = ip < NP ? pattern.charAt(ip) : '\0';
        im++;
      } else {
        do {
          if (match.charAt(im) !== c) break;
          im++;
        } while (im < NM);
        ip++;
        nextChar = ip < NP ? pattern.charAt(ip) : '\0';
      }
    } else {
      if (c !== '.' && match.charAt(im) !== c) return false;
      im++;
    }
  }
  if (ip >= NP && im >= NM) return true;
  return ip === NP - 2 && pattern.charAt(ip) === '.' && pattern.charAt(ip + 1) === '*';
}

/** IntentFilter.findMimeType: the filter lists the type, or `base/*`, or the any-type wildcard. */
function findMimeType(types: readonly string[], type: string): boolean {
  if (types.includes(type)) return true;
  if (types.includes('*/*')) return true;
  const slash = type.indexOf('/');
  return slash > 0 && types.includes(`${type.slice(0, slash)}/*`);
}

/** IntentFilter.matchData: true when the data and type fit the filter. */
function matchData(filter: IntentFilterSpec, type: string | undefined, data: string | undefined): boolean {
  const { schemes, mimeTypes } = filter;
  if (schemes === undefined && mimeTypes === undefined) return type === undefined && data === undefined;
  const uri = data !== undefined ? uriParts(data) : undefined;
  const scheme = uri?.scheme;
  if (schemes !== undefined) {
    if (!schemes.includes(scheme ?? '')) return false;
    if (filter.hosts !== undefined) {
      const host = uri?.host;
      const hostOk = host !== undefined && filter.hosts.some((h) => (h.startsWith('*') ? host.endsWith(h.slice(1)) : host === h));
      if (!hostOk) return false;
      if (filter.pathPatterns !== undefined) {
        const path = uri?.path;
        if (path === undefined || !filter.pathPatterns.some((p) => matchGlobPattern(p, path))) return false;
      }
    }
  } else if (scheme !== undefined && scheme !== '' && scheme !== 'content' && scheme !== 'file') {
    return false;
  }
  if (mimeTypes !== undefined) return type !== undefined && findMimeType(mimeTypes, type);
  return type === undefined;
}

/** IntentFilter.match for an activity start (MATCH_DEFAULT_ONLY): action, data and type, categories. */
export function matchesActivityFilter(filter: IntentFilterSpec, intent: Intent): boolean {
  if (intent.action !== undefined && !filter.actions.includes(intent.action)) return false;
  if (!matchData(filter, intent.type, intent.data)) return false;
  const categories = filter.categories ?? [];
  if (!(intent.categories ?? []).every((c) => categories.includes(c))) return false;
  return categories.includes(CATEGORY_DEFAULT);
}
