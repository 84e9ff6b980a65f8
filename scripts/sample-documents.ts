/**
 * Writes a handful of documents the engine makes, for a checker to judge (`.ci/reference-check`):
 *
 *   node scripts/sample-documents.ts OUTDIR
 *
 * Single DTEs (a factura, an export, a nota de crédito, a liquidación-factura), an EnvioDTE with
 * every non-boleta type, an EnvioBOLETA with both boletas, the three books (LibroCompraVenta COMPRA and
 * VENTA, LibroGuia), and `caf-key.pem`, the public key of the
 * stand-in SII that signed their CAFs (for `--caf-key`). Test keys and certificate only: nothing
 * here is valid at the real SII.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildEnvelope, buildLibroCompraVenta, buildLibroGuia, type TipoDte } from '../src/dte/index.ts';
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

// The books (docs/certification.md, "Books"): a purchase book with uso común, a gift and a
// withheld factura de compra, a sales book with a note, a guía book with an invoiced and a cancelled guía.
const book = {
  rutEmisor: '76192083-9',
  periodo: '2026-03',
  fechaResolucion: '2014-08-22',
  numeroResolucion: 80,
  folioNotificacion: 1,
  signer: kit.certificate.signer,
  now: TEST_NOW,
};

const files: Record<string, Buffer> = {
  'factura-33.xml': dte(33),
  'exportacion-110.xml': dte(110),
  'nota-de-credito-61.xml': dte(61),
  'liquidacion-factura-43.xml': dte(43),
  'envio-dte.xml': envelope([33, 34, 46, 52, 56, 61]),
  'envio-boleta.xml': envelope([39, 41]),
  'libro-compras.xml': buildLibroCompraVenta({
    ...book,
    operacion: 'COMPRA',
    factorProporcionalidad: 0.6,
    entries: [
      {
        tipoDoc: 30,
        folio: 781,
        fecha: '2026-03-02',
        rut: '77777777-7',
        razonSocial: 'Proveedor Ltda',
        exento: 0,
        neto: 29_783,
        iva: 5_659,
        ivaTreatment: { kind: 'uso_comun' },
      },
      {
        tipoDoc: 33,
        folio: 67,
        fecha: '2026-03-02',
        rut: '77777777-7',
        exento: 0,
        neto: 10_011,
        iva: 1_902,
        ivaTreatment: { kind: 'no_recuperable', codigo: 4 },
      },
      { tipoDoc: 46, folio: 9, fecha: '2026-03-02', rut: '77777777-7', exento: 0, neto: 9_567, iva: 1_818, ivaRetenidoTotal: 1_818 },
    ],
  }).xml,
  'libro-ventas.xml': buildLibroCompraVenta({
    ...book,
    operacion: 'VENTA',
    entries: [
      { tipoDoc: 33, folio: 1, fecha: '2026-03-02', rut: '77777777-7', exento: 0, neto: 100_000, iva: 19_000 },
      {
        tipoDoc: 61,
        folio: 1,
        fecha: '2026-03-02',
        rut: '77777777-7',
        exento: 0,
        neto: 10_000,
        iva: 1_900,
        referencia: { tipoDoc: 33, folio: 1 },
      },
    ],
  }).xml,
  'libro-guias.xml': buildLibroGuia({
    ...book,
    entries: [
      { folio: 1, tpoOper: 5, fecha: '2026-03-02', rut: '76192083-9' },
      {
        folio: 2,
        tpoOper: 1,
        fecha: '2026-03-02',
        rut: '77777777-7',
        neto: 1_000,
        iva: 190,
        total: 1_190,
        factura: { tipoDoc: 33, folio: 1, fecha: '2026-03-02' },
      },
      { folio: 3, tpoOper: 1, anulado: 'guia', fecha: '2026-03-02', rut: '77777777-7', neto: 1_000, iva: 190, total: 1_190 },
    ],
  }).xml,
};
for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(out, name), bytes);
fs.writeFileSync(path.join(out, 'caf-key.pem'), kit.sii.publicKeyPem);
console.log(`${Object.keys(files).length} documents and caf-key.pem written to ${out}`);
