import { describe, expect, it } from 'vitest';
import { buildDte, buildEnvelope, parseCaf, type TipoDte } from '../../../dte/index.ts';
import { manualClock } from '../../../lib/clock.ts';
import { openTestDb } from '../../../../test/support/db.ts';
import { sampleDteInput } from '../../../../test/support/dte/fixtures.ts';
import { RUT } from '../http.test-support.ts';
import { createInProcessEmulator } from '../inprocess.ts';
import { schemaValidatorFrom } from '../schemas.ts';
import { ephemeralSiiKey } from '../sii-key.ts';
import { tenantCredentials } from './sii.test-support.ts';

/**
 * PROVIDER=emulator serves direct tenants too (inprocess.ts siiProvider, over Fastify inject): the
 * boleta REST envío and status, and the registro, through the same routes as over a socket.
 */
describe('the in-process emulator serves boletas and the registro to the SII adapter', () => {
  it('sends boletas and reads them back, then registers an acceptance (0, then 7), through inject', async () => {
    const tdb = await openTestDb('pglite');
    const clock = manualClock('2026-11-28T12:00:00.000Z');
    const emu = createInProcessEmulator({
      db: tdb.db,
      clock,
      siiKey: ephemeralSiiKey(),
      processingDelayMs: 0,
      schemaValidator: schemaValidatorFrom(),
    });
    try {
      const { cert, creds: siiCreds } = tenantCredentials();
      const creds = { apiKey: 'sandbox-key-ok', ...siiCreds };
      const AMB = 'certificacion' as const;
      const envelopeOf = async (tipo: TipoDte, n: number) => {
        const c = parseCaf((await emu.requestCaf(creds, { rutEmpresa: RUT, tipoDte: tipo, cantidad: n, ambiente: AMB })).cafXml);
        const dtes = Array.from(
          { length: n },
          (_, i) =>
            buildDte(sampleDteInput(tipo, c.desde + i, { fechaEmision: '2026-11-28' }), { caf: c, signer: cert.signer, now: clock.now() })
              .xml,
        );
        const xml = buildEnvelope({
          dtes,
          rutEmisor: RUT,
          fechaResolucion: '2014-08-22',
          numeroResolucion: 80,
          signer: cert.signer,
          now: clock.now(),
        }).xml;
        return { xml, desde: c.desde };
      };
      const b = await envelopeOf(39, 3);
      const up = await emu.siiProvider.upload(creds, { rutEmpresa: RUT, envelope: b.xml, tipo: 'boleta', ambiente: AMB });
      expect(up.estado).toBe('REC');
      const st = await emu.siiProvider.uploadStatus(creds, { rutEmpresa: RUT, trackId: up.trackId, tipo: 'boleta', ambiente: AMB });
      expect(st).toMatchObject({
        estado: 'EPR',
        final: true,
        documentsListed: true,
        documents: [],
        estadistica: [{ tipoDte: 39, informados: 3, aceptados: 3 }],
      });

      const f = await envelopeOf(33, 1);
      await emu.upload(creds, { rutEmpresa: RUT, envelope: f.xml, tipo: 'dte', ambiente: AMB });
      const req = { rutEmisor: RUT, tipoDte: 33, folio: f.desde, accion: 'ACD' as const, ambiente: AMB };
      expect(await emu.siiProvider.registerAcceptance(creds, req)).toMatchObject({ outcome: 'registered', codigo: 0 });
      expect(await emu.siiProvider.registerAcceptance(creds, req)).toMatchObject({ outcome: 'registered', codigo: 7 });
      expect(emu.stats().sii.tokensIssued).toEqual({ soap: 1, rest: 1 });
    } finally {
      await emu.close();
      await tdb.close();
    }
  });
});
