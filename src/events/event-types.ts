/** The four events of the contract (section 6), and `dte.received` (docs/decisions.md §13, docs/received.md). */
export const EVENT_TYPES = [
  'tenant.credentials.updated',
  'folio.low',
  'certificate.expiring',
  'dte.status.changed',
  'dte.received',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (v: string): v is EventType => (EVENT_TYPES as readonly string[]).includes(v);
