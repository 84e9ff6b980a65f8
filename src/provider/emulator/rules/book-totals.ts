import { blocks, num, text } from './xml.ts';

/**
 * The SII's review of a book's ResumenPeriodo against its Detalle (docs/emulator.md, "Books"):
 * the certification books are answered LOK when the period's totals agree with the documents
 * and LRH ("mismatched totals") when they do not (docs/sources.md §1.4, from live use). Which
 * totals are compared follows the IECV format (docs/sources.md [IECV]: each TotalesPeriodo is the
 * sum of its type's Detalle; TotDoc counts them, TotAnulado the cancelled ones) and the LibroGuia
 * schema's ResumenPeriodo (TotFolAnulado, TotGuiaAnulada, TotGuiaVenta/TotMntGuiaVta for sales,
 * TotTraslado per TpoTraslado for the rest). The wording of each mismatch is ours.
 */
export type BookKind = 'LibroCompraVenta' | 'LibroGuia';

const sum = (rows: string[], name: string) => rows.reduce((s, d) => s + (num(text(d, name)) ?? 0), 0);

function compare(out: string[], what: string, declared: number | null, computed: number) {
  if ((declared ?? 0) !== computed) out.push(`${what}: ResumenPeriodo ${declared ?? 0}, Detalle ${computed}`);
}

function compraVentaMismatches(xml: string): string[] {
  const out: string[] = [];
  const details = blocks(xml, 'Detalle');
  const resumen = text(xml, 'ResumenPeriodo') ?? '';
  const declared = new Map(blocks(resumen, 'TotalesPeriodo').map((t) => [num(text(t, 'TpoDoc')), t]));
  const types = new Set<number | null>([...declared.keys(), ...details.map((d) => num(text(d, 'TpoDoc')))]);
  for (const tipo of [...types].sort((a, b) => (a ?? 0) - (b ?? 0))) {
    const rows = details.filter((d) => num(text(d, 'TpoDoc')) === tipo);
    const t = declared.get(tipo) ?? '';
    const p = `TpoDoc ${String(tipo)}`;
    compare(out, `${p} TotDoc`, num(text(t, 'TotDoc')), rows.length);
    compare(out, `${p} TotAnulado`, num(text(t, 'TotAnulado')), rows.filter((d) => text(d, 'Anulado') === 'A').length);
    compare(out, `${p} TotMntExe`, num(text(t, 'TotMntExe')), sum(rows, 'MntExe'));
    compare(out, `${p} TotMntNeto`, num(text(t, 'TotMntNeto')), sum(rows, 'MntNeto'));
    compare(out, `${p} TotMntIVA`, num(text(t, 'TotMntIVA')), sum(rows, 'MntIVA'));
    compare(out, `${p} TotMntTotal`, num(text(t, 'TotMntTotal')), sum(rows, 'MntTotal'));
  }
  return out;
}

function guiaMismatches(xml: string): string[] {
  const out: string[] = [];
  const details = blocks(xml, 'Detalle');
  const resumen = text(xml, 'ResumenPeriodo') ?? '';
  const live = details.filter((d) => text(d, 'Anulado') === undefined);
  const ventas = live.filter((d) => text(d, 'TpoOper') === '1');
  compare(out, 'TotFolAnulado', num(text(resumen, 'TotFolAnulado')), details.filter((d) => text(d, 'Anulado') === '1').length);
  compare(out, 'TotGuiaAnulada', num(text(resumen, 'TotGuiaAnulada')), details.filter((d) => text(d, 'Anulado') === '2').length);
  compare(out, 'TotGuiaVenta', num(text(resumen, 'TotGuiaVenta')), ventas.length);
  compare(out, 'TotMntGuiaVta', num(text(resumen, 'TotMntGuiaVta')), sum(ventas, 'MntTotal'));
  const declared = new Map(blocks(resumen, 'TotTraslado').map((t) => [num(text(t, 'TpoTraslado')), t]));
  const traslados = live.filter((d) => text(d, 'TpoOper') !== '1');
  const kinds = new Set<number | null>([...declared.keys(), ...traslados.map((d) => num(text(d, 'TpoOper')))]);
  for (const k of [...kinds].sort((a, b) => (a ?? 0) - (b ?? 0))) {
    const rows = traslados.filter((d) => num(text(d, 'TpoOper')) === k);
    const t = declared.get(k) ?? '';
    compare(out, `TpoTraslado ${String(k)} CantGuia`, num(text(t, 'CantGuia')), rows.length);
    compare(out, `TpoTraslado ${String(k)} MntGuia`, num(text(t, 'MntGuia')), sum(rows, 'MntTotal'));
  }
  return out;
}

/** The totals that disagree with the details, each named; empty when the book adds up. */
export function bookTotalMismatches(kind: BookKind, xml: string): string[] {
  return kind === 'LibroGuia' ? guiaMismatches(xml) : compraVentaMismatches(xml);
}
