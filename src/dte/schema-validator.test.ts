import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSchemaValidator, REQUIRED_SCHEMA_FILES } from './schema-validator.ts';
import { verifyEnvelope } from './verify/index.ts';
import { buildEnvelope } from './envelope.ts';
import { OFFICIAL_ENVIO, REAL_DTE_DIR, SII_SCHEMAS_DIR } from '../../test/support/dte/sii-fixtures.ts';
import { createTestKit, sampleDteInput, TEST_NOW } from '../../test/support/dte/fixtures.ts';

const schemas = Object.fromEntries(REQUIRED_SCHEMA_FILES.map((f) => [f, readFileSync(path.join(SII_SCHEMAS_DIR, f))]));
const validate = createSchemaValidator(schemas);
const kit = createTestKit();

describe('xmllint-wasm schema validator', () => {
  it('validates the official example and the cleaned real DTE', async () => {
    expect(await validate(readFileSync(OFFICIAL_ENVIO), 'EnvioDTE')).toEqual({
      valid: true,
      errors: [],
    });
    expect((await validate(readFileSync(path.join(REAL_DTE_DIR, 'DTE--76354771-K--33--170--cleaned.xml')), 'DTE')).valid).toBe(true);
  });

  it('handles windows-1252 documents (transcoded) and reports their real schema problem', async () => {
    const r = await validate(readFileSync(path.join(REAL_DTE_DIR, 'DTE--60910000-1--33--2336600.xml')), 'DTE');
    expect(r.valid).toBe(false);
    expect(r.errors.join('\n')).toContain('No matching global declaration'); // no xmlns on <DTE>
    expect(r.errors.join('\n')).not.toContain('Unsupported encoding');
  });

  it('validates our EnvioDTE, EnvioBOLETA and single DTEs with accents', async () => {
    const common = {
      rutEmisor: '76192083-9',
      fechaResolucion: '2014-08-22',
      numeroResolucion: 80,
      signer: kit.certificate.signer,
      now: TEST_NOW,
    };
    const env = buildEnvelope({ ...common, dtes: [33, 34, 46, 52, 56, 61].map((t) => kit.build(sampleDteInput(t as 33, 500 + t)).xml) });
    expect(await validate(env.xml, 'EnvioDTE')).toEqual({ valid: true, errors: [] });
    const bol = buildEnvelope({ ...common, dtes: [kit.build(sampleDteInput(39, 600)).xml, kit.build(sampleDteInput(41, 601)).xml] });
    expect(await validate(bol.xml, 'EnvioBOLETA')).toEqual({ valid: true, errors: [] });
    expect((await validate(kit.build(sampleDteInput(33, 602)).xml, 'DTE')).valid).toBe(true);
    const r = await verifyEnvelope(env.xml, { siiKeys: kit.sii.siiKeys, schemaValidator: validate });
    expect(r.valid).toBe(true);
  });

  it('reports schema errors', async () => {
    const env = buildEnvelope({
      rutEmisor: '76192083-9',
      fechaResolucion: '2014-08-22',
      numeroResolucion: 80,
      signer: kit.certificate.signer,
      now: TEST_NOW,
      dtes: [kit.build(sampleDteInput(33, 700)).xml],
    });
    const broken = Buffer.from(env.xml.toString('latin1').replace('<NroResol>80</NroResol>', '<NroResol>x</NroResol>'), 'latin1');
    const r = await validate(broken, 'EnvioDTE');
    expect(r.valid).toBe(false);
    expect(r.errors[0]).toContain('NroResol');
  });

  // The messages below are those of the validator before it kept its thread (xmllint-wasm's
  // validateXML, one thread per call), word for word.
  const cleaned = readFileSync(path.join(REAL_DTE_DIR, 'DTE--76354771-K--33--170--cleaned.xml')).toString('latin1');
  const withFolio = (folio: string) => Buffer.from(cleaned.replace(/<Folio>\d+<\/Folio>/, `<Folio>${folio}</Folio>`), 'latin1');
  const folioError = (folio: string) =>
    `Schemas validity error : Element '{http://www.sii.cl/SiiDte}Folio': '${folio}' is not a valid value of the atomic type '{http://www.sii.cl/SiiDte}FolioType'.`;

  it('words every error as before: one message per line after `file:line:`', async () => {
    const several = cleaned
      .replace('<TipoDTE>33</TipoDTE>', '<TipoDTE>33</TipoDTE><Colon>a:b:c</Colon>')
      .replace('<MntTotal>', '<MntTotalX>')
      .replace('</MntTotal>', '</MntTotalX>');
    expect(await validate(Buffer.from(several, 'latin1'), 'DTE')).toEqual({
      valid: false,
      errors: [
        "Schemas validity error : Element '{http://www.sii.cl/SiiDte}Colon': This element is not expected. Expected is ( {http://www.sii.cl/SiiDte}Folio ).",
        "Schemas validity error : Element '{http://www.sii.cl/SiiDte}MntTotalX': This element is not expected. Expected is one of ( {http://www.sii.cl/SiiDte}IVAProp, {http://www.sii.cl/SiiDte}IVATerc, {http://www.sii.cl/SiiDte}ImptoReten, {http://www.sii.cl/SiiDte}IVANoRet, {http://www.sii.cl/SiiDte}CredEC, {http://www.sii.cl/SiiDte}GrntDep, {http://www.sii.cl/SiiDte}Comisiones, {http://www.sii.cl/SiiDte}MntTotal ).",
      ],
    });
    expect(await validate(readFileSync(path.join(REAL_DTE_DIR, 'DTE--60910000-1--33--2336600.xml')), 'DTE')).toEqual({
      valid: false,
      errors: ["Schemas validity error : Element 'DTE': No matching global declaration available for the validation root."],
    });
    // A parser error's context lines come through as they are.
    expect(await validate(Buffer.from(cleaned.slice(0, 400), 'latin1'), 'DTE')).toEqual({
      valid: false,
      errors: ['parser error : Premature end of data in tag IdDoc line 6', '     '],
    });
    expect(await validate(Buffer.alloc(0), 'DTE')).toEqual({ valid: false, errors: ['parser error : Document is empty', ''] });
  });

  it("rejects, with xmllint's output, when a schema does not compile", async () => {
    const broken = createSchemaValidator({ ...schemas, 'LibroGuia_v10.xsd': Buffer.from('<not-a-schema/>') });
    await expect(broken(Buffer.from(cleaned, 'latin1'), 'LibroGuia')).rejects.toThrow(
      "Schemas parser error : The XML document 'LibroGuia_v10.xsd' is not a schema document.\nWXS schema LibroGuia_v10.xsd failed to compile\n",
    );
    await broken.close();
  });

  it('gives each of many concurrent calls its own answer', async () => {
    const calls = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? withFolio(String(100 + i)) : withFolio(`x${i}`)));
    const results = await Promise.all(calls.map((xml) => validate(xml, 'DTE')));
    expect(results).toEqual(
      calls.map((_, i) => (i % 2 === 0 ? { valid: true, errors: [] } : { valid: false, errors: [folioError(`x${i}`)] })),
    );
  });

  it('starts another thread after its thread ended, failing the calls that waited on it', async () => {
    const own = createSchemaValidator(schemas);
    expect(await own(withFolio('1'), 'DTE')).toEqual({ valid: true, errors: [] });
    const waiting = own(withFolio('2'), 'DTE');
    await own.close();
    await expect(waiting).rejects.toThrow('schema validation thread ended');
    expect(await own(withFolio('x'), 'DTE')).toEqual({ valid: false, errors: [folioError('x')] });
    await own.close();
  });
});
