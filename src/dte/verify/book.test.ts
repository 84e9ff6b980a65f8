import { describe, expect, it } from 'vitest';
import { testBookHeader } from '../../../test/support/dte/book-header.ts';
import { buildLibroCompraVenta, buildLibroGuia } from '../index.ts';
import { verifyBookSync } from './book.ts';

/** verifyBook (book.ts): the EnvioLibro signature in context, the carátula, what is not a book. */
const header = testBookHeader();
const { now } = header;
const fecha = '2026-11-28';
const venta = buildLibroCompraVenta({
  ...header,
  operacion: 'VENTA',
  entries: [{ tipoDoc: 33, folio: 1, fecha, rut: '77777777-7', exento: 0, neto: 100_000, iva: 19_000, total: 119_000 }],
});
const codes = (b: Buffer) => verifyBookSync(b, { now }).errors.map((e) => `${e.code} ${e.check}`);

describe('verifyBook', () => {
  it('a built book verifies and its carátula is read', () => {
    const v = verifyBookSync(venta.xml, { now });
    expect(v.errors).toEqual([]);
    expect(v).toMatchObject({
      valid: true,
      kind: 'LibroCompraVenta',
      caratula: { rutEmisor: '76192083-9', periodo: '2026-11', tipoOperacion: 'VENTA', tipoLibro: 'ESPECIAL', folioNotificacion: 4244619 },
    });
    const guia = buildLibroGuia({ ...header, entries: [{ folio: 1, tpoOper: 5, fecha, rut: '76192083-9' }] });
    expect(verifyBookSync(guia.xml, { now })).toMatchObject({ valid: true, kind: 'LibroGuia' });
  });

  it('an altered amount breaks the signature (RFR); a signer past its certificate is RFR too', () => {
    const altered = Buffer.from(venta.xml.toString('latin1').replace('<TotMntNeto>100000<', '<TotMntNeto>100001<'), 'latin1');
    expect(codes(altered)).toEqual(['RFR book_signature']);
    expect(verifyBookSync(venta.xml, { now: new Date('2099-01-01T00:00:00Z') }).errors.map((e) => e.check)).toEqual([
      'certificate_expired',
    ]);
  });

  it('what is not a book, or not signed, or malformed, says so', () => {
    expect(codes(Buffer.from('<EnvioDTE xmlns="http://www.sii.cl/SiiDte"/>'))).toEqual(['RSC not_a_book']);
    expect(codes(Buffer.from('<LibroGuia><EnvioLibro'))).toEqual(['RSC xml_malformed']);
    const unsigned = Buffer.from(venta.xml.toString('latin1').replace(/<Signature[\s\S]*<\/Signature>\n?/, ''), 'latin1');
    expect(codes(unsigned)).toEqual(['RFR book_signature']);
  });
});
