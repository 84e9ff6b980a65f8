import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate, SUPPORTED_TIPOS_DTE, type TipoDte } from '../../../src/dte/index.ts';
import { runCheckSiiXml } from '../../support/dte/check-sii-xml.ts';
import type { InProcessEmulator } from '../../../src/provider/emulator/inprocess.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';

/**
 * The contract's typical flow on the embedded default (in-process emulator): tenant →
 * credentials → folios → one DTE of every supported type → send → final states. The stored XML
 * passes the reference checker with the emulator's SII key.
 */
describeEachDb('issuing end to end, in-process emulator', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key);
  });
  afterAll(() => t?.close());

  it('requests folios, creates one DTE of each type, sends them and reaches accepted', async () => {
    for (const tipo of SUPPORTED_TIPOS_DTE) {
      const r = await requestFolios(t, key, tenantId, tipo, 5);
      expect(r).toMatchObject({ status: 'completed', tipoDte: tipo, cantidad: 5, rango: { desde: 1, hasta: 5 } });
    }
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json();
    expect(inv.data.map((i: { tipoDte: number }) => i.tipoDte)).toEqual([...SUPPORTED_TIPOS_DTE]);
    expect(inv.data[0]).toMatchObject({ total: 5, usados: 0, disponibles: 5, porcentaje: 100, siguienteFolio: 1, lowThreshold: 10 });

    const ids: Record<number, string> = {};
    const create = async (tipo: TipoDte, over: Record<string, unknown> = {}) => {
      const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(tipo, over) });
      expect(r.statusCode, r.body).toBe(201);
      const d = r.json();
      expect(d).toMatchObject({ tipoDte: tipo, folio: 1, status: 'created', trackId: null, sii: { estado: null, glosa: null } });
      ids[tipo] = d.id;
      return d;
    };
    const factura = await create(33);
    expect(factura).toMatchObject({
      montoNeto: 369486,
      iva: 70202,
      montoExento: 90000,
      montoTotal: 529688,
      fechaEmision: siiDate(new Date()),
    });
    const ref = [{ tipoDocRef: 33, folioRef: factura.folio, fechaRef: factura.fechaEmision, codRef: 3, razonRef: 'Corrige montos' }];
    for (const tipo of [34, 39, 41, 46, 52] as const) await create(tipo);
    for (const tipo of [56, 61] as const) await create(tipo, { referencias: ref });
    await create(43);
    const exportacion = await create(110);
    const refExp = [
      { tipoDocRef: 110, folioRef: exportacion.folio, fechaRef: exportacion.fechaEmision, codRef: 3, razonRef: 'Corrige montos' },
    ];
    for (const tipo of [111, 112] as const) await create(tipo, { referencias: refExp });

    const xml = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${ids[33]}/xml` });
    expect(xml.headers['content-type']).toBe('application/xml; charset=ISO-8859-1');
    expect(xml.rawPayload.subarray(0, 43).toString('latin1')).toBe('<?xml version="1.0" encoding="ISO-8859-1"?>');
    expect(xml.rawPayload.includes(Buffer.from('Ñandú', 'latin1'))).toBe(true);

    const order = [33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112].map((x) => ids[x]!);
    const sent = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: order } });
    expect(sent.statusCode, sent.body).toBe(202);
    const envios = sent.json().envios as { id: string; tipoEnvio: string; dteIds: string[]; trackId: string | null; status: string }[];
    expect(envios.map((e) => [e.tipoEnvio, e.dteIds.length])).toEqual([
      ['EnvioDTE', 10],
      ['EnvioBOLETA', 2],
    ]);
    expect(envios.every((e) => e.trackId && e.status !== 'pending')).toBe(true);

    for (const tipo of SUPPORTED_TIPOS_DTE) {
      const s = await waitFinal(t, key, ids[tipo]!);
      expect(s, `type ${tipo}: ${JSON.stringify(s)}`).toMatchObject({ status: 'accepted', sii: { estado: 'DOK' } });
      expect(s.trackId).toBe(envios.find((e) => e.dteIds.includes(ids[tipo]!))!.trackId);
    }
    // The contract path answers the same.
    const same = await t.call(key, { method: 'GET', url: `/dte/${ids[33]}/status` });
    expect(same.json()).toEqual((await t.call(key, { method: 'GET', url: `/api/v1/dte/${ids[33]}/status` })).json());

    const hist = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${ids[33]}/history` })).json().data;
    expect(hist.map((h: { status: string }) => h.status)).toEqual(['created', 'sending', 'sent', 'accepted']);

    const events = await t.ctx.db.query<{ payload: string }>(
      `select payload from outbox_events where event_type = 'dte.status.changed' order by created_at`,
    );
    const forFactura = events.rows.map((r) => JSON.parse(r.payload).data).filter((d) => d.dteId === ids[33]);
    expect(forFactura.map((d) => `${d.previousStatus}>${d.status}`)).toEqual(['created>sending', 'sending>sent', 'sent>accepted']);
    expect(forFactura[2]).toMatchObject({ tenantId, tipoDte: 33, folio: 1, trackId: expect.any(String), sii: { estado: 'DOK' } });

    // The bytes the service stored pass the reference checker: each non-boleta DTE on its own,
    // and both envelopes (a boleta has no standalone schema: it is checked inside EnvioBOLETA).
    const files: { name: string; bytes: Buffer }[] = [];
    for (const tipo of [33, 34, 46, 52, 56, 61]) {
      const r = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${ids[tipo]}/xml` });
      files.push({ name: `dte-${tipo}.xml`, bytes: r.rawPayload });
    }
    for (const e of envios) {
      const r = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/envios/${e.id}/xml` });
      expect(r.statusCode).toBe(200);
      files.push({ name: `${e.tipoEnvio}.xml`, bytes: r.rawPayload });
    }
    const check = runCheckSiiXml(files, { cafKeyPem: (t.ctx.provider as InProcessEmulator).siiKey.publicKeyPem });
    expect(check.failures, check.output).toEqual([]);
    expect(check.exitCode).toBe(0);
    expect(check.lines.filter((l) => l.startsWith('ok')).length).toBeGreaterThan(30);
  });
});
