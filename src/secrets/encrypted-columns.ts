/**
 * Every column of the main database that holds a data-keyring envelope, with how to rebuild its
 * owner string from the row. Key rotation (`npx dte keys rotate`) re-wraps each of them, and
 * `npx dte keys status` counts them, so a module that adds an encrypted column
 * exports it from its public surface and the composition root (src/context.ts) lists it.
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
