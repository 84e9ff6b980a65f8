import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyDte, verifyDteSync, verifyEnvelope, verifyEnvelopeSync } from './index.ts';
import type { DteVerification } from './index.ts';
import { siiKeyFromCertificate } from '../caf.ts';
import { buildDte } from '../dte-xml.ts';
import { buildEnvelope } from '../envelope.ts';
import { OFFICIAL_ENVIO, REAL_DTE_DIR, SII_CERTS_DIR } from '../../../test/support/dte/sii-fixtures.ts';
import { createTestKit, sampleDteInput, TEST_NOW } from '../../../test/support/dte/fixtures.ts';
import { createTestCaf, createTestSii } from '../../../test/support/dte/test-caf.ts';
import { SUPPORTED_TIPOS_DTE } from '../types.ts';
import type { TipoDte } from '../types.ts';

const realKeys = {
  '100': siiKeyFromCertificate(readFileSync(path.join(SII_CERTS_DIR, '100.cer'))),
  '300': siiKeyFromCertificate(readFileSync(path.join(SII_CERTS_DIR, '300.cer'))),
};
const kit = createTestKit();
const opts = { siiKeys: kit.sii.siiKeys };

function codes(v: { errors: { code: string; check: string }[] }): string[] {
  return v.errors.map((e) => `${e.code} ${e.check}`);
}

function mutate(buf: Buffer, from: string | RegExp, to: string | ((m: string) => string)): Buffer {
  const s = buf.toString('latin1');
  const out = typeof to === 'string' ? s.replace(from, to) : s.replace(from, to);
  expect(out).not.toBe(s);
  return Buffer.from(out, 'latin1');
}

function envelopeOf(tipos: TipoDte[], folio = 100) {
  return buildEnvelope({
    dtes: tipos.map((t, i) => kit.build(sampleDteInput(t, folio + i)).xml),
    rutEmisor: '76192083-9',
    fechaResolucion: '2014-08-22',
    numeroResolucion: 80,
    signer: kit.certificate.signer,
    now: TEST_NOW,
  });
}

describe('official and real SII documents', () => {
  it("accepts the SII's official example envelope (with 100.cer)", async () => {
    const r = await verifyEnvelope(readFileSync(OFFICIAL_ENVIO), { siiKeys: realKeys });
    expect(r.errors).toEqual([]);
    expect(r.valid).toBe(true);
    expect(r.kind).toBe('EnvioDTE');
    expect(r.caratula).toMatchObject({
      rutEmisor: '97975000-5',
      rutEnvia: '7880442-4',
      rutReceptor: '60803000-K',
      subTotales: [{ tipoDte: 33, cantidad: 1 }],
    });
    expect(r.dtes).toHaveLength(1);
    expect(r.dtes[0]).toMatchObject({ valid: true, documentId: 'F60T33', tipoDte: 33, folio: 60, montoTotal: 119000, caf: { idk: 100 } });
    // Its signatures verify with the KeyValue key, which is not the certificate's (a known quirk).
    expect(r.warnings.map((w) => w.check)).toEqual(['keyvalue_not_certificate']);
  });

  const real: [string, boolean, boolean][] = [
    ['DTE--60910000-1--33--2336600.xml', true, false],
    ['DTE--76354771-K--33--170.xml', true, true],
    ['DTE--76354771-K--33--170--cleaned.xml', true, false],
    ['DTE--76399752-9--33--25568.xml', true, true],
    ['DTE--96670340-7--61--110616.xml', true, false],
  ];
  it.each(real)('real DTE %s: valid=%s namespaceInherited=%s', async (file, valid, inherited) => {
    const r = await verifyDte(readFileSync(path.join(REAL_DTE_DIR, file)), { siiKeys: realKeys });
    expect(codes(r)).toEqual([]);
    expect(r.valid).toBe(valid);
    expect(r.namespaceInherited).toBe(inherited);
    expect(r.caf?.idk).toBe(300);
  });

  it('rejects the tampered real DTE (amounts changed)', async () => {
    const r = await verifyDte(readFileSync(path.join(REAL_DTE_DIR, 'DTE--76354771-K--33--170--cleaned-mod-changed-monto.xml')), {
      siiKeys: realKeys,
    });
    expect(r.valid).toBe(false);
    expect(codes(r)).toEqual(['DTE-3-505 dte_signature', 'TED-3-510 ted_signature']);
  });

  it('production CAFs do not verify with the certification key alone', () => {
    const r = verifyDteSync(readFileSync(path.join(REAL_DTE_DIR, 'DTE--76354771-K--33--170--cleaned.xml')), {
      siiKeys: { '100': realKeys['100'] },
    });
    expect(codes(r)).toEqual(['CAF-3-516 caf_unknown_idk']);
  });
});

describe('our documents', () => {
  it.each(SUPPORTED_TIPOS_DTE)('type %i verifies standalone without warnings', (t) => {
    const r = verifyDteSync(kit.build(sampleDteInput(t, 7)).xml, { ...opts, now: TEST_NOW });
    expect(codes(r)).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r).toMatchObject({ valid: true, tipoDte: t, folio: 7, rutEmisor: '76192083-9', namespaceInherited: false });
  });

  it('EnvioDTE and EnvioBOLETA verify', () => {
    for (const env of [envelopeOf([33, 34, 46, 52, 56, 61]), envelopeOf([39, 41])]) {
      const r = verifyEnvelopeSync(env.xml, { ...opts, now: TEST_NOW, expectedRutReceptor: '60.803.000-K' });
      expect(codes(r)).toEqual([]);
      expect(r.dtes.every((d) => d.valid && d.warnings.length === 0)).toBe(true);
      expect(r.warnings).toEqual([]);
      expect(r.valid).toBe(true);
      expect(r.caratula?.rutEnvia).toBe('12345678-5');
    }
  });

  it('still verifies after transcoding to UTF-8 (signatures are over characters, the TED over Latin-1)', () => {
    const dte = kit.build(sampleDteInput(33, 8)).xml;
    const utf8 = Buffer.from(dte.toString('latin1').replace('encoding="ISO-8859-1"', 'encoding="UTF-8"'), 'utf8');
    expect(verifyDteSync(utf8, opts).valid).toBe(true);
  });
});

describe('failures and their codes', () => {
  const dte = kit.build(sampleDteInput(33, 9)).xml;

  it('altered signature value → DTE-3-505', () => {
    const bad = mutate(dte, /<SignatureValue>(.)/, (m: string) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A'));
    expect(codes(verifyDteSync(bad, opts))).toEqual(['DTE-3-505 dte_signature']);
  });

  it('altered content → DTE-3-505 and TED data mismatch', () => {
    const bad = mutate(dte, /<MntTotal>(\d+)<\/MntTotal>/, '<MntTotal>1</MntTotal>');
    expect(codes(verifyDteSync(bad, opts))).toEqual(['DTE-3-505 dte_signature', 'TED-3-511 ted_data']);
  });

  it('altered TED → DTE-3-505 and TED-3-510', () => {
    const bad = mutate(dte, /<MNT>(\d+)<\/MNT>/, '<MNT>1</MNT>');
    const r = verifyDteSync(bad, opts);
    expect(codes(r)).toContain('TED-3-510 ted_signature');
    expect(codes(r)).toContain('DTE-3-505 dte_signature');
  });

  it('CAF signed by another SII key → CAF-3-516; unknown IDK → CAF-3-516', () => {
    expect(codes(verifyDteSync(dte, { siiKeys: createTestSii().siiKeys }))).toEqual(['CAF-3-516 caf_signature']);
    expect(codes(verifyDteSync(dte, { siiKeys: realKeys }))).toEqual(['CAF-3-516 caf_unknown_idk']);
  });

  it('folio outside the CAF range → CAF-3-518', () => {
    const { caf } = createTestCaf({ sii: kit.sii, tipoDte: 33, rutEmisor: '76192083-9', desde: 1, hasta: 10 });
    // A CAF object that lies about its range stamps folio 50; the embedded DA still says 1-10.
    const built = buildDte(sampleDteInput(33, 50), { caf: { ...caf, hasta: 100 }, signer: kit.certificate.signer, now: TEST_NOW });
    expect(codes(verifyDteSync(built.xml, opts))).toEqual(['CAF-3-518 folio_out_of_range']);
  });

  it('expired CAF → CAF-3-517 when now is past vencimiento', () => {
    const r = verifyDteSync(dte, { ...opts, now: new Date('2026-07-04T15:00:00Z') });
    expect(codes(r)).toEqual(['CAF-3-517 caf_expired']);
    expect(verifyDteSync(dte, { ...opts, now: new Date('2026-07-03T15:00:00Z') }).valid).toBe(true);
  });

  it('CAF for another type → CAF-3-519 (and the digest still holds)', () => {
    const built = buildDte(sampleDteInput(33, 3), { caf: { ...kit.cafs[34], tipoDte: 33 }, signer: kit.certificate.signer, now: TEST_NOW });
    expect(codes(verifyDteSync(built.xml, opts))).toEqual(['CAF-3-519 caf_type_mismatch']);
  });

  it('tampered envelope → RFR; tampered DTE inside → RFR and DTE-3-505 for that DTE', () => {
    const env = envelopeOf([33, 34], 200);
    const r1 = verifyEnvelopeSync(mutate(env.xml, '<NroResol>80</NroResol>', '<NroResol>81</NroResol>'), opts);
    expect(codes(r1)).toEqual(['RFR envelope_signature']);
    expect(r1.dtes.every((d) => d.valid)).toBe(true);
    const r2 = verifyEnvelopeSync(mutate(env.xml, '<NmbItem>Curso</NmbItem>', '<NmbItem>Cursos</NmbItem>'), opts);
    expect(codes(r2)).toEqual(['RFR envelope_signature']);
    expect(r2.dtes.map((d: DteVerification) => codes(d))).toEqual([[], ['DTE-3-505 dte_signature']]);
    expect(r2.valid).toBe(false);
  });

  it('RutEnvia not the certificate holder, wrong RutReceptor → RCT', () => {
    const env = buildEnvelope({
      dtes: [kit.build(sampleDteInput(33, 300)).xml],
      rutEmisor: '76192083-9',
      rutEnvia: '11111111-1',
      rutReceptor: '77777777-7',
      fechaResolucion: '2014-08-22',
      numeroResolucion: 80,
      signer: kit.certificate.signer,
      now: TEST_NOW,
    });
    expect(codes(verifyEnvelopeSync(env.xml, { ...opts, expectedRutReceptor: '60803000-K' }))).toEqual([
      'RCT rut_envia_mismatch',
      'RCT rut_receptor',
    ]);
  });

  it('envelope certificate expired at the time of verification → RFR', () => {
    const env = envelopeOf([33], 350);
    expect(codes(verifyEnvelopeSync(env.xml, { ...opts, now: new Date('2050-06-01T00:00:00Z') }))).toContain('RFR certificate_expired');
  });

  it('malformed XML and wrong roots', () => {
    expect(codes(verifyDteSync(Buffer.from('<DTE><Documento'), opts))).toEqual(['DTE-3-500 xml_malformed']);
    expect(codes(verifyEnvelopeSync(dte, opts))).toEqual(['RSC not_an_envelope']);
  });

  it('runs an injected schema validator', async () => {
    const r = await verifyEnvelope(envelopeOf([33], 400).xml, { ...opts, schemaValidator: () => ({ valid: false, errors: ['boom'] }) });
    expect(codes(r)).toEqual(['RSC schema']);
  });
});
