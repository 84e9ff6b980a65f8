import type { EncryptedColumn } from '../../secrets/encrypted-columns.ts';
import { secretOwner } from './secret-store.ts';

/** The webhook columns that hold data-keyring envelopes, for key rotation (src/secrets/rotation.ts). */
export const webhooksEncryptedColumns: EncryptedColumn[] = [
  {
    table: 'webhook_endpoints',
    column: 'secret_enc',
    key: 'id',
    needs: ['account_id'],
    aad: (row) => secretOwner(String(row.account_id), String(row.id), 'current'),
  },
  {
    table: 'webhook_endpoints',
    column: 'previous_secret_enc',
    key: 'id',
    needs: ['account_id'],
    aad: (row) => secretOwner(String(row.account_id), String(row.id), 'previous'),
  },
];
