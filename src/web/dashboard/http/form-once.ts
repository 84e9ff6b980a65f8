import crypto from 'node:crypto';
import type { Sql } from '../../../db/types.ts';
import { AppError } from '../../../errors.ts';

/**
 * Forms that create something are submitted once (issue 18; docs/dashboard.md "Actions"). The
 * form carries a random token; the service binds its result to the token inside the transaction
 * that creates it (the same `bindResult` hook the API's Idempotency-Key uses), so of two
 * submissions of one form only one commits. The other is told which result the token already
 * has (`FormAlreadySubmitted`) and is redirected there; a submission that failed bound nothing
 * and may be sent again. Only the token's SHA-256 is stored.
 */
export const newFormToken = (): string => crypto.randomBytes(16).toString('base64url');

const TOKEN_RE = /^[A-Za-z0-9_-]{22}$/;
const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');
const DAY_MS = 86_400_000;

export class FormAlreadySubmitted extends AppError {
  readonly resultId: string;
  constructor(resultId: string) {
    super('conflict', 'form_already_submitted', 'This form was already submitted.', { details: { resultId } });
    this.resultId = resultId;
  }
}

export const formOnce = {
  /** The token of a submitted form, or undefined when it is missing or malformed (then nothing is bound). */
  token(raw: unknown): string | undefined {
    return typeof raw === 'string' && TOKEN_RE.test(raw) ? raw : undefined;
  },

  /** What a token already created, if anything (read before the work, to skip it on a resubmission). */
  async resultOf(sql: Sql, accountId: string, kind: string, token: string): Promise<string | undefined> {
    const r = await sql.query<{ result_id: string }>(
      'select result_id from dashboard_form_results where account_id = $1 and token_hash = $2 and kind = $3',
      [accountId, hash(token), kind],
    );
    return r.rows[0]?.result_id;
  },

  /**
   * The `bindResult` for the service: inside its transaction, claims the token for the new id.
   * A token another submission already claimed (it waits for that transaction) throws
   * FormAlreadySubmitted, which rolls this creation back.
   */
  binder(accountId: string, kind: string, token: string, now: Date) {
    return async (tx: Sql, id: string): Promise<void> => {
      // The account's own old tokens only: creates of different accounts never wait on each other.
      await tx.query('delete from dashboard_form_results where account_id = $1 and created_at < $2', [
        accountId,
        new Date(now.getTime() - DAY_MS),
      ]);
      const r = await tx.query(
        `insert into dashboard_form_results (account_id, token_hash, kind, result_id, created_at) values ($1, $2, $3, $4, $5)
         on conflict (account_id, token_hash) do nothing returning result_id`,
        [accountId, hash(token), kind, id, now],
      );
      if (r.rows.length === 0) {
        const first = await formOnce.resultOf(tx, accountId, kind, token);
        throw new FormAlreadySubmitted(first ?? id);
      }
    };
  },
};
