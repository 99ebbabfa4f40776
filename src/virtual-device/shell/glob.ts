/**
 * Shell patterns (POSIX "Pattern Matching Notation"): `*`, `?`, `[...]` / `[!...]`, with
 * backslash-escaped characters taken literally. Used by `case`, `${x#pat}` and pathname
 * expansion (where `*` and `?` never match `/` and a leading `.` must be matched explicitly).
 */
export function hasGlobChars(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '*' || c === '?' || c === '[') return true;
  }
  return false;
}

/** Removes backslash escapes (the literal text of a pattern without glob characters). */
export function unescapePattern(pattern: string): string {
  return pattern.replace(/\\(.)/gs, '$1');
}

/** Converts a pattern to a regular expression source (anchoring is up to the caller). */
export function patternToRegexSource(pattern: string, pathname: boolean): string {
  const any = pathname ? '[^/]' : '[\\s\\S]';
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n !== undefined) {
        out += escapeRegex(n);
        i++;
      } else out += '\\\\';
      continue;
    }
    if (c === '*') {
      out += `${any}*`;
      continue;
    }
    if (c === '?') {
      out += any;
      continue;
    }
    if (c === '[') {
      const cls = readBracket(pattern, i);
      if (cls !== undefined) {
        out += cls.source;
        i = cls.end;
        continue;
      }
      out += '\\[';
      continue;
    }
    out += escapeRegex(c);
  }
  return out;
}

function readBracket(pattern: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (pattern[i] === '!' || pattern[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  let first = true;
  for (; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === ']' && !first) return { source: `[${negate ? '^' : ''}${body}]`, end: i };
    first = false;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) return undefined;
      body += escapeClassChar(n);
      i++;
      continue;
    }
    if (c === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2);
      if (close > 0) {
        const name = pattern.slice(i + 2, close);
        const classes: Record<string, string> = {
          alpha: 'A-Za-z',
          digit: '0-9',
          alnum: 'A-Za-z0-9',
          upper: 'A-Z',
          lower: 'a-z',
          space: ' \\t\\n\\r\\f\\v',
          xdigit: '0-9A-Fa-f',
          punct: '!-\\/:-@\\[-`{-~',
        };
        body += classes[name] ?? '';
        i = close + 1;
        continue;
      }
    }
    body += c === '-' ? '-' : escapeClassChar(c);
  }
  return undefined;
}

function escapeRegex(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function escapeClassChar(c: string): string {
  return c.replace(/[\]\\^-]/g, '\\$&');
}

/** Whole-string match (`case`, `[[ == ]]`). */
export function matchPattern(pattern: string, text: string): boolean {
  return new RegExp(`^${patternToRegexSource(pattern, false)}$`).test(text);
}

/** `${x#pat}` / `${x##pat}` / `${x%pat}` / `${x%%pat}`. */
export function trimPattern(value: string, pattern: string, op: '#' | '##' | '%' | '%%'): string {
  const re = new RegExp(`^${patternToRegexSource(pattern, false)}$`);
  if (op === '#' || op === '##') {
    const order = op === '#' ? range(0, value.length) : range(value.length, 0);
    for (const n of order) if (re.test(value.slice(0, n))) return value.slice(n);
    return value;
  }
  const order = op === '%' ? range(value.length, 0) : range(0, value.length);
  for (const n of order) if (re.test(value.slice(n))) return value.slice(0, n);
  return value;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  if (from <= to) for (let i = from; i <= to; i++) out.push(i);
  else for (let i = from; i >= to; i--) out.push(i);
  return out;
}

/** A pathname-expansion matcher for one path component. */
export function componentMatcher(pattern: string): (name: string) => boolean {
  const re = new RegExp(`^${patternToRegexSource(pattern, true)}$`);
  const explicitDot = pattern.startsWith('.') || pattern.startsWith('\\.');
  return (name) => (name.startsWith('.') && !explicitDot ? false : re.test(name));
}
