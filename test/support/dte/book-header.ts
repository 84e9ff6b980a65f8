import { createTestCertificate } from './test-certificate.ts';

/**
 * A book's header for the engine's book tests (src/dte/books, src/dte/verify): set 01's sales-book
 * attention number as FolioNotificacion, signed with a fresh test certificate at a fixed time.
 */
export function testBookHeader(now = new Date('2026-11-28T15:00:00Z')) {
  return {
    rutEmisor: '76192083-9',
    periodo: '2026-11',
    fechaResolucion: '2014-08-22',
    numeroResolucion: 0,
    folioNotificacion: 4244619,
    signer: createTestCertificate().signer,
    now,
  };
}
