/**
 * Writes a handful of documents the engine makes, for a checker to judge (`.ci/reference-check`):
 *
 *   node scripts/sample-documents.ts OUTDIR
 *
 * Single DTEs (a factura, an export, a nota de crédito, a liquidación-factura), an EnvioDTE with
 * every non-boleta type, an EnvioBOLETA with both boletas, and `caf-key.pem`, the public key of the
 * stand-in SII that signed their CAFs (for `--caf-key`). Test keys and certificate only: nothing
 * here is valid at the real SII.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildEnvelope, type TipoDte } from '../src/dte/index.ts';
import { createTestKit, sampleDteInput, TEST_NOW } from '../test/support/dte/fixtures.ts';

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/sample-documents.ts OUTDIR');
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const kit = createTestKit();
let folio = 100;
const dte = (tipo: TipoDte): Buffer => kit.build(sampleDteInput(tipo, folio++)).xml;
const envelope = (tipos: TipoDte[]): Buffer =>
  buildEnvelope({
    dtes: tipos.map(dte),
    rutEmisor: '76192083-9',
    fechaResolucion: '2014-08-22',
    numeroResolucion: 80,
    signer: kit.certificate.signer,
    now: TEST_NOW,
  }).xml;

const files: Record<string, Buffer> = {
  'factura-33.xml': dte(33),
  'exportacion-110.xml': dte(110),
  'nota-de-credito-61.xml': dte(61),
  'liquidacion-factura-43.xml': dte(43),
  'envio-dte.xml': envelope([33, 34, 46, 52, 56, 61]),
  'envio-boleta.xml': envelope([39, 41]),
};
for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(out, name), bytes);
fs.writeFileSync(path.join(out, 'caf-key.pem'), kit.sii.publicKeyPem);
console.log(`${Object.keys(files).length} documents and caf-key.pem written to ${out}`);
