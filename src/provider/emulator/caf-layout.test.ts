import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { issueCaf, parseCaf, parseCafBlock, verifyCaf } from '../../dte/index.ts';
import { officialSiiKeys } from '../sii-keys.ts';
import { cafAsServed, reindentXml } from './caf-layout.ts';
import { ephemeralSiiKey } from './sii-key.ts';

/**
 * The CAF as SimpleAPI serves it [C "Folios / Get Folios", "Exito"; D9], and that the service's CAF
 * reader (src/dte/caf.ts) accepts it: the FRMA was computed over the flattened DA, whatever the
 * file's indentation.
 */
const FIXTURES = path.join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'simpleapi', 'recorded.json');
const recorded = (JSON.parse(fs.readFileSync(FIXTURES, 'utf8')) as { route: string; body: string }[]).find(
  (r) => r.route === 'folios',
)!.body;

/** Each line's indentation and tags, without the text (base64, PEM lines are not compared). */
const skeleton = (xml: string) =>
  xml
    .split('\n')
    .filter((l) => /^\s*</.test(l))
    .map((l) => `${/^ */.exec(l)![0]}${[...l.matchAll(/<\/?[A-Za-z]+/g)].map((m) => m[0]).join('')}`);

describe('CAF layout', () => {
  const key = ephemeralSiiKey();
  const issued = issueCaf({
    rutEmisor: '76192083-9',
    razonSocial: 'CONTRIBUYENTE ÑANDÚ LIMITADA',
    tipoDte: 33,
    desde: 203,
    hasta: 203,
    fechaAutorizacion: '2026-03-02',
    idk: 666,
    siiPrivateKey: key.privateKey,
  });

  it("serves the SII's CAF re-indented four spaces per level, as recorded", () => {
    const served = cafAsServed(issued.xml, 'indented').toString('latin1');
    expect(skeleton(served)).toEqual(skeleton(recorded));
    expect(served.startsWith('<?xml version="1.0"?>\n<AUTORIZACION>\n    <CAF version="1.0">')).toBe(true);
    // Text is untouched: the PEM keeps its lines, RS its Latin-1.
    const rsask = (x: string) => /<RSASK>[\s\S]*<\/RSASK>/.exec(x)![0];
    expect(rsask(served)).toBe(rsask(issued.xml.toString('latin1')));
    expect(rsask(served)).toMatch(/^<RSASK>-----BEGIN RSA PRIVATE KEY-----\n[\s\S]+\n-----END RSA PRIVATE KEY-----\n<\/RSASK>$/);
    expect(cafAsServed(issued.xml, 'indented').includes(Buffer.from('ÑANDÚ', 'latin1'))).toBe(true);
  });

  it("is accepted by the service's CAF reader in both layouts: FRMA verifies over the flattened DA", () => {
    for (const layout of ['indented', 'sii'] as const) {
      const c = parseCaf(cafAsServed(issued.xml, layout));
      expect(verifyCaf(c, { '666': key.publicKey })).toMatchObject({ valid: true, signatureValid: true, keyPairValid: true });
      expect([c.desde, c.hasta, c.razonSocial]).toEqual([203, 203, 'CONTRIBUYENTE ÑANDÚ LIMITADA']);
      expect(c.daBytes.equals(issued.caf.daBytes)).toBe(true);
    }
  });

  it("the recorded CAF's FRMA verifies with the SII's key 100 over its flattened DA", () => {
    const block = /<CAF[\s\S]*<\/CAF>/.exec(recorded)![0];
    const c = parseCafBlock(block);
    expect(c.idk).toBe(100);
    expect(verifyCaf(c, officialSiiKeys())).toMatchObject({ signatureValid: true });
  });

  it('re-indents any element-and-text XML, keeping text and attributes as they are', () => {
    expect(reindentXml('<a x="1"><b>t\n u</b><c><d/></c></a>')).toBe(
      '<?xml version="1.0"?>\n<a x="1">\n    <b>t\n u</b>\n    <c>\n        <d/>\n    </c>\n</a>',
    );
  });
});
