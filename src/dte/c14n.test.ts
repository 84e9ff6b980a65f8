import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { C14nCanonicalization } from 'xml-crypto';
import { canonicalize, canonicalizeInContext, parseXml } from './c14n.ts';
import { canonicalInEnvelope, isOwnCanonicalDte, NS_XSI } from './envelope.ts';
import { decodeXml } from './xml-decode.ts';
import { NS_SII } from './dte-xml.ts';
import { OFFICIAL_ENVIO, REAL_DTE_DIR } from '../../test/support/dte/sii-fixtures.ts';
import { createTestKit, sampleDteInput } from '../../test/support/dte/fixtures.ts';
import { SUPPORTED_TIPOS_DTE } from './types.ts';

const kit = createTestKit();

function viaXmlCrypto(text: string): string {
  const root = parseXml(text).documentElement;
  return new C14nCanonicalization().process(root as unknown as Parameters<C14nCanonicalization['process']>[0], {});
}

function ours(text: string): string {
  const root = parseXml(text).documentElement;
  if (!root) throw new Error('empty');
  return canonicalize(root);
}

describe('C14N', () => {
  const samples: [string, string][] = [
    ['official envelope', decodeXml(readFileSync(OFFICIAL_ENVIO))],
    ...readdirSync(REAL_DTE_DIR)
      .filter((f) => f.endsWith('.xml'))
      .map((f): [string, string] => [f, decodeXml(readFileSync(path.join(REAL_DTE_DIR, f)))]),
    ...SUPPORTED_TIPOS_DTE.map((t): [string, string] => [`our DTE ${t}`, kit.build(sampleDteInput(t)).xml.toString('latin1')]),
    [
      'mixed namespaces',
      '<a xmlns="urn:x" xmlns:b="urn:b" z="1" b:y="2" a="3"><b:c xmlns:b="urn:b"><d xmlns="">t&amp;&lt;&gt;"\'</d></b:c><!--c--><e/></a>',
    ],
  ];

  it.each(samples)('agrees with xml-crypto on %s', (_name, text) => {
    expect(ours(text)).toBe(viaXmlCrypto(text));
  });

  it('renders inherited namespaces on the apex only', () => {
    const doc = parseXml('<r xmlns="urn:r" xmlns:p="urn:p"><s ID="1"><t/></s></r>');
    const s = doc.getElementsByTagName('s').item(0);
    if (!s) throw new Error('no s');
    expect(canonicalize(s)).toBe('<s xmlns="urn:r" xmlns:p="urn:p" ID="1"><t></t></s>');
    expect(canonicalize(s, { ignoreAncestors: true })).toBe('<s ID="1"><t></t></s>');
  });
});

describe('DTEs spliced into an envelope', () => {
  const context = new Map([
    ['', NS_SII],
    ['xsi', NS_XSI],
  ]);

  it.each(SUPPORTED_TIPOS_DTE)('fast path equals parse + C14N in context for type %i', (t) => {
    const dte = kit
      .build(sampleDteInput(t))
      .xml.toString('latin1')
      .replace(/^<\?xml[^>]*>\n/, '');
    expect(isOwnCanonicalDte(dte)).toBe(true);
    const root = parseXml(dte).documentElement;
    if (!root) throw new Error('empty');
    expect(canonicalInEnvelope(dte)).toBe(canonicalizeInContext(root, context));
  });

  it('foreign DTEs take the generic path', () => {
    const foreign = decodeXml(readFileSync(path.join(REAL_DTE_DIR, 'DTE--76354771-K--33--170--cleaned.xml'))).replace(
      /^<\?xml[^>]*>\s*/,
      '',
    );
    expect(isOwnCanonicalDte(foreign)).toBe(false);
    expect(canonicalInEnvelope(foreign)).toMatch(/^<DTE version="1.0">\s*<Documento ID="MiPE76354771-13419">/);
  });
});
