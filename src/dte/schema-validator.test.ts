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
});
