/** The four events of the contract (section 6). */
export const EVENT_TYPES = ['tenant.credentials.updated', 'folio.low', 'certificate.expiring', 'dte.status.changed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (v: string): v is EventType => (EVENT_TYPES as readonly string[]).includes(v);
