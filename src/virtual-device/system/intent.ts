/**
 * android.content.Intent as the shell commands build it and print it.
 * Source: frameworks/base core/java/android/content/Intent.java (toString, toShortString,
 * flag constants) and ComponentName.java (flattenToShortString).
 */

/** Intent flag values (Intent.java). */
export const IntentFlag = {
  FLAG_EXCLUDE_STOPPED_PACKAGES: 0x00000010,
  FLAG_INCLUDE_STOPPED_PACKAGES: 0x00000020,
  FLAG_RECEIVER_FROM_SHELL: 0x00400000,
  FLAG_RECEIVER_FOREGROUND: 0x10000000,
  FLAG_RECEIVER_INCLUDE_BACKGROUND: 0x01000000,
  FLAG_ACTIVITY_NEW_TASK: 0x10000000,
} as const;
export type IntentFlag = (typeof IntentFlag)[keyof typeof IntentFlag];

export interface ComponentName {
  readonly packageName: string;
  /** Fully qualified class name. */
  readonly className: string;
}

export type IntentExtra = { type: 'string'; value: string } | { type: 'int'; value: number } | { type: 'long'; value: bigint } | { type: 'boolean'; value: boolean };

export interface Intent {
  action?: string;
  categories?: string[];
  data?: string;
  type?: string;
  flags: number;
  package?: string;
  component?: ComponentName;
  extras?: Map<string, IntentExtra>;
}

/** ComponentName.unflattenFromString: `pkg/cls` or `pkg/.Cls`; undefined when malformed. */
export function parseComponentName(s: string): ComponentName | undefined {
  const sep = s.indexOf('/');
  if (sep < 0 || sep + 1 >= s.length) return undefined;
  const packageName = s.slice(0, sep);
  let className = s.slice(sep + 1);
  if (className.startsWith('.')) className = packageName + className;
  return { packageName, className };
}

/** ComponentName.flattenToShortString: the class is shortened to `.Rest` when inside the package. */
export function flattenToShortString(c: ComponentName): string {
  const { packageName, className } = c;
  const short = className.startsWith(packageName) && className.charAt(packageName.length) === '.' ? className.slice(packageName.length) : className;
  return `${packageName}/${short}`;
}

/** ComponentName.flattenToString: `pkg/fully.qualified.Class`. */
export function flattenToString(c: ComponentName): string {
  return `${c.packageName}/${c.className}`;
}

/**
 * Uri.toSafeString() (aosp-mirror/platform_frameworks_base core/java/android/net/Uri.java
 * @1fd04218): the scheme-specific part of a tel, sip, sms, smsto, mailto or nfc URI with every
 * character but `-`, `@` and `.` as `x`; of an http, https, ftp or rtsp URI only
 * `//host[:port]/...`; otherwise the scheme-specific part without the fragment.
 */
export function toSafeString(uri: string): string {
  const colon = uri.indexOf(':');
  const scheme = colon >= 0 ? uri.slice(0, colon) : undefined;
  const hash = uri.indexOf('#', colon + 1);
  const encoded = uri.slice(colon + 1, hash < 0 ? undefined : hash);
  // getSchemeSpecificPart() is the decoded part (Uri.decode; a broken escape is left as it is here).
  let ssp: string;
  try {
    ssp = decodeURIComponent(encoded);
  } catch {
    ssp = encoded;
  }
  if (scheme === undefined) return ssp;
  const lower = scheme.toLowerCase();
  if (['tel', 'sip', 'sms', 'smsto', 'mailto', 'nfc'].includes(lower)) return `${scheme}:${ssp.replace(/[^-@.]/g, 'x')}`;
  if (['http', 'https', 'ftp', 'rtsp'].includes(lower)) {
    const authority = encoded.startsWith('//') ? (encoded.slice(2).split(/[/\\?#]/)[0] ?? '') : '';
    return `${scheme}://${authority.slice(authority.lastIndexOf('@') + 1)}/...`;
  }
  return `${scheme}:${ssp}`;
}

/**
 * Intent.toString(): `Intent { ` + toShortString(secure=true, comp=true, extras=true, clip=false)
 * + ` }`, fields in the order act, cat, dat, typ, flg, pkg, cmp, then `(has extras)`; with
 * secure=true the data is printed as Uri.toSafeString().
 */
export function intentToString(intent: Intent): string {
  const parts: string[] = [];
  if (intent.action !== undefined) parts.push(`act=${intent.action}`);
  if (intent.categories !== undefined && intent.categories.length > 0) parts.push(`cat=[${intent.categories.join(',')}]`);
  if (intent.data !== undefined) parts.push(`dat=${toSafeString(intent.data)}`);
  if (intent.type !== undefined) parts.push(`typ=${intent.type}`);
  if (intent.flags !== 0) parts.push(`flg=0x${(intent.flags >>> 0).toString(16)}`);
  if (intent.package !== undefined) parts.push(`pkg=${intent.package}`);
  if (intent.component !== undefined) parts.push(`cmp=${flattenToShortString(intent.component)}`);
  if (intent.extras !== undefined && intent.extras.size > 0) parts.push('(has extras)');
  return `Intent { ${parts.join(' ')} }`;
}
