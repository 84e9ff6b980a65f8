import { ownerAad } from '../../secrets/data-cipher.ts';
import type { EncryptedColumn } from '../../secrets/encrypted-columns.ts';

/**
 * A CAF's private key (RSASK) is encrypted under the data keyring and bound to its account,
 * tenant and range: a ciphertext copied to another row or tenant does not decrypt.
 */
export const cafKeyAad = (accountId: string, tenantId: string, rangeId: string) =>
  ownerAad({ accountId, tenantId, kind: 'caf-key', id: rangeId });

export const foliosEncryptedColumns: EncryptedColumn[] = [
  {
    table: 'folio_ranges',
    column: 'private_key_enc',
    key: 'id',
    needs: ['account_id', 'tenant_id'],
    aad: (r) => cafKeyAad(String(r.account_id), String(r.tenant_id), String(r.id)),
  },
];
