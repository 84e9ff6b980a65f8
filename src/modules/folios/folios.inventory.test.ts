import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/support/db.ts';
import { foliosHarness, type FoliosHarness } from '../../../test/support/folios.ts';

/** The inventory and the folio.low alarm: once per fall below the threshold, re-armed by a refill. */
describeEachDb('folio inventory and folio.low', (backend) => {
  let h: FoliosHarness;
  afterEach(() => h?.close());

  const reserve = (tipoDte: number) => h.folios.reserve(h.accountId, h.tenant.id, tipoDte);

  it('fires once when stock falls below the threshold, and again only after a refill re-arms it', async () => {
    h = await foliosHarness(backend);
    await h.grant(39, 5);
    expect(await h.folios.setThreshold(h.tenant, '39', 3)).toMatchObject({ tipoDte: 39, lowThreshold: 3, disponibles: 5 });
    await reserve(39); // 4 left
    await reserve(39); // 3 left: not below 3
    expect(await h.lowEvents()).toEqual([]);
    await reserve(39); // 2 left: below, fires
    await reserve(39); // 1 left: already fired
    expect(await h.lowEvents()).toEqual([{ tenantId: h.tenant.id, tipoDte: 39, disponibles: 2, lowThreshold: 3 }]);
    await h.grant(39, 1); // 2 left: a refill still below is not a fall
    expect(await h.lowEvents()).toHaveLength(1);
    await h.grant(39, 10); // 12 left: re-armed
    for (let i = 0; i < 10; i++) await reserve(39); // 2 left: fires again
    expect((await h.lowEvents()).map((e) => e.disponibles)).toEqual([2, 2]);
  });

  it('fires once when many concurrent allocations cross the threshold together', async () => {
    h = await foliosHarness(backend);
    await h.grant(33, 20);
    await h.folios.setThreshold(h.tenant, '33', 10);
    await Promise.all(Array.from({ length: 15 }, () => reserve(33)));
    expect(await h.lowEvents()).toHaveLength(1);
  });

  it('fires once when the threshold is raised above the stock', async () => {
    h = await foliosHarness(backend);
    await h.grant(34, 4);
    await h.folios.setThreshold(h.tenant, '34', 2);
    expect(await h.lowEvents()).toEqual([]);
    await h.folios.setThreshold(h.tenant, '34', 50);
    await h.folios.setThreshold(h.tenant, '34', 60);
    expect(await h.lowEvents()).toEqual([{ tenantId: h.tenant.id, tipoDte: 34, disponibles: 4, lowThreshold: 50 }]);
  });

  it('counts the usable ranges per type, oldest first, with the default threshold', async () => {
    h = await foliosHarness(backend);
    expect(await h.folios.inventory(h.tenant)).toEqual({ data: [] });
    await h.grant(33, 25);
    await h.grant(33, 5);
    await h.folios.setThreshold(h.tenant, '52', 4);
    await reserve(33);
    const { data } = await h.folios.inventory(h.tenant);
    expect(data).toEqual([
      {
        tipoDte: 33,
        total: 30,
        usados: 1,
        disponibles: 29,
        porcentaje: 96.7,
        siguienteFolio: 2,
        lowThreshold: 10,
        rangos: [
          { desde: 1, hasta: 25, fechaAutorizacion: '2026-03-02', vencimiento: expect.any(String), disponibles: 24 },
          { desde: 26, hasta: 30, fechaAutorizacion: '2026-03-02', vencimiento: expect.any(String), disponibles: 5 },
        ],
      },
      { tipoDte: 52, total: 0, usados: 0, disponibles: 0, porcentaje: 0, siguienteFolio: null, lowThreshold: 4, rangos: [] },
    ]);
    const other = { ...h.tenant, id: crypto.randomUUID() };
    expect(await h.folios.inventory(other)).toEqual({ data: [] });
  });

  it('checks the type of a threshold', async () => {
    h = await foliosHarness(backend);
    await expect(h.folios.setThreshold(h.tenant, 'abc', 3)).rejects.toMatchObject({ code: 'invalid_tipo_dte' });
    await expect(h.folios.setThreshold(h.tenant, '99', 3)).rejects.toMatchObject({ code: 'unsupported_tipo_dte' });
  });
});
