import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertCheckerDependencies } from './check-sii-xml.ts';
import { SII_SCHEMAS_DIR } from './sii-fixtures.ts';

/**
 * Test-only: checks the receptor's answers with the same tools. `scripts/check-sii-xml.ts`
 * knows DTE, EnvioDTE and EnvioBOLETA roots only, so this runs the same two tools it runs: xmllint
 * against the SII's schema of the root, and xmlsec1 on every signature, in place:
 *  - `RespuestaDTE` (RecepcionEnvio or ResultadoDTE): RespuestaEnvioDTE_v10.xsd, the signature over
 *    `Resultado`;
 *  - `EnvioRecibos`: EnvioRecibos_v10.xsd, the root's signature over `SetRecibos` (in place, picked
 *    by XPath) and each `Recibo`'s own over `DocumentoRecibo`, in a copy where the Recibo is the
 *    document, keeping its bytes (as check-sii-xml checks each DTE of an envelope).
 * Throws (never skips) when the tools are missing.
 */
export function checkRespuesta(xml: Buffer): { ok: boolean; output: string } {
  assertCheckerDependencies();
  const dir = mkdtempSync(path.join(tmpdir(), 'respuesta-'));
  try {
    const text = xml.toString('latin1');
    const recibos = /<EnvioRecibos[\s>]/.test(text.slice(0, 200));
    const file = path.join(dir, 'respuesta.xml');
    writeFileSync(file, xml);
    const xsd = recibos ? 'EnvioRecibos_v10.xsd' : 'RespuestaEnvioDTE_v10.xsd';
    const schema = spawnSync('xmllint', ['--noout', '--schema', path.join(SII_SCHEMAS_DIR, xsd), file], { encoding: 'utf8' });
    const runs = [
      spawnSync(
        'xmlsec1',
        ['--verify', '--id-attr:ID', recibos ? 'SetRecibos' : 'Resultado', '--node-xpath', "/*/*[local-name()='Signature']", file],
        { encoding: 'utf8' },
      ),
    ];
    if (recibos) {
      // The outer signature is the last child of the root; each Recibo's is inside it.
      const inner = [...text.matchAll(/<Recibo version="1\.0">[\s\S]*?<\/Recibo>/g)];
      if (inner.length === 0) runs.push({ ...runs[0]!, status: 1, stderr: 'no Recibo found' });
      inner.forEach((m, i) => {
        const f = path.join(dir, `recibo-${i}.xml`);
        const root = m[0].replace('<Recibo version="1.0">', '<Recibo xmlns="http://www.sii.cl/SiiDte" version="1.0">');
        writeFileSync(f, Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${root}`, 'latin1'));
        runs.push(spawnSync('xmlsec1', ['--verify', '--id-attr:ID', 'DocumentoRecibo', f], { encoding: 'utf8' }));
      });
    }
    return {
      ok: schema.status === 0 && runs.every((r) => r.status === 0),
      output: `xmllint ${xsd} (${String(schema.status)}): ${schema.stderr}\n${runs.map((r, i) => `xmlsec1 #${i} (${String(r.status)}): ${r.stderr}`).join('\n')}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
