/** A tiny XML reader for well-formed reporter output: elements, attributes, text, the five entities. */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

function decode(s: string): string {
  return s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] ?? '');
}

export function parseXml(xml: string): XmlNode {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`bad XML at ${i}: ${what}: ${JSON.stringify(xml.slice(i, i + 40))}`);
  };
  const skipSpace = (): void => {
    while (i < xml.length && /\s/.test(xml[i]!)) i++;
  };
  if (xml.startsWith('<?xml')) {
    const end = xml.indexOf('?>');
    if (end < 0) fail('unterminated declaration');
    i = end + 2;
  }
  const element = (): XmlNode => {
    skipSpace();
    if (xml[i] !== '<') fail('expected <');
    i++;
    const name = /^[A-Za-z_][\w.-]*/.exec(xml.slice(i))?.[0] ?? fail('expected a name');
    i += name.length;
    const node: XmlNode = { name, attrs: {}, children: [], text: '' };
    for (;;) {
      skipSpace();
      if (xml.startsWith('/>', i)) {
        i += 2;
        return node;
      }
      if (xml[i] === '>') {
        i++;
        break;
      }
      const m = /^([A-Za-z_][\w.:-]*)="([^"<]*)"/.exec(xml.slice(i)) ?? fail('expected an attribute');
      if (m[1]! in node.attrs) fail(`duplicate attribute ${m[1]!}`);
      node.attrs[m[1]!] = decode(m[2]!);
      i += m[0].length;
    }
    for (;;) {
      const next = xml.indexOf('<', i);
      if (next < 0) fail('unterminated element');
      node.text += decode(xml.slice(i, next));
      i = next;
      if (xml.startsWith(`</${name}>`, i)) {
        i += name.length + 3;
        return node;
      }
      if (xml.startsWith('</', i)) fail(`mismatched end tag, open ${name}`);
      node.children.push(element());
    }
  };
  const root = element();
  skipSpace();
  if (i !== xml.length) fail('content after the root element');
  return root;
}

export function findAll(node: XmlNode, name: string): XmlNode[] {
  return [...(node.name === name ? [node] : []), ...node.children.flatMap((c) => findAll(c, name))];
}
