import { credentialsEncryptedColumns } from '../modules/credentials/credentials.encrypted.ts';
import { webhooksEncryptedColumns } from '../modules/webhooks/webhooks.encrypted.ts';
import { foliosEncryptedColumns } from '../modules/folios/folios.encrypted.ts';

/**
 * Every column of the main database that holds a data-keyring envelope, with how to rebuild its
 * owner string from the row. Key rotation (`npx dte keys rotate`) re-wraps each of them, and
 * `npx dte keys status` counts them, so a module that adds an encrypted column adds it here.
 */
export interface EncryptedColumn {
  table: string;
  column: string;
  /** The primary key column (one column). */
  key: string;
  /** Columns the owner string needs. */
  needs: string[];
  aad(row: Record<string, unknown>): string;
}

export function collectEncryptedColumns(): EncryptedColumn[] {
  return [...credentialsEncryptedColumns, ...webhooksEncryptedColumns, ...foliosEncryptedColumns];
}
