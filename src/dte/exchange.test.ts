import { describe, expect, it } from 'vitest';
import { buildEnvelope, buildRespuestaEnvio, envelopeParts, verifyDteSync, verifyEnvelopeSync, type RespuestaEnvioInput } from './index.ts';
import { checkRespuesta } from '../../test/support/dte/check-respuesta.ts';
import { createTestKit, sampleDteInput, TEST_NOW } from '../../test/support/dte/fixtures.ts';
import { flatXml } from '../../test/support/dte/lines.ts';

const kit = createTestKit();
const envelope = buildEnvelope({
  dtes: [kit.build(sampleDteInput(33, 5)).xml, kit.build(sampleDteInput(61, 6)).xml],
  rutEmisor: '76192083-9',
  rutReceptor: '77777777-7',
  fechaResolucion: '2014-08-22',
  numeroResolucion: 80,
  signer: kit.certificate.signer,
  now: TEST_NOW,
});

const answer = (over: Partial<RespuestaEnvioInput> = {}) => {
  const parts = envelopeParts(envelope.xml);
  const v = verifyEnvelopeSync(envelope.xml, { siiKeys: kit.sii.siiKeys });
  return buildRespuestaEnvio({
    rutResponde: '77.777.777-7',
    rutRecibe: '76192083-9',
    idRespuesta: 4_000_000_012,
    codEnvio: 4_000_000_012,
    nombreEnvio: 'EnvioDTE.xml',
    envioDteId: parts.setId!,
    digest: parts.digest,
    caratula: { rutEmisor: '76192083-9', rutReceptor: '77777777-7' },
    estadoEnvio: 0,
    documentos: v.dtes.map((d, i) => ({
      tipoDte: d.tipoDte!,
      folio: d.folio!,
      fechaEmision: d.fechaEmision!,
      rutEmisor: d.rutEmisor!,
      rutReceptor: d.rutReceptor!,
      montoTotal: d.montoTotal!,
      estado: i === 0 ? (0 as const) : (4 as const),
    })),
    recibidoEn: TEST_NOW,
    signer: kit.certificate.signer,
    now: TEST_NOW,
    ...over,
  });
};

describe('envelopeParts', () => {
  it('gives the SetDTE ID, the envelope digest and each DTE as the verifier checks it', () => {
    const parts = envelopeParts(envelope.xml);
    const text = envelope.xml.toString('latin1');
    expect(parts.setId).toBe('SetDoc');
    const digests = [...text.matchAll(/<DigestValue>([^<]*)<\/DigestValue>/g)].map((m) => m[1]);
    expect(parts.digest).toBe(digests.at(-1));
    expect(parts.dtes).toHaveLength(2);
    for (const d of parts.dtes) {
      expect(d.subarray(0, 44).toString('latin1')).toBe('<?xml version="1.0" encoding="ISO-8859-1"?>\n');
      expect(text.includes(d.subarray(44).toString('latin1'))).toBe(true);
      expect(verifyDteSync(d, { siiKeys: kit.sii.siiKeys }).valid).toBe(true);
    }
  });

  it('has no digest without an envelope signature', () => {
    const unsigned = Buffer.from(envelope.xml.toString('latin1').replace(/<\/SetDTE>[\s\S]*$/, '</SetDTE></EnvioDTE>'), 'latin1');
    expect(envelopeParts(unsigned).digest).toBeNull();
  });
});

describe('buildRespuestaEnvio', () => {
  it('is valid against RespuestaEnvioDTE_v10.xsd and its signature verifies with xmlsec1', () => {
    const r = answer();
    const text = flatXml(r.xml);
    expect(text).toContain('<RutResponde>77777777-7</RutResponde><RutRecibe>76192083-9</RutRecibe><IdRespuesta>4000000012</IdRespuesta>');
    expect(text).toContain('<EstadoRecepEnv>0</EstadoRecepEnv><RecepEnvGlosa>Envio Recibido Conforme</RecepEnvGlosa><NroDTE>2</NroDTE>');
    expect(text).toContain('<EstadoRecepDTE>0</EstadoRecepDTE><RecepDTEGlosa>DTE Recibido OK</RecepDTEGlosa>');
    expect(text).toContain('<EstadoRecepDTE>4</EstadoRecepDTE><RecepDTEGlosa>DTE No Recibido - DTE Repetido</RecepDTEGlosa>');
    const check = checkRespuesta(r.xml);
    expect(check.ok, check.output).toBe(true);
  });

  it('writes non-ASCII text as character references, so the bytes are ASCII and the signature still verifies', () => {
    const r = answer({ nombreEnvio: 'envío_ñandú.xml', envioDteId: 'SetÑ' });
    expect([...r.xml].every((b) => b < 0x80)).toBe(true);
    expect(r.xml.toString('latin1')).toContain('<NmbEnvio>env&#xED;o_&#xF1;and&#xFA;.xml</NmbEnvio>');
    const check = checkRespuesta(r.xml);
    expect(check.ok, check.output).toBe(true);
  });

  it('refuses what the schema cannot carry', () => {
    const doc = {
      tipoDte: 39,
      folio: 1,
      fechaEmision: '2026-03-02',
      rutEmisor: '76192083-9',
      rutReceptor: '66666666-6',
      montoTotal: 1,
      estado: 0 as const,
    };
    expect(() => answer({ documentos: [doc] })).toThrow(/cannot be named in a RecepcionDTE/);
    expect(() => answer({ codEnvio: 10_000_000_000 })).toThrow(/at most 10 digits/);
    expect(() => answer({ nombreEnvio: 'x'.repeat(81) })).toThrow(/1 to 80/);
    expect(() => answer({ now: new Date('2100-01-01T00:00:00Z') })).toThrow(/expired/);
  });
});
