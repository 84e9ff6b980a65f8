/**
 * The CAF file as SimpleAPI hands it over [C "Folios / Get Folios", "Exito", recorded 2022-04-17;
 * D9]: `<?xml version="1.0"?>`, then every element on its own line indented four spaces per level;
 * an element holding only text stays on one line with its text untouched (so RSASK and RSAPUBK
 * keep their PEM lines, and M, FRMA their base64). FRMA was computed by the SII over the
 * *flattened* DA, which re-indenting does not change: verifiers flatten before checking.
 *
 * Note (docs/emulator.md): the recorded example's Content-Length (1196) is exactly the length of
 * the same CAF in the SII's own layout (unindented, RNG and RSAPK on one line), while the stored
 * example (1412 bytes) is indented like every other example Postman pretty-printed. We follow D9
 * and serve the indented form; `layout: 'sii'` serves the SII's bytes as issued.
 */
interface Element {
  open: string;
  name: string;
  children: (Element | string)[];
}

const TOKEN = /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<\/?[^>]+>|[^<]+/g;

function parse(xml: string): Element {
  const root: Element = { open: '', name: '#root', children: [] };
  const stack: Element[] = [root];
  for (const [tok] of xml.matchAll(TOKEN)) {
    const top = stack[stack.length - 1]!;
    if (tok.startsWith('<?') || tok.startsWith('<!--')) continue;
    if (tok.startsWith('</')) {
      if (stack.length > 1) stack.pop();
    } else if (tok.startsWith('<')) {
      const el: Element = { open: tok, name: /^<([^\s/>]+)/.exec(tok)?.[1] ?? '', children: [] };
      top.children.push(el);
      if (!tok.endsWith('/>')) stack.push(el);
    } else top.children.push(tok);
  }
  return root;
}

function write(el: Element, depth: number, indent: string, out: string[]): void {
  const pad = indent.repeat(depth);
  const elements = el.children.filter((c): c is Element => typeof c !== 'string');
  if (el.open.endsWith('/>')) {
    out.push(pad + el.open);
  } else if (elements.length === 0) {
    out.push(`${pad}${el.open}${el.children.join('')}</${el.name}>`);
  } else {
    out.push(pad + el.open);
    for (const c of elements) write(c, depth + 1, indent, out);
    out.push(`${pad}</${el.name}>`);
  }
}

/** Re-indents an XML document of elements and text (no mixed content, as in a CAF). */
export function reindentXml(xml: string, indent = '    '): string {
  const out: string[] = [];
  for (const c of parse(xml).children) if (typeof c !== 'string') write(c, 0, indent, out);
  return `<?xml version="1.0"?>\n${out.join('\n')}`;
}

export type CafLayout = 'indented' | 'sii';

/** The CAF bytes as served (ISO-8859-1 both ways: the text is Latin-1). */
export function cafAsServed(siiBytes: Buffer, layout: CafLayout): Buffer {
  return layout === 'sii' ? siiBytes : Buffer.from(reindentXml(siiBytes.toString('latin1')), 'latin1');
}
