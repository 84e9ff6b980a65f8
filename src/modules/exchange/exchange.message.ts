/**
 * What every outbound message shares, whatever it carries (docs/exchange.md, "The message"): the
 * Message-ID domain, and which addresses a delivery is attempted to. The messages themselves are
 * composed by the modules that send them (src/modules/dte/dte.mail.ts, src/modules/received/received.mail.ts).
 */
/** The domain of the From address, for Message-IDs (`<delivery-id@domain>`); `localhost` if it has none. */
export function messageDomain(from: string): string {
  const m = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from.trim());
  return m?.[1]?.toLowerCase() || 'localhost';
}

/**
 * The header fields every message takes from its addressing (the Message-ID `<delivery-id@From
 * domain>`, From, To, and Reply-To when the tenant has an e-mail), written once for every composer.
 */
export function addressedHeaders(a: { deliveryId: string; from: string; to: string; replyTo: string | null }): {
  messageId: string;
  from: string;
  to: string;
  replyTo?: string;
} {
  return { messageId: `<${a.deliveryId}@${messageDomain(a.from)}>`, from: a.from, to: a.to, ...(a.replyTo ? { replyTo: a.replyTo } : {}) };
}

/** A plausible mailbox: what a delivery is attempted to (anything else is recorded as skipped). */
export const isDeliverableAddress = (s: string | null | undefined): s is string =>
  typeof s === 'string' && s.length <= 254 && /^[^\s@<>()",;:[\]]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(s.trim());
