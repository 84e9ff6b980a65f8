import crypto from 'node:crypto';
import type { Db } from '../../db/types.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeIterator, toPage, type Page } from '../../lib/pagination.ts';
import { newId } from '../../lib/tokens.ts';
import type { TenantRow } from '../tenants/index.ts';
import { createCertificationDocuments, type DocumentsDeps } from './certification.documents.ts';
import { createPrintedSamples, type SamplesDeps } from './certification.samples.ts';
import { createCertificationSend, type SendSetDeps } from './certification.send.ts';
import { certificationStore } from './certification.store.ts';
import { setBookKinds, toCertificationSet, type CertificationSet, type SetBook } from './certification.views.ts';
import { bookSendsStore } from './books/book-sends.store.ts';
import { toBookEnvio } from './books/book-send.ts';
import type { CertificationSetRow } from './certification.store.ts';
import { isSetParseError } from './set/set.errors.ts';
import { parseSet } from './set/set.parse.ts';
import { decodeSetText, UnsupportedCharsetError } from './set/set.text.ts';

/**
 * Certification (docs/certification.md): the SII's test set in, read once and kept per tenant.
 * Methods take the tenant row the caller resolved (docs/design.md §11); nothing here knows HTTP.
 */
export interface CertificationDeps {
  db: Db;
  clock: Clock;
  /** The dte module's surface the documents step and the printed samples need. */
  dte: DocumentsDeps['dte'] & SamplesDeps['dte'];
  folios: DocumentsDeps['folios'];
  dteSend: SendSetDeps['dteSend'];
}

export interface SetUpload {
  /** The set's bytes as sent (text/plain) or its text (JSON). */
  body: Uint8Array | string;
  /** The Content-Type's charset parameter, when there was one. */
  charset?: string | undefined;
}

export function createCertificationService({ db, clock, dte, folios, dteSend }: CertificationDeps) {
  const documents = createCertificationDocuments({ db, clock, dte, folios });
  /** Each book the set asks for with its latest send, as the poll job last read it. */
  const booksOf = async (row: CertificationSetRow): Promise<SetBook[]> =>
    Promise.all(
      setBookKinds(row).map(async (kind) => {
        const r = await bookSendsStore.latest(db, row.account_id, row.id, kind);
        return { kind, envio: r ? toBookEnvio(r) : null };
      }),
    );
  const show = async (row: CertificationSetRow) =>
    toCertificationSet(row, await certificationStore.documents(db, row.account_id, row.id), await booksOf(row));
  return {
    makeDocuments: documents.make,
    sendDocuments: createCertificationSend({ db, dte, dteSend }),
    printedSamples: createPrintedSamples({ db, clock, dte }),

    /**
     * Reads and keeps a set. The same text again (ISO-8859-1 or UTF-8, CRLF or LF) is the same
     * set: `created` false and the existing one.
     */
    async upload(tenant: TenantRow, upload: SetUpload): Promise<{ created: boolean; set: CertificationSet }> {
      let text: string;
      try {
        text = decodeSetText(upload.body, upload.charset);
      } catch (e) {
        if (e instanceof UnsupportedCharsetError)
          throw new AppError('unsupported_media_type', 'unsupported_media_type', e.message, { param: 'charset' });
        throw e;
      }
      let parsed;
      try {
        parsed = parseSet(text);
      } catch (e) {
        if (!isSetParseError(e)) throw e;
        throw errors.unprocessable('certification_set_unreadable', `The test set cannot be read. ${e.message}`, {
          param: 'body',
          details: { line: e.line, reason: e.reason, expected: e.expected },
        });
      }
      const stored = text.replace(/\r/g, '');
      const sha256 = crypto.createHash('sha256').update(stored, 'utf8').digest('hex');
      const inserted = await certificationStore.insert(db, {
        id: newId(),
        accountId: tenant.account_id,
        tenantId: tenant.id,
        sha256,
        text: stored,
        parsed,
        now: clock.now(),
      });
      if (inserted) return { created: true, set: toCertificationSet(inserted) };
      const existing = await certificationStore.byHash(db, tenant.account_id, tenant.id, sha256);
      // The row that won the race exists: the conflict that kept ours out is on it.
      if (!existing) throw new Error('certification set conflict without a row');
      return { created: false, set: await show(existing) };
    },

    async get(tenant: TenantRow, id: string): Promise<CertificationSet> {
      const row = await certificationStore.get(db, tenant.account_id, tenant.id, id);
      if (!row) throw errors.notFound('certification_set', id, 'setId');
      return show(row);
    },

    async list(tenant: TenantRow, o: { limit: number; iterator?: string | undefined }): Promise<Page<CertificationSet>> {
      const rows = await certificationStore.list(db, tenant.account_id, tenant.id, o.limit, decodeIterator(o.iterator));
      const shown = new Map<string, CertificationSet>();
      for (const r of rows) shown.set(r.id, await show(r));
      return toPage(
        rows,
        o.limit,
        (r) => ({ createdAt: new Date(r.created_at).toISOString(), id: r.id }),
        (r) => shown.get(r.id)!,
      );
    },
  };
}

export type CertificationService = ReturnType<typeof createCertificationService>;
