import type { FastifyInstance } from 'fastify';
import { manualClock } from '../../../lib/clock.ts';
import { openTestDb, type Backend, type TestDb } from '../../../../test/support/db.ts';
import { createTestCertificate, type TestCertificate } from '../../../../test/support/dte/test-certificate.ts';
import { createEmulatorCore, type EmulatorCore, type EmulatorCoreOptions } from '../emulator.ts';
import { schemaValidatorFrom } from '../schemas.ts';
import { buildEmulatorServer } from '../server.ts';
import { ephemeralSiiKey } from '../sii-key.ts';
import type { SiiCredentials } from '../../sii/context.ts';

/**
 * Test support for the SII face: the emulator listening on a real port (the adapters talk HTTP to
 * it through the global fetch, as to the SII), its clock, and a tenant-like certificate as a .pfx.
 */
export interface SiiEmulator {
  baseUrl: string;
  core: EmulatorCore;
  app: FastifyInstance;
  clock: ReturnType<typeof manualClock>;
  tdb: TestDb;
  close(): Promise<void>;
}

export async function startSiiEmulator(
  backend: Backend = 'pglite',
  over: Partial<EmulatorCoreOptions> & { start?: string } = {},
): Promise<SiiEmulator> {
  const tdb = await openTestDb(backend);
  const clock = manualClock(over.start ?? '2026-03-02T12:30:00.000Z');
  const core = createEmulatorCore({
    db: tdb.db,
    clock,
    siiKey: ephemeralSiiKey(),
    processingDelayMs: 0,
    schemaValidator: schemaValidatorFrom(),
    ...over,
  });
  const app = await buildEmulatorServer(core);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    core,
    app,
    clock,
    tdb,
    async close() {
      await app.close();
      await tdb.close();
    },
  };
}

export const CERT_PASSWORD = 'clave-del-pfx';

/** A signer's certificate as a tenant stores it: the .pfx, its password and the holder's RUT. */
export function tenantCredentials(cert: TestCertificate = createTestCertificate({ rut: '12345678-5', commonName: 'Firmante de Prueba' })) {
  const creds: SiiCredentials = { pfx: cert.toPfx(CERT_PASSWORD), pfxPassword: CERT_PASSWORD, rutCertificado: cert.rut };
  return { cert, creds };
}
