import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertCheckerDependencies, siiSharedDir } from './check-sii-xml.ts';

/**
 * Test-only: checks a RespuestaEnvioDTE (root RespuestaDTE) with the reference tools. The shared
 * `check-sii-xml` knows DTE, EnvioDTE and EnvioBOLETA roots only, so this runs the same two tools
 * it runs: xmllint against the SII's RespuestaEnvioDTE_v10.xsd, and xmlsec1 on the signature over
 * Resultado, in place. Throws (never skips) when the tools are missing.
 */
export function checkRespuesta(xml: Buffer): { ok: boolean; output: string } {
  assertCheckerDependencies();
  const dir = mkdtempSync(path.join(tmpdir(), 'respuesta-'));
  try {
    const file = path.join(dir, 'respuesta.xml');
    writeFileSync(file, xml);
    const schema = spawnSync('xmllint', ['--noout', '--schema', path.join(siiSharedDir(), 'schemas', 'RespuestaEnvioDTE_v10.xsd'), file], {
      encoding: 'utf8',
    });
    const sig = spawnSync('xmlsec1', ['--verify', '--id-attr:ID', 'Resultado', file], { encoding: 'utf8' });
    return {
      ok: schema.status === 0 && sig.status === 0,
      output: `xmllint (${String(schema.status)}): ${schema.stderr}\nxmlsec1 (${String(sig.status)}): ${sig.stderr}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
