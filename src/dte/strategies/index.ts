import { DOCUMENT_TYPES } from '../catalogue.ts';
import type { DocumentType, StrategyName, TipoDte } from '../catalogue.ts';
import { boleta, boletaExenta } from './boleta.ts';
import { factura, facturaCompra, facturaExenta, guia, nota } from './dte-v10.ts';
import { facturaExportacion, notaExportacion } from './exportacion.ts';
import { liquidacionFactura } from './liquidacion.ts';
import type { DocumentStrategy } from './strategy.ts';

export type { DocumentStrategy } from './strategy.ts';

/**
 * The strategies by the name the catalogue gives each type (catalogue.ts, `strategy`): the facts
 * about a type are read from the catalogue, how it is checked and written from here.
 */
const STRATEGIES: Record<StrategyName, DocumentStrategy> = {
  factura,
  facturaExenta,
  facturaCompra,
  boleta,
  boletaExenta,
  liquidacionFactura,
  guia,
  nota,
  facturaExportacion,
  notaExportacion,
};

/** Each type's strategy, with the catalogue's schema root beside the hooks (callers ask it for both). */
const BY_TYPE: ReadonlyMap<number, DocumentStrategy & { root: DocumentType['root'] }> = new Map(
  DOCUMENT_TYPES.map((t) => [t.codigo, { ...STRATEGIES[t.strategy], root: t.root }]),
);

export function strategyFor(tipoDte: TipoDte): DocumentStrategy & { root: DocumentType['root'] } {
  return BY_TYPE.get(tipoDte)!;
}
