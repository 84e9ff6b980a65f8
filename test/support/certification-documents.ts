import { prepareDte, type DocumentInput } from '../../src/dte/index.ts';
import type { CaseRequest } from '../../src/modules/certification/set/case-request.ts';

/**
 * Test-only: what GET …/dte/{id} says of the document made for a case of a test set, its folio
 * being the case's number and its amounts the engine's (prepareDte over the case's request, the
 * pending references pointing at the referenced case's folio). For the books' tests
 * (docs/certification.md, "Books"), until the set's documents are made through the API.
 */
export const CERT_EMISOR = {
  rut: '76.192.083-9',
  razonSocial: 'Servicios Ejemplo SpA',
  giro: 'Desarrollo de software',
  acteco: [620200],
  direccion: 'Av. Providencia 1234',
  comuna: 'Providencia',
  ciudad: 'Santiago',
};
const party = {
  rut: '77.777.777-7',
  razonSocial: 'Cliente SpA',
  giro: 'Comercio',
  direccion: 'Calle 1',
  comuna: 'Santiago',
  ciudad: 'Santiago',
};

export const caseOptions = (fecha: string) => ({
  fecha,
  receptor: party,
  emisor: { ...CERT_EMISOR, acteco: undefined },
  receptorExtranjero: { rut: '55.555.555-5', razonSocial: 'Globex', giro: 'Import', direccion: '1 Main St', ciudad: 'Bremen' },
});

export function issuedForCase(r: CaseRequest) {
  const folioOf = (caseId: string) => Number(caseId.split('-')[1]);
  const referencias = r.body.referencias.map((x, i) => {
    const pending = r.pending.find((p) => p.index === i);
    return { ...x, folioRef: pending ? folioOf(pending.caseId) : x.folioRef || 1 };
  });
  const p = prepareDte({ ...(r.body as unknown as DocumentInput), emisor: CERT_EMISOR, referencias } as DocumentInput);
  return {
    tipoDte: p.tipoDte,
    folio: folioOf(r.caseId),
    fechaEmision: p.fechaEmision,
    receptor: p.stored.receptor,
    referencias: p.stored.referencias,
    montoNeto: p.totals.montoNeto,
    montoExento: p.totals.montoExento,
    iva: p.totals.iva,
    impuestos: p.totals.impuestos.map(({ tipo, tasa, monto }) => ({ tipo, tasa, monto })),
    ivaRetenido: p.totals.ivaRetenido,
    montoTotal: p.totals.montoTotal,
    indTraslado: r.body.indTraslado ?? null,
  };
}
