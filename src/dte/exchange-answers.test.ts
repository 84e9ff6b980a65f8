import { describe, expect, it } from 'vitest';
import {
  buildEnvioRecibos,
  buildEnvioRecibosOf,
  buildResultadoDte,
  buildResultadosDte,
  DECLARACION_RECIBO,
  type EnvioRecibosInput,
  type ResultadoDteInput,
} from './index.ts';
import { checkRespuesta } from '../../test/support/dte/check-respuesta.ts';
import { createTestKit, TEST_NOW } from '../../test/support/dte/fixtures.ts';
import { flatXml } from '../../test/support/dte/lines.ts';

const kit = createTestKit();
const documento = {
  tipoDte: 33,
  folio: 42,
  fechaEmision: '2026-03-01',
  rutEmisor: '76192083-9',
  rutReceptor: '77.777.777-7',
  montoTotal: 119000,
};

const resultado = (over: Partial<ResultadoDteInput> = {}) =>
  buildResultadoDte({
    rutResponde: '77777777-7',
    rutRecibe: '76192083-9',
    idRespuesta: 4_000_000_100,
    documento,
    codEnvio: 17,
    estado: 0,
    signer: kit.certificate.signer,
    now: TEST_NOW,
    ...over,
  });

const recibos = (over: Partial<EnvioRecibosInput> = {}) =>
  buildEnvioRecibos({
    rutResponde: '77777777-7',
    rutRecibe: '76192083-9',
    idEnvio: 4_000_000_101,
    documento,
    recinto: 'Bodega central, Av. Matta 123',
    signer: kit.certificate.signer,
    now: TEST_NOW,
    ...over,
  });

describe('buildResultadoDte', () => {
  it('is valid against RespuestaEnvioDTE_v10.xsd and its signature verifies with xmlsec1', () => {
    for (const estado of [0, 1, 2] as const) {
      const r = resultado({ estado, glosa: estado === 2 ? 'RCD: precio no corresponde' : undefined });
      const text = flatXml(r.xml);
      expect(text).toContain('<RutResponde>77777777-7</RutResponde><RutRecibe>76192083-9</RutRecibe><IdRespuesta>4000000100</IdRespuesta>');
      expect(text).toContain(
        '<ResultadoDTE><TipoDTE>33</TipoDTE><Folio>42</Folio><FchEmis>2026-03-01</FchEmis><RUTEmisor>76192083-9</RUTEmisor>' +
          `<RUTRecep>77777777-7</RUTRecep><MntTotal>119000</MntTotal><CodEnvio>17</CodEnvio><EstadoDTE>${estado}</EstadoDTE>`,
      );
      expect(text).toContain(
        estado === 0
          ? '<EstadoDTEGlosa>DTE Aceptado OK</EstadoDTEGlosa>'
          : estado === 1
            ? '<EstadoDTEGlosa>DTE Aceptado con Discrepancias</EstadoDTEGlosa>'
            : '<EstadoDTEGlosa>RCD: precio no corresponde</EstadoDTEGlosa>',
      );
      const check = checkRespuesta(r.xml);
      expect(check.ok, check.output).toBe(true);
    }
  });

  it('writes a glosa with accents as character references; the signature still verifies', () => {
    const r = resultado({ estado: 2, glosa: 'Reclamo: falta la mercadería (RFT)' });
    expect([...r.xml].every((b) => b < 0x80)).toBe(true);
    expect(r.xml.toString('latin1')).toContain('mercader&#xED;a');
    const check = checkRespuesta(r.xml);
    expect(check.ok, check.output).toBe(true);
  });

  it('refuses what the schema cannot carry', () => {
    expect(() => resultado({ documento: { ...documento, tipoDte: 39 } })).toThrow(/cannot be named/);
    expect(() => resultado({ codEnvio: 0 })).toThrow(/positive integer/);
    expect(() => resultado({ glosa: 'x'.repeat(257) })).toThrow(/1 to 256/);
    expect(() => resultado({ now: new Date('2100-01-01T00:00:00Z') })).toThrow(/expired/);
  });
});

describe('buildEnvioRecibos', () => {
  it('is valid against EnvioRecibos_v10.xsd; both signatures (SetRecibos, DocumentoRecibo) verify with xmlsec1', () => {
    const r = recibos();
    const text = flatXml(r.xml);
    expect(r.id).toBe('SetRecibos4000000101');
    expect(text).toContain('<DocumentoRecibo ID="Recibo4000000101"><TipoDoc>33</TipoDoc><Folio>42</Folio>');
    expect(text).toContain('<Recinto>Bodega central, Av. Matta 123</Recinto><RutFirma>12345678-5</RutFirma>');
    // The schema fixes the declaration's text (Recibos_v10.xsd).
    expect(text).toContain(`<Declaracion>${DECLARACION_RECIBO}</Declaracion>`);
    expect(text.match(/<Signature /g)).toHaveLength(2);
    const check = checkRespuesta(r.xml);
    expect(check.ok, check.output).toBe(true);
  });

  it('detects an altered receipt', () => {
    const text = recibos().xml.toString('latin1').replace('<MntTotal>119000</MntTotal>', '<MntTotal>119001</MntTotal>');
    expect(checkRespuesta(Buffer.from(text, 'latin1')).ok).toBe(false);
  });

  it('keeps non-ASCII in the recinto as character references', () => {
    const r = recibos({ recinto: 'Ñuñoa, bodega 2' });
    expect([...r.xml].every((b) => b < 0x80)).toBe(true);
    const check = checkRespuesta(r.xml);
    expect(check.ok, check.output).toBe(true);
  });

  it('refuses an empty or long recinto, and a type the schema cannot name', () => {
    expect(() => recibos({ recinto: '' })).toThrow(/1 to 80/);
    expect(() => recibos({ recinto: 'x'.repeat(81) })).toThrow(/1 to 80/);
    expect(() => recibos({ documento: { ...documento, tipoDte: 39 } })).toThrow(/cannot be named/);
  });
});

describe('several documents in one answer', () => {
  const second = { ...documento, tipoDte: 34, folio: 7, montoTotal: 50310 };
  const common = { rutResponde: '77777777-7', rutRecibe: '76192083-9', signer: kit.certificate.signer, now: TEST_NOW };

  it('buildResultadosDte: one ResultadoDTE each, NroDetalles counting them; valid and signed', () => {
    const r = buildResultadosDte({
      ...common,
      idRespuesta: 4_000_000_102,
      resultados: [
        { documento, codEnvio: 17, estado: 0 },
        { documento: second, codEnvio: 17, estado: 2, glosa: 'DTE Rechazado: firma' },
      ],
    });
    const text = flatXml(r.xml);
    expect(text).toContain('<NroDetalles>2</NroDetalles>');
    expect(text.match(/<ResultadoDTE>/g)).toHaveLength(2);
    expect(text).toContain('<TipoDTE>34</TipoDTE><Folio>7</Folio>');
    expect(text).toContain('<EstadoDTE>2</EstadoDTE><EstadoDTEGlosa>DTE Rechazado: firma</EstadoDTEGlosa>');
    const check = checkRespuesta(r.xml);
    expect(check.ok, check.output).toBe(true);
    expect(() => buildResultadosDte({ ...common, idRespuesta: 1, resultados: [] })).toThrow(/One to 9999/);
  });

  it('buildEnvioRecibosOf: one signed Recibo each under one SetRecibos; every signature verifies', () => {
    const r = buildEnvioRecibosOf({ ...common, idEnvio: 4_000_000_103, recinto: 'Bodega central', documentos: [documento, second] });
    const text = flatXml(r.xml);
    expect(text).toContain('<DocumentoRecibo ID="Recibo4000000103_1"><TipoDoc>33</TipoDoc><Folio>42</Folio>');
    expect(text).toContain('<DocumentoRecibo ID="Recibo4000000103_2"><TipoDoc>34</TipoDoc><Folio>7</Folio>');
    expect(text.match(/<Signature /g)).toHaveLength(3);
    const check = checkRespuesta(r.xml);
    expect(check.ok, check.output).toBe(true);
    expect(() => buildEnvioRecibosOf({ ...common, idEnvio: 1, recinto: 'x', documentos: [] })).toThrow(/One to 9999/);
  });
});
