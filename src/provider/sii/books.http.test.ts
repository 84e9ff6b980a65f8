import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildLibroCompraVenta, buildLibroGuia, type BookEntry } from '../../dte/index.ts';
import { checkHeader, writeSignedBook } from '../../dte/books/book-sign.ts';
import { describeEachDb } from '../../../test/support/db.ts';
import { RUT } from '../emulator/http.test-support.ts';
import { startSiiEmulator, tenantCredentials, type SiiEmulator } from '../emulator/sii/sii.test-support.ts';
import { ProviderError, type ProviderCredentials } from '../port.ts';
import { createSiiProvider, type SiiProvider } from './sii-provider.ts';

/**
 * Books through DTEUpload and QueryEstUp (docs/sii-direct.md "Books", docs/emulator.md "Books"):
 * the SII adapter against the emulator over HTTP. Amounts by hand (IVA 19 %).
 */
const AMB = 'certificacion' as const;

describeEachDb('certification books sent to the emulated SII', (backend) => {
  let emu: SiiEmulator;
  let sii: SiiProvider;
  const { cert, creds: siiCreds } = tenantCredentials();
  const creds: ProviderCredentials = { apiKey: '', ...siiCreds };
  const header = (folioNotificacion: number) => ({
    rutEmisor: RUT,
    periodo: '2026-03',
    fechaResolucion: '2014-08-22',
    numeroResolucion: 0,
    folioNotificacion,
    signer: cert.signer,
    now: emu.clock.now(),
  });
  const fecha = '2026-03-02';
  const ventas: BookEntry[] = [
    { tipoDoc: 33, folio: 1, fecha, rut: '77777777-7', exento: 0, neto: 100_000, iva: 19_000, total: 119_000 },
    { tipoDoc: 33, folio: 2, fecha, rut: '77777777-7', exento: 3_000, neto: 1_001, iva: 190, total: 4_191 },
    {
      tipoDoc: 61,
      folio: 1,
      fecha,
      rut: '77777777-7',
      exento: 0,
      neto: 10_000,
      iva: 1_900,
      total: 11_900,
      referencia: { tipoDoc: 33, folio: 1 },
    },
  ];
  const send = (book: Buffer) => sii.uploadBook(creds, { rutEmpresa: RUT, book, ambiente: AMB });
  const status = (trackId: string) => sii.bookStatus(creds, { rutEmpresa: RUT, trackId, ambiente: AMB });

  beforeAll(async () => {
    emu = await startSiiEmulator(backend);
    sii = createSiiProvider({ baseUrl: emu.baseUrl, timeoutMs: 20_000, sleep: async () => {} });
  });
  afterAll(async () => emu.close());

  it('a sales, a purchase and a guía book add up: LOK each; the same file again is STATUS 99 with the first track id', async () => {
    const venta = buildLibroCompraVenta({ ...header(1001), operacion: 'VENTA', entries: ventas });
    const compra = buildLibroCompraVenta({
      ...header(1002),
      operacion: 'COMPRA',
      entries: [{ tipoDoc: 33, folio: 7, fecha, rut: '77777777-7', exento: 0, neto: 50_000, iva: 9_500, total: 59_500 }],
    });
    const guia = buildLibroGuia({
      ...header(1003),
      entries: [
        { folio: 1, tpoOper: 5, fecha, rut: RUT },
        { folio: 2, tpoOper: 1, fecha, rut: '77777777-7', neto: 10_000, iva: 1_900, total: 11_900 },
        { folio: 3, anulado: 'folio', fecha },
      ],
    });
    for (const b of [venta.xml, compra.xml, guia.xml]) {
      const up = await send(b);
      expect(up).toMatchObject({ estado: '0', glosa: 'Upload OK' });
      expect(await status(up.trackId)).toEqual({ trackId: up.trackId, estado: 'LOK', glosa: 'Libro Aceptado', outcome: 'accepted' });
    }
    const again = await send(venta.xml);
    expect(again.estado).toBe('99');
    expect(again.glosa).toMatch(/Archivo ya fue enviado 2 veces con Trackid \d+/);
    expect((await status(again.trackId)).outcome).toBe('accepted');
  });

  it('a book whose totals were tampered with reads LRH with the totals that disagree', async () => {
    const book = buildLibroCompraVenta({ ...header(2001), operacion: 'VENTA', entries: ventas });
    // Re-signing a tampered book: build it with honest totals, then a second one whose ResumenPeriodo
    // is another book's (a detail dropped), so the signature is valid and only the totals lie.
    const fewer = buildLibroCompraVenta({ ...header(2001), operacion: 'VENTA', entries: ventas.slice(1) });
    const resumen = /<ResumenPeriodo>[\s\S]*<\/ResumenPeriodo>/;
    const lying = book.xml.toString('latin1').replace(resumen, resumen.exec(fewer.xml.toString('latin1'))![0]);
    // The signature now fails (the content changed): the SII refuses it at upload (STATUS 8).
    const refused = await send(Buffer.from(lying, 'latin1')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProviderError);
    expect((refused as ProviderError).message).toMatch(/STATUS 8/);

    // Signed after tampering (the engine's own book signer, as a tenant's faulty software would):
    // the signature holds, only the totals lie.
    const body = /<EnvioLibro ID="EnvioLibro">\n([\s\S]*?)<TmstFirma>/.exec(lying)![1]!.replace(/\n/g, '');
    const signedLie = writeSignedBook('LibroCompraVenta', 'LibroCV_v10.xsd', checkHeader(header(2001)), body);
    const up = await send(signedLie);
    const st = await status(up.trackId);
    expect(st.estado).toBe('LRH');
    expect(st.outcome).toBe('rejected');
    expect(st.glosa).toContain('TpoDoc 33 TotDoc: ResumenPeriodo 1, Detalle 2');
    expect(st.glosa).toContain('TpoDoc 33 TotMntNeto: ResumenPeriodo 1001, Detalle 101001');
    expect(st.glosa).not.toContain('TpoDoc 61');
  });

  it('a second book of the same kind with a used FolioNotificacion is refused: ENVIO NO REGISTRADO PARA LA EMPRESA', async () => {
    const a = buildLibroCompraVenta({ ...header(3001), operacion: 'VENTA', entries: ventas });
    expect((await send(a.xml)).estado).toBe('0');
    const b = buildLibroCompraVenta({ ...header(3001), operacion: 'VENTA', entries: ventas.slice(0, 1) });
    const e = await send(b.xml).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).kind).toBe('rejected');
    expect((e as ProviderError).message).toContain('ENVIO NO REGISTRADO PARA LA EMPRESA');
    // Another kind of book may carry the same folio.
    const c = buildLibroCompraVenta({ ...header(3001), operacion: 'COMPRA', entries: ventas.slice(0, 1) });
    expect((await send(c.xml)).estado).toBe('0');
  });

  it('a file that is not a valid book is STATUS 7 (schema)', async () => {
    const book = buildLibroCompraVenta({ ...header(4001), operacion: 'VENTA', entries: ventas });
    const broken = Buffer.from(
      book.xml.toString('latin1').replace('<TipoEnvio>TOTAL</TipoEnvio>', '<TipoEnvio>TODO</TipoEnvio>'),
      'latin1',
    );
    const e = await send(broken).catch((x: unknown) => x);
    expect((e as ProviderError).message).toMatch(/STATUS 7/);
  });
});
