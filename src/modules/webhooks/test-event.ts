import type { EventType } from '../../events/event-types.ts';

/**
 * The body of a test event ("send a test event" in the dashboard, POST …/endpoints/{id}/test).
 * It has the real shape of the chosen event, so a receiver exercises its real code path, and
 * every id in it is the nil UUID, which no real tenant, certificate or DTE ever has: that is how a
 * receiver recognises a test.
 */
export const TEST_ID = '00000000-0000-0000-0000-000000000000';

export function testEventData(type: EventType, now: Date): Record<string, unknown> {
  switch (type) {
    case 'tenant.credentials.updated':
      return { tenantId: TEST_ID, apiKey: { configured: true }, certificate: { configured: true } };
    case 'folio.low':
      return { tenantId: TEST_ID, tipoDte: 33, disponibles: 9, lowThreshold: 10 };
    case 'certificate.expiring': {
      const expiry = new Date(now.getTime() + 30 * 86_400_000).toISOString().slice(0, 10);
      return {
        tenantId: TEST_ID,
        certificateId: TEST_ID,
        rutCertificado: '11.111.111-1',
        nombreTitular: 'Titular de Prueba',
        fechaVencimiento: expiry,
        daysRemaining: 30,
      };
    }
    case 'dte.status.changed':
      return {
        tenantId: TEST_ID,
        dteId: TEST_ID,
        tipoDte: 33,
        folio: 1,
        previousStatus: 'sent',
        status: 'accepted',
        trackId: '0',
        sii: { estado: 'EPR', glosa: 'Envio Procesado (test event)' },
      };
    case 'dte.received':
      return {
        tenantId: TEST_ID,
        receivedDteId: TEST_ID,
        tipoDte: 33,
        folio: 1,
        fechaEmision: now.toISOString().slice(0, 10),
        emisor: { rut: '76192083-9', razonSocial: 'Proveedor de Prueba SpA' },
        montoTotal: 119000,
        status: 'received',
        receivedAt: now.toISOString(),
        acceptanceDeadline: new Date(now.getTime() + 8 * 86_400_000).toISOString(),
      };
  }
}

/** `livemode`: the mode of the endpoint's scope, as a real event of that scope carries it (src/events/outbox.ts). */
export const testEventPayload = (type: EventType, now: Date, livemode: boolean): string =>
  JSON.stringify({ event: type, timestamp: now.toISOString(), livemode, data: testEventData(type, now) });
