import { describe, expect, it } from 'vitest';
import { DOMParser } from '@xmldom/xmldom';
import { createTestKit, sampleDteInput, TEST_NOW } from '../../test/support/dte/fixtures.ts';
import { buildDte, issueDte, issueDteAsync } from './dte-xml.ts';
import { prepareDte } from './prepare.ts';
import { canonicalize } from './c14n.ts';
import { sha1Base64 } from './xmldsig.ts';
import { SUPPORTED_TIPOS_DTE } from './types.ts';
import type { DteInput, TipoDte } from './types.ts';
import { DteEngineError } from './errors.ts';
import { strategyFor } from './strategies/index.ts';
import { createTestCertificate } from '../../test/support/dte/test-certificate.ts';
import { expectOneElementPerLine, flatXml } from '../../test/support/dte/lines.ts';

const kit = createTestKit();

/** The document's text without the line feeds between tags (its layout is tested on its own). */
function text(xml: Buffer): string {
  return flatXml(xml);
}

function expectError(fn: () => unknown, code: string, param?: string): DteEngineError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DteEngineError);
    expect((e as DteEngineError).code).toBe(code);
    if (param !== undefined) expect((e as DteEngineError).param).toBe(param);
    return e as DteEngineError;
  }
  throw new Error(`expected ${code}`);
}

describe('buildDte', () => {
  it.each(SUPPORTED_TIPOS_DTE)('builds type %i as ISO-8859-1 with the namespace on <DTE>', (tipo) => {
    const built = kit.build(sampleDteInput(tipo, 5));
    const s = text(built.xml);
    const root = strategyFor(tipo).root;
    expect(
      built.xml
        .toString('latin1')
        .startsWith(
          `<?xml version="1.0" encoding="ISO-8859-1"?>\n<DTE xmlns="http://www.sii.cl/SiiDte" version="1.0">\n<${root} ID="F5T${tipo}">\n`,
        ),
    ).toBe(true);
    expectOneElementPerLine(built.xml);
    expect(built.documentId).toBe(`F5T${tipo}`);
    expect(s).toContain(`<TipoDTE>${tipo}</TipoDTE><Folio>5</Folio><FchEmis>2026-03-02</FchEmis>`);
    expect(s).toContain('<TmstFirma>2026-03-02T09:30:00</TmstFirma>');
    expect(s).toContain(`<MntTotal>${built.totals.montoTotal}</MntTotal>`);
    expect(built.tedBytes.toString('latin1')).toMatch(/^<TED version="1.0"><DD>.*<\/FRMT><\/TED>$/);
    expect(built.envelope).toBe(tipo === 39 || tipo === 41 ? 'EnvioBOLETA' : 'EnvioDTE');
    // Latin-1 bytes: "á" (from the issuer's giro) is the single byte 0xE1.
    expect(built.xml.includes(Buffer.from('informática', 'latin1'))).toBe(true);
    expect(built.xml.includes(Buffer.from('á', 'utf8'))).toBe(false);
  });

  it('emits exactly the canonical form it digests (parse + C14N of Documento gives the signed digest)', () => {
    for (const tipo of SUPPORTED_TIPOS_DTE) {
      const s = kit.build(sampleDteInput(tipo)).xml.toString('latin1');
      const doc = new DOMParser().parseFromString(s, 'text/xml');
      const root = strategyFor(tipo).root;
      const documento = doc.getElementsByTagName(root).item(0);
      if (!documento) throw new Error(`no ${root}`);
      const digest = /<DigestValue>([^<]+)<\/DigestValue>/.exec(s)?.[1];
      expect(sha1Base64(canonicalize(documento))).toBe(digest);
      // and the emitted text is the canonical text minus the inherited xmlns on the apex
      const emitted = new RegExp(`<${root} ID="[^"]+">[\\s\\S]*</${root}>`).exec(s)?.[0];
      expect(canonicalize(documento).replace(' xmlns="http://www.sii.cl/SiiDte"', '')).toBe(emitted);
    }
  });

  it('writes facturas per DTE_v10 and boletas per BOLETADefType', () => {
    const f = text(kit.build(sampleDteInput(33)).xml);
    expect(f).toContain(
      '<Emisor><RUTEmisor>76192083-9</RUTEmisor><RznSoc>SASCO SpA</RznSoc><GiroEmis>Servicios integrales de informática</GiroEmis><Acteco>726000</Acteco>',
    );
    expect(f).toContain(
      '<Totales><MntNeto>369486</MntNeto><MntExe>90000</MntExe><TasaIVA>19</TasaIVA><IVA>70202</IVA><MntTotal>529688</MntTotal></Totales>',
    );
    expect(f).toContain('<Detalle><NroLinDet>3</NroLinDet><IndExe>1</IndExe><NmbItem>Capacitación exenta</NmbItem>');
    expect(f).toContain('<QtyItem>1.5</QtyItem><UnmdItem>UN</UnmdItem><PrcItem>12990.5</PrcItem><MontoItem>19486</MontoItem>');
    expect(f).toContain('<RznSocRecep>Comercial Ñandú &amp; Cía. "Limitada"</RznSocRecep>');
    // giro receptor truncated at 40
    expect(f).toContain('<GiroRecep>Comercio al por menor de artículos de li</GiroRecep>');
    const b = text(kit.build(sampleDteInput(39)).xml);
    expect(b).toContain('<IdDoc><TipoDTE>39</TipoDTE><Folio>1</Folio><FchEmis>2026-03-02</FchEmis><IndServicio>3</IndServicio></IdDoc>');
    expect(b).toContain('<Emisor><RUTEmisor>76192083-9</RUTEmisor><RznSocEmisor>SASCO SpA</RznSocEmisor><GiroEmisor>');
    expect(b).toContain('<Receptor><RUTRecep>66666666-6</RUTRecep></Receptor>');
    expect(b).toContain('<Totales><MntNeto>6429</MntNeto><MntExe>1200</MntExe><IVA>1221</IVA><MntTotal>8850</MntTotal></Totales>');
    expect(b).not.toContain('TasaIVA');
    expect(b).toContain('<RR>66666666-6</RR><RSR>66666666-6</RSR>');
    const n = text(kit.build(sampleDteInput(61)).xml);
    expect(n).toContain(
      '<Referencia><NroLinRef>1</NroLinRef><TpoDocRef>33</TpoDocRef><FolioRef>1</FolioRef><FchRef>2026-03-01</FchRef><CodRef>3</CodRef><RazonRef>Corrige montos</RazonRef></Referencia><TED',
    );
    // A boleta's Referencia (EnvioBOLETA_v11.xsd) has no FchRef, IndGlobal or RUTOtr.
    const boletaRef = sampleDteInput(39, 1, {
      referencias: [{ tipoDocRef: 'SET', folioRef: '1', fechaRef: '2026-03-01', razonRef: 'CASO-1' }],
    });
    expect(text(kit.build(boletaRef).xml)).toContain(
      '<Referencia><NroLinRef>1</NroLinRef><TpoDocRef>SET</TpoDocRef><FolioRef>1</FolioRef><RazonRef>CASO-1</RazonRef></Referencia>',
    );
    expect(text(kit.build(sampleDteInput(52)).xml)).toContain('<IndTraslado>1</IndTraslado>');
    expect(text(kit.build(sampleDteInput(34)).xml)).toContain('<Totales><MntExe>75990</MntExe><MntTotal>75990</MntTotal></Totales>');
  });

  it('rejects characters outside Latin-1 naming the field, and strips control characters', () => {
    const emoji = sampleDteInput(33, 1, { receptor: { rut: '77777777-7', razonSocial: 'Café 😀 SpA' } });
    const e = expectError(() => kit.build(emoji), 'unsupported_character', 'receptor.razonSocial');
    expect(e.message).toContain('U+1F600');
    expectError(
      () => kit.build(sampleDteInput(33, 1, { detalle: [{ nombre: 'Precio en €', cantidad: 1, precioUnitario: 1 }] })),
      'unsupported_character',
      'detalle[0].nombre',
    );
    // Typographic characters are converted to their Latin-1 equivalents (docs/decisions.md §11), never refused.
    const typo = kit.build(sampleDteInput(33, 1, { detalle: [{ nombre: '“smart” – it’s…', cantidad: 1, precioUnitario: 1 }] }));
    expect(text(typo.xml)).toContain('<NmbItem>"smart" - it\'s...</NmbItem>');
    const ctl = kit.build(sampleDteInput(33, 1, { detalle: [{ nombre: 'Línea\u0001 uno\r\ndos\u0085', cantidad: 1, precioUnitario: 1 }] }));
    expect(text(ctl.xml)).toContain('<NmbItem>Línea uno  dos</NmbItem>');
  });

  it('rejects over-long fields (the API validates them first) but truncates giro', () => {
    expectError(
      () => kit.build(sampleDteInput(33, 1, { detalle: [{ nombre: 'x'.repeat(81), cantidad: 1, precioUnitario: 1 }] })),
      'field_too_long',
      'detalle[0].nombre',
    );
    const long = kit.build(sampleDteInput(33, 1, { emisor: { ...sampleDteInput(33).emisor, giro: 'g'.repeat(120) } }));
    expect(text(long.xml)).toContain(`<GiroEmis>${'g'.repeat(80)}</GiroEmis>`);
  });

  it('validates business rules with typed errors', () => {
    expectError(() => kit.build(sampleDteInput(61, 1, { referencias: [] })), 'references_required', 'referencias');
    expectError(
      () => kit.build(sampleDteInput(56, 1, { referencias: [{ tipoDocRef: 33, folioRef: 1, fechaRef: '2026-03-01' }] })),
      'required_field',
      'referencias[0].codRef',
    );
    expectError(() => kit.build(sampleDteInput(33, 1, { montoTotal: 1 })), 'amount_mismatch', 'montoTotal');
    expectError(
      () => kit.build(sampleDteInput(33, 1, { detalle: [{ nombre: 'a', cantidad: 2, precioUnitario: 3, montoItem: 5 }] })),
      'amount_mismatch',
      'detalle[0].montoItem',
    );
    expectError(
      () => kit.build(sampleDteInput(33, 1, { detalle: [{ nombre: 'a', cantidad: 1, precioUnitario: 3, exento: true }] })),
      'all_lines_exempt',
    );
    expectError(
      () => kit.build(sampleDteInput(33, 1, { receptor: { rut: '77777777-1', razonSocial: 'X' } })),
      'invalid_rut',
      'receptor.rut',
    );
    expectError(() => kit.build(sampleDteInput(33, 1, { fechaEmision: '2026-02-30' })), 'invalid_date', 'fechaEmision');
    expectError(() => kit.build(sampleDteInput(33, 1, { emisor: { ...sampleDteInput(33).emisor, acteco: [] } })), 'invalid_acteco');
    expectError(() => kit.build(sampleDteInput(33, 1, { receptor: undefined })), 'required_field', 'receptor');
    expectError(
      () => kit.build(sampleDteInput(33, 1, { detalle: [{ nombre: 'a', cantidad: 0.1234567, precioUnitario: 1 }] })),
      'invalid_number',
      'detalle[0].cantidad',
    );
    expectError(() => kit.build({ ...sampleDteInput(33), tipoDte: 999 as TipoDte }), 'unsupported_tipo_dte', 'tipoDte');
    expectError(() => kit.build(sampleDteInput(33, 1001)), 'folio_out_of_range', 'folio');
    expectError(
      () => buildDte(sampleDteInput(34), { caf: kit.cafs[33], signer: kit.certificate.signer, now: TEST_NOW }),
      'caf_type_mismatch',
    );
  });

  it('refuses to stamp with an expired CAF (types with expiry)', () => {
    const late = new Date('2026-07-04T12:00:00Z'); // FA 2026-01-05 + 180 days
    expectError(() => kit.build(sampleDteInput(33), late), 'caf_expired', 'caf');
    expect(() => kit.build(sampleDteInput(34), late)).not.toThrow(); // 34 CAFs do not expire
  });

  it('produces byte-identical output for identical input and clock', () => {
    const input: DteInput = sampleDteInput(33, 9);
    expect(kit.build(input).xml.equals(kit.build(input).xml)).toBe(true);
  });

  it('signs off the main thread to the same bytes (issueDteAsync), and refuses what issueDte refuses before signing', async () => {
    for (const tipo of [33, 39, 43, 110] as const) {
      const input = sampleDteInput(tipo, 12);
      const opts = { folio: 12, caf: kit.cafs[tipo], signer: kit.certificate.signer, now: TEST_NOW };
      const prepared = prepareDte(input);
      const sync = issueDte(prepared, opts);
      const async = await issueDteAsync(prepared, opts);
      expect(async.xml.equals(sync.xml)).toBe(true);
      expect(async.tedBytes.equals(sync.tedBytes)).toBe(true);
    }
    const old = createTestCertificate({ keyBits: 1024, notBefore: new Date('2020-01-01'), notAfter: new Date('2025-01-01') });
    await expect(
      issueDteAsync(prepareDte(sampleDteInput(33)), { folio: 1, caf: kit.cafs[33], signer: old.signer, now: TEST_NOW }),
    ).rejects.toMatchObject({ code: 'certificate_expired' });
  });

  it('refuses to sign with an expired certificate', () => {
    const old = createTestCertificate({ keyBits: 1024, notBefore: new Date('2020-01-01'), notAfter: new Date('2025-01-01') });
    expectError(() => buildDte(sampleDteInput(33), { caf: kit.cafs[33], signer: old.signer, now: TEST_NOW }), 'certificate_expired');
  });

  it('rejects a signer whose key is not the certificate key', () => {
    const other = createTestKit();
    expectError(
      () =>
        buildDte(sampleDteInput(33), {
          caf: kit.cafs[33],
          signer: { privateKey: other.certificate.privateKey, certificateDer: kit.certificate.certificateDer },
          now: TEST_NOW,
        }),
      'certificate_key_mismatch',
    );
  });
});
