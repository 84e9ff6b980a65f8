import { DOMParser, onErrorStopParsing } from '@xmldom/xmldom';
import type { Document, Element, Node } from '@xmldom/xmldom';
import { escapeAttr, escapeText } from './xml-escape.ts';
import { DteEngineError } from './errors.ts';

/**
 * Inclusive Canonical XML 1.0 (without comments) of one element and its descendants, as produced
 * for a same-document reference (`URI="#id"`) followed by the C14N transform, or for SignedInfo.
 * Used only to verify foreign documents and to cross-check our own output; for documents we build
 * we emit canonical text directly and never parse (see xmldsig.ts).
 *
 * Invariants (W3C C14N 1.0 §2.3, document subsets):
 *  - the apex element carries every namespace in scope (inherited from ancestors too) and the
 *    inherited `xml:*` attributes; descendants only carry declarations that differ from their
 *    nearest output ancestor; `xmlns=""` is written only to undo a non-empty default;
 *  - namespace declarations first (default first, then by prefix), then attributes by
 *    (namespace URI, local name), no-namespace attributes first;
 *  - text escapes & < > CR; attributes escape & < " TAB LF CR; comments are dropped; empty
 *    elements are written as start/end pairs.
 */
export interface C14nOptions {
  /** Ignore namespaces declared on ancestors of the apex (the TED "namespace-less" form). */
  ignoreAncestors?: boolean;
  /** Extra in-scope declarations treated as inherited (e.g. an envelope's xmlns that SII applied). */
  extraInherited?: ReadonlyMap<string, string>;
}

const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';

function isElement(n: Node | null | undefined): n is Element {
  return !!n && n.nodeType === 1;
}

/** Namespace declarations made on one element: prefix ('' for default) → URI ('' undeclares). */
function ownDeclarations(e: Element): Map<string, string> {
  const out = new Map<string, string>();
  const attrs = e.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs.item(i);
    if (!a) continue;
    if (a.name === 'xmlns') out.set('', a.value);
    else if (a.name.startsWith('xmlns:')) out.set(a.name.slice(6), a.value);
  }
  return out;
}

function inheritedScope(e: Element, opts: C14nOptions): { scope: Map<string, string>; xmlAttrs: Map<string, string> } {
  const scope = new Map<string, string>(opts.extraInherited ?? []);
  const xmlAttrs = new Map<string, string>();
  if (opts.ignoreAncestors) return { scope, xmlAttrs };
  const chain: Element[] = [];
  for (let p = e.parentNode; isElement(p); p = p.parentNode) chain.unshift(p);
  for (const anc of chain) {
    for (const [k, v] of ownDeclarations(anc)) scope.set(k, v);
    const attrs = anc.attributes;
    for (let i = 0; i < attrs.length; i++) {
      const a = attrs.item(i);
      if (a && a.name.startsWith('xml:')) xmlAttrs.set(a.name, a.value);
    }
  }
  return { scope, xmlAttrs };
}

export function canonicalize(e: Element, opts: C14nOptions = {}): string {
  const { scope, xmlAttrs } = inheritedScope(e, opts);
  const out: string[] = [];
  renderElement(e, scope, new Map(), out, xmlAttrs);
  return out.join('');
}

/**
 * Canonical form of `e` (a document root parsed on its own) as it renders when placed inside an
 * output ancestor that already declares `context` (e.g. a DTE inside an envelope's SetDTE, which
 * declares the SiiDte default namespace and xsi): declarations equal to the context are dropped.
 */
export function canonicalizeInContext(e: Element, context: ReadonlyMap<string, string>): string {
  const out: string[] = [];
  renderElement(e, new Map(context), new Map(context), out, null);
  return out.join('');
}

function renderElement(
  e: Element,
  parentScope: Map<string, string>,
  rendered: Map<string, string>,
  out: string[],
  inheritedXmlAttrs: Map<string, string> | null,
): void {
  const scope = new Map(parentScope);
  for (const [k, v] of ownDeclarations(e)) scope.set(k, v);

  const nsOut: [string, string][] = [];
  const nowRendered = new Map(rendered);
  for (const [prefix, uri] of scope) {
    if (prefix === 'xml') continue;
    if (prefix === '') {
      const prev = rendered.get('') ?? '';
      if (uri !== prev) {
        nsOut.push(['', uri]);
        nowRendered.set('', uri);
      }
      continue;
    }
    if (uri === '') continue; // XML 1.1 prefix undeclaration: no namespace node
    if (rendered.get(prefix) !== uri) {
      nsOut.push([prefix, uri]);
      nowRendered.set(prefix, uri);
    }
  }
  nsOut.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

  const attrsOut: { uri: string; local: string; name: string; value: string }[] = [];
  const attrs = e.attributes;
  const seenXml = new Set<string>();
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs.item(i);
    if (!a) continue;
    if (a.name === 'xmlns' || a.name.startsWith('xmlns:') || a.namespaceURI === XMLNS_NS) continue;
    if (a.name.startsWith('xml:')) seenXml.add(a.name);
    attrsOut.push({ uri: a.namespaceURI ?? '', local: a.localName ?? a.name, name: a.name, value: a.value });
  }
  if (inheritedXmlAttrs) {
    for (const [name, value] of inheritedXmlAttrs) {
      if (!seenXml.has(name)) attrsOut.push({ uri: XML_NS, local: name.slice(4), name, value });
    }
  }
  attrsOut.sort((a, b) => (a.uri !== b.uri ? (a.uri < b.uri ? -1 : 1) : a.local < b.local ? -1 : a.local > b.local ? 1 : 0));

  let tag = `<${e.tagName}`;
  for (const [prefix, uri] of nsOut) tag += prefix === '' ? ` xmlns="${escapeAttr(uri)}"` : ` xmlns:${prefix}="${escapeAttr(uri)}"`;
  for (const a of attrsOut) tag += ` ${a.name}="${escapeAttr(a.value)}"`;
  out.push(tag, '>');

  for (let c = e.firstChild; c; c = c.nextSibling) {
    switch (c.nodeType) {
      case 1:
        renderElement(c as Element, scope, nowRendered, out, null);
        break;
      case 3:
      case 4:
        out.push(escapeText(c.nodeValue ?? ''));
        break;
      case 7: {
        const pi = c as unknown as { target: string; data: string };
        out.push(`<?${pi.target}${pi.data ? ' ' + pi.data : ''}?>`);
        break;
      }
      default:
        break; // comments (8) are not part of C14N without comments
    }
  }
  out.push(`</${e.tagName}>`);
}

/** Strict parse: any well-formedness error throws `xml_malformed`. */
export function parseXml(text: string): Document {
  try {
    return new DOMParser({ onError: onErrorStopParsing }).parseFromString(text, 'text/xml');
  } catch (err) {
    throw new DteEngineError('xml_malformed', `XML is not well formed: ${(err as Error).message.split('\n')[0] ?? ''}`);
  }
}

export function childElements(e: Element, localName?: string): Element[] {
  const out: Element[] = [];
  for (let c = e.firstChild; c; c = c.nextSibling) {
    if (isElement(c) && (localName === undefined || c.localName === localName)) out.push(c);
  }
  return out;
}

export function firstChild(e: Element, localName: string): Element | undefined {
  return childElements(e, localName)[0];
}

/** Text of the first descendant with this local name (depth-first), trimmed. */
export function descendantText(e: Element, localName: string): string | undefined {
  const found = e.getElementsByTagNameNS('*', localName).item(0);
  return found ? (found.textContent ?? '').trim() : undefined;
}

export function childText(e: Element, path: readonly string[]): string | undefined {
  let cur: Element | undefined = e;
  for (const p of path) {
    cur = cur ? firstChild(cur, p) : undefined;
  }
  return cur ? (cur.textContent ?? '').trim() : undefined;
}
