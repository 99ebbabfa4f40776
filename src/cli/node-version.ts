/**
 * The Node.js version check that bin/dedup-verify.js runs before it loads anything else. Kept
 * free of imports and of syntax newer than ES2020 so that an old Node can load this module and
 * print the message instead of failing on a syntax error somewhere else.
 */

/** The oldest Node.js release dedup-verify runs on; the same as `engines.node` in package.json. */
export const MINIMUM_NODE = { major: 20, minor: 19, patch: 0 } as const;

/** `engines.node` as package.json states it. */
export const ENGINES_NODE = `>=${MINIMUM_NODE.major}.${MINIMUM_NODE.minor}.${MINIMUM_NODE.patch}`;

/**
 * Null when `version` (as in `process.versions.node`, e.g. "20.19.2") is supported; otherwise
 * the one-line message to print (without a trailing newline) before exiting with code 2.
 */
export function checkNodeVersion(version: string): string | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  const wanted = `${MINIMUM_NODE.major}.${MINIMUM_NODE.minor}`;
  if (match === null) {
    return `dedup-verify needs Node.js ${wanted} or newer and cannot read this Node's version "${version}". Install Node.js 20 LTS or later and try again.`;
  }
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const supported =
    major > MINIMUM_NODE.major ||
    (major === MINIMUM_NODE.major && (minor > MINIMUM_NODE.minor || (minor === MINIMUM_NODE.minor && patch >= MINIMUM_NODE.patch)));
  if (supported) return null;
  return `dedup-verify needs Node.js ${wanted} or newer (this is ${major}.${minor}.${patch}). Install Node.js 20 LTS (20.19+) or later, e.g. with \`nvm install 20\`, and try again.`;
}
