import { ownerAad, type DataCipher } from '../../secrets/data-cipher.ts';

/**
 * Endpoint signing secrets are stored envelope-encrypted under the data keyring. The owner string
 * binds each ciphertext to its account, endpoint and slot (current or previous), so a ciphertext
 * copied to another row fails to decrypt instead of signing for someone else. Key rotation
 * re-wraps both columns (webhooks.encrypted.ts).
 */
export type SecretSlot = 'current' | 'previous';

const KIND: Record<SecretSlot, string> = { current: 'webhook-secret', previous: 'webhook-secret-previous' };

export const secretOwner = (accountId: string, endpointId: string, slot: SecretSlot = 'current'): string =>
  ownerAad({ accountId, kind: KIND[slot], id: endpointId });

export const encryptSecret = (cipher: DataCipher, accountId: string, endpointId: string, secret: string, slot: SecretSlot = 'current') =>
  cipher.encrypt(secret, secretOwner(accountId, endpointId, slot));

export const decryptSecret = (cipher: DataCipher, accountId: string, endpointId: string, blob: Buffer, slot: SecretSlot = 'current') =>
  cipher.decryptString(blob, secretOwner(accountId, endpointId, slot));
