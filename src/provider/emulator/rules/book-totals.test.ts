import { describe, expect, it } from 'vitest';
import { bookTotalMismatches } from './book-totals.ts';

/** The emulated SII's book review (book-totals.ts): each total that disagrees with the details, named. */
const guia = (resumen: string) =>
  `<LibroGuia><EnvioLibro><ResumenPeriodo>${resumen}</ResumenPeriodo>` +
  '<Detalle><Folio>1</Folio><TpoOper>1</TpoOper><MntTotal>11900</MntTotal></Detalle>' +
  '<Detalle><Folio>2</Folio><Anulado>2</Anulado><TpoOper>1</TpoOper><MntTotal>500</MntTotal></Detalle>' +
  '<Detalle><Folio>3</Folio><Anulado>1</Anulado></Detalle>' +
  '<Detalle><Folio>4</Folio><TpoOper>5</TpoOper></Detalle></EnvioLibro></LibroGuia>';

describe('book totals against details', () => {
  it('a guía book that adds up has no mismatch; one that does not names each total', () => {
    const good =
      '<TotFolAnulado>1</TotFolAnulado><TotGuiaAnulada>1</TotGuiaAnulada><TotGuiaVenta>1</TotGuiaVenta><TotMntGuiaVta>11900</TotMntGuiaVta>' +
      '<TotTraslado><TpoTraslado>5</TpoTraslado><CantGuia>1</CantGuia><MntGuia>0</MntGuia></TotTraslado>';
    expect(bookTotalMismatches('LibroGuia', guia(good))).toEqual([]);
    const bad = '<TotGuiaVenta>2</TotGuiaVenta><TotMntGuiaVta>12400</TotMntGuiaVta>';
    expect(bookTotalMismatches('LibroGuia', guia(bad))).toEqual([
      'TotFolAnulado: ResumenPeriodo 0, Detalle 1',
      'TotGuiaAnulada: ResumenPeriodo 0, Detalle 1',
      'TotGuiaVenta: ResumenPeriodo 2, Detalle 1',
      'TotMntGuiaVta: ResumenPeriodo 12400, Detalle 11900',
      'TpoTraslado 5 CantGuia: ResumenPeriodo 0, Detalle 1',
    ]);
  });

  it('a sales book: a type in the details with no TotalesPeriodo, and a cancelled document counted', () => {
    const xml =
      '<LibroCompraVenta><EnvioLibro><ResumenPeriodo><TotalesPeriodo><TpoDoc>33</TpoDoc><TotDoc>2</TotDoc><TotAnulado>1</TotAnulado>' +
      '<TotMntExe>0</TotMntExe><TotMntNeto>1000</TotMntNeto><TotMntIVA>190</TotMntIVA><TotMntTotal>1190</TotMntTotal></TotalesPeriodo></ResumenPeriodo>' +
      '<Detalle><TpoDoc>33</TpoDoc><NroDoc>1</NroDoc><MntNeto>1000</MntNeto><MntIVA>190</MntIVA><MntTotal>1190</MntTotal></Detalle>' +
      '<Detalle><TpoDoc>33</TpoDoc><NroDoc>2</NroDoc><Anulado>A</Anulado></Detalle>' +
      '<Detalle><TpoDoc>34</TpoDoc><NroDoc>1</NroDoc><MntExe>500</MntExe><MntTotal>500</MntTotal></Detalle></EnvioLibro></LibroCompraVenta>';
    expect(bookTotalMismatches('LibroCompraVenta', xml)).toEqual([
      'TpoDoc 34 TotDoc: ResumenPeriodo 0, Detalle 1',
      'TpoDoc 34 TotMntExe: ResumenPeriodo 0, Detalle 500',
      'TpoDoc 34 TotMntTotal: ResumenPeriodo 0, Detalle 500',
    ]);
  });
});
