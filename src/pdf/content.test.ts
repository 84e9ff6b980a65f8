import { describe, expect, it } from 'vitest';
import { readPrintable } from '../dte/index.ts';
import { montoBrutoNote, totalRows } from './content.ts';

/**
 * What the totals box and its note say, from hand-written XML: readPrintable reads only what is
 * printed, so a bare IdDoc and Totales are enough.
 */
const xml = (tipo: number, idDoc: string, totales: string) =>
  Buffer.from(
    `<?xml version="1.0" encoding="ISO-8859-1"?><DTE version="1.0"><Documento ID="T"><Encabezado>` +
      `<IdDoc><TipoDTE>${tipo}</TipoDTE><Folio>1</Folio><FchEmis>2026-03-02</FchEmis>${idDoc}</IdDoc>` +
      `<Emisor><RUTEmisor>76192083-9</RUTEmisor><RznSoc>SASCO SpA</RznSoc></Emisor>` +
      `<Receptor><RUTRecep>77777777-7</RUTRecep><RznSocRecep>Comprador</RznSocRecep></Receptor>` +
      `<Totales>${totales}</Totales></Encabezado>` +
      `<Detalle><NroLinDet>1</NroLinDet><NmbItem>Trigo</NmbItem><MontoItem>100000</MontoItem></Detalle>` +
      `<TED version="1.0"><DD></DD></TED></Documento></DTE>`,
    'latin1',
  );

describe('totals of the printed document', () => {
  it('prints a withholding as such, subtracted on a factura de compra (MntTotal, format document field 124)', () => {
    const totales =
      '<MntNeto>100000</MntNeto><TasaIVA>19</TasaIVA><IVA>19000</IVA>' +
      '<ImptoReten><TipoImp>15</TipoImp><TasaImp>19</TasaImp><MontoImp>19000</MontoImp></ImptoReten>' +
      '<ImptoReten><TipoImp>24</TipoImp><TasaImp>31.5</TasaImp><MontoImp>100</MontoImp></ImptoReten>' +
      '<MntTotal>100100</MntTotal>';
    const compra = totalRows(readPrintable(xml(46, '', totales)));
    expect(compra.find((r) => r.label.startsWith('IVA retenido total'))?.value).toBe('-$ 19.000');
    expect(compra.find((r) => r.label.startsWith('Licores'))?.value).toBe('$ 100');
    const venta = totalRows(readPrintable(xml(33, '', totales.replace('<TipoImp>15', '<TipoImp>48'))));
    expect(venta.find((r) => r.label.startsWith('Retención'))?.label).toBe('Retención Impuesto código 48 19 %');
  });

  it('says that prices include IVA on a boleta afecta unless its amounts are net, and on MntBruto documents', () => {
    expect(montoBrutoNote(readPrintable(xml(39, '', '<MntTotal>1190</MntTotal>')))).toBe('Los precios incluyen IVA.');
    expect(montoBrutoNote(readPrintable(xml(39, '<IndMntNeto>2</IndMntNeto>', '<MntTotal>1190</MntTotal>')))).toBe('');
    expect(montoBrutoNote(readPrintable(xml(41, '', '<MntTotal>1190</MntTotal>')))).toBe('');
    expect(montoBrutoNote(readPrintable(xml(33, '<MntBruto>1</MntBruto>', '<MntTotal>1190</MntTotal>')))).toBe('Los precios incluyen IVA.');
    expect(montoBrutoNote(readPrintable(xml(33, '', '<MntTotal>1190</MntTotal>')))).toBe('');
  });
});
