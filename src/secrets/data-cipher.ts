import type { Envelope } from './envelope.ts';

/**
 * Encryption of values kept in the main database (the .pfx file, CAF private keys): an envelope
 * under the data keyring, bound to its owner through the associated data. Store the returned
 * Buffer in a bytea column; decrypting under any other owner string fails closed.
 *
 * Whoever adds an encrypted column exports it as an `EncryptedColumn` and the composition root
 * (src/context.ts) lists it, so that key rotation re-wraps it.
 */
export type DataCipher = Pick<Envelope, 'encrypt' | 'decrypt' | 'decryptString'>;

export interface Owner {
  accountId: string;
  tenantId?: string;
  /** What the value is, e.g. `pfx` or `caf-key`. */
  kind: string;
  /** The row the value belongs to. */
  id: string;
}

/** The owner string: every part that must match for the value to decrypt. */
export const ownerAad = (o: Owner): string => `v1|account=${o.accountId}|tenant=${o.tenantId ?? '-'}|${o.kind}=${o.id}`;
