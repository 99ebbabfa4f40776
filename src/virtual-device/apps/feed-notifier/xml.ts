/**
 * A small, tolerant XML reader for feeds: elements, attributes, text, CDATA, comments,
 * processing instructions and the predefined/numeric entities (XML 1.0 §4.6). It builds a tree;
 * names keep their prefix (`atom:link`) and `localName` strips it. Malformed input never throws:
 * unclosed elements are closed at the end, as a lenient pull parser would report them.
 */

export interface XmlElement {
  readonly name: string;
  readonly localName: string;
  readonly attrs: ReadonlyMap<string, string>;
  readonly children: XmlElement[];
  /** Concatenated character data directly inside this element. */
  text: string;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return safeCodePoint(parseInt(ref.slice(2), 16)) ?? whole;
    if (ref.startsWith('#')) return safeCodePoint(parseInt(ref.slice(1), 10)) ?? whole;
    return ENTITIES[ref] ?? whole;
  });
}

function safeCodePoint(cp: number): string | undefined {
  if (!Number.isFinite(cp) || cp < 0 || cp > 0x10ffff) return undefined;
  return String.fromCodePoint(cp);
}

function localNameOf(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

function parseAttributes(s: string): Map<string, string> {
  const attrs = new Map<string, string>();
  const re = /([^\s=/]+)\s*=\s*("([^"]*)"|'([^']*)')/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) attrs.set(m[1]!, decodeEntities(m[3] ?? m[4] ?? ''));
  return attrs;
}

/** Parses a document and returns its root element (a synthetic `#document` holding top-level elements). */
export function parseXml(input: string): XmlElement {
  const root: XmlElement = { name: '#document', localName: '#document', attrs: new Map(), children: [], text: '' };
  const stack: XmlElement[] = [root];
  let i = 0;
  const top = (): XmlElement => stack[stack.length - 1]!;
  while (i < input.length) {
    const lt = input.indexOf('<', i);
    if (lt < 0) {
      top().text += decodeEntities(input.slice(i));
      break;
    }
    if (lt > i) top().text += decodeEntities(input.slice(i, lt));
    if (input.startsWith('<!--', lt)) {
      const end = input.indexOf('-->', lt + 4);
      i = end < 0 ? input.length : end + 3;
      continue;
    }
    if (input.startsWith('<![CDATA[', lt)) {
      const end = input.indexOf(']]>', lt + 9);
      top().text += input.slice(lt + 9, end < 0 ? input.length : end);
      i = end < 0 ? input.length : end + 3;
      continue;
    }
    if (input.startsWith('<?', lt)) {
      const end = input.indexOf('?>', lt + 2);
      i = end < 0 ? input.length : end + 2;
      continue;
    }
    if (input.startsWith('<!', lt)) {
      const end = input.indexOf('>', lt + 2);
      i = end < 0 ? input.length : end + 1;
      continue;
    }
    const gt = findTagEnd(input, lt + 1);
    if (gt < 0) break;
    const body = input.slice(lt + 1, gt);
    i = gt + 1;
    if (body.startsWith('/')) {
      const name = body.slice(1).trim();
      for (let k = stack.length - 1; k > 0; k--) {
        if (stack[k]!.name === name) {
          stack.length = k;
          break;
        }
      }
      continue;
    }
    const selfClosing = body.endsWith('/');
    const inner = selfClosing ? body.slice(0, -1) : body;
    const nameMatch = /^\s*([^\s/>]+)/.exec(inner);
    if (nameMatch === null) continue;
    const name = nameMatch[1]!;
    const el: XmlElement = { name, localName: localNameOf(name), attrs: parseAttributes(inner.slice(nameMatch[0].length)), children: [], text: '' };
    top().children.push(el);
    if (!selfClosing) stack.push(el);
  }
  return root;
}

/** Index of the `>` closing a tag, skipping `>` inside quoted attribute values. */
function findTagEnd(s: string, from: number): number {
  let quote: string | undefined;
  for (let k = from; k < s.length; k++) {
    const c = s[k];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return k;
  }
  return -1;
}

/** Direct children with this local name. */
export function childrenNamed(el: XmlElement, localName: string): XmlElement[] {
  return el.children.filter((c) => c.localName === localName);
}

export function firstChild(el: XmlElement, localName: string): XmlElement | undefined {
  return el.children.find((c) => c.localName === localName);
}

/** Depth-first search for descendants with this local name. */
export function descendantsNamed(el: XmlElement, localName: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement): void => {
    for (const c of e.children) {
      if (c.localName === localName) out.push(c);
      walk(c);
    }
  };
  walk(el);
  return out;
}
