import { isSupportedTipoDte } from '../types.ts';
import type { TipoDte } from '../types.ts';
import { boleta, boletaExenta } from './boleta.ts';
import { factura, facturaCompra, facturaExenta, guia, nota } from './dte-v10.ts';
import { facturaExportacion, notaExportacion } from './exportacion.ts';
import { liquidacionFactura } from './liquidacion.ts';
import type { DocumentStrategy } from './strategy.ts';

export type { DocumentStrategy } from './strategy.ts';

/**
 * The one table of document types: every per-type rule (activity codes, line limit, envelope,
 * receptor, references, all-exempt, boleta or not, schema root) is read from here, by the engine
 * and by the issuing module alike.
 */
const STRATEGIES: Record<TipoDte, DocumentStrategy> = {
  33: factura,
  34: facturaExenta,
  39: boleta,
  41: boletaExenta,
  43: liquidacionFactura,
  46: facturaCompra,
  52: guia,
  56: nota,
  61: nota,
  110: facturaExportacion,
  111: notaExportacion,
  112: notaExportacion,
};

export function strategyFor(tipoDte: TipoDte): DocumentStrategy {
  return STRATEGIES[tipoDte];
}

/** The envelope of a stored or foreign DTE; a type this engine does not build travels in an EnvioDTE. */
export function envelopeKindFor(tipoDte: number): 'EnvioDTE' | 'EnvioBOLETA' {
  return isSupportedTipoDte(tipoDte) ? STRATEGIES[tipoDte].envelope : 'EnvioDTE';
}

/** Whether a stored or foreign DTE's type is a boleta (39, 41). */
export function isBoleta(tipoDte: number): boolean {
  return isSupportedTipoDte(tipoDte) && STRATEGIES[tipoDte].boleta;
}
