import { toSiiRut } from '../../../dte/index.ts';
import type { Db } from '../../../db/types.ts';
import { AppError, errors } from '../../../errors.ts';
import { enqueue, fenced, type JobLease, type JobResult } from '../../../jobs/queue.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/tokens.ts';
import {
  ProviderError,
  providerErrorToAppError,
  rateLimitWaitMs,
  type Provider,
  type ProviderCredentials,
} from '../../../provider/index.ts';
import type { TenantRow } from '../../tenants/index.ts';
import { pollDelayMs } from '../../dte/index.ts';
import { bookSendsStore, type BookSendRow } from './book-sends.store.ts';
import type { BookKind } from './books.service.ts';

/**
 * Sending a set's book to the SII (docs/certification.md, "Books: sending"): the signed file of
 * `…/xml`, uploaded through the tenant's provider where its path can take books (the direct SII
 * path: DTEUpload, docs/sii-direct.md); a SimpleAPI tenant uploads it by hand (no source says
 * SimpleAPI takes books). One upload per set, kind and FolioNotificacion: asked again, the first
 * send answers; a new FolioNotificacion is a new upload.
 *
 * The claim lapses: the request that uploads holds the row under a token of its own with a short
 * lease it renews while it works (as the job queue does, src/jobs/queue.ts). A process that dies
 * mid-upload leaves a lease that runs out; the next send takes the row over and uploads the file
 * the dead one kept (the same bytes, so a file the SII already has answers with its first track
 * id). While a lease is live nobody else uploads the book, and a request whose lease was taken
 * over records nothing.
 *
 * The SII's review (LOK, LRH…) is followed by a job (BOOK_POLL_QUEUE) until it is final, as the
 * documents' verdicts are (docs/dte.md, "Sending"); GET …/books/{kind} shows what it read.
 */
export const BOOK_POLL_QUEUE = 'certification.book.poll';

/** How long a send's claim stands without renewal: what a dead process's claim waits before another send takes it over. */
export const BOOK_SEND_LEASE_MS = 30_000;

export interface BookEnvio {
  trackId: string | null;
  status: 'pending' | 'accepted' | 'rejected';
  estado: string | null;
  glosa: string | null;
  sentAt: string;
}

export interface BookSendDeps {
  db: Db;
  clock: Clock;
  provider: Pick<Provider, 'uploadBook' | 'bookStatus'>;
  credentials: { getProviderCredentials(accountId: string, tenantId: string): Promise<Required<ProviderCredentials>> };
  /** The poll job's way to the tenant. */
  getTenant: (accountId: string, tenantId: string) => Promise<TenantRow>;
  /** First review question after an upload (DTE_POLL_INITIAL, as for envelopes). */
  pollInitialMs?: number | undefined;
  /** BOOK_SEND_LEASE_MS unless given; renewed every third of it. */
  leaseMs?: number | undefined;
}

/** A send as the API shows it (an `uploading` claim reads as pending). */
export const toBookEnvio = (r: BookSendRow): BookEnvio => ({
  trackId: r.track_id,
  status: r.status === 'uploading' ? 'pending' : r.status,
  estado: r.estado,
  glosa: r.glosa,
  sentAt: r.sent_at.toISOString(),
});

const unsupported = () =>
  errors.conflict(
    'certification_book_upload_unsupported',
    "This tenant's provider takes no books (no source says SimpleAPI does): download the book from …/books/{kind}/xml and upload it in the SII's site.",
    { param: 'kind' },
  );

const inProgress = () =>
  errors.conflict('certification_book_send_in_progress', 'This book is being sent by another request: ask again in a moment.');

export function createBookSend(deps: BookSendDeps) {
  const { db, clock, provider } = deps;
  const leaseMs = deps.leaseMs ?? BOOK_SEND_LEASE_MS;

  async function directCreds(tenant: TenantRow) {
    const creds = await deps.credentials.getProviderCredentials(tenant.account_id, tenant.id);
    if (creds.via !== 'sii' || !provider.uploadBook || !provider.bookStatus) throw unsupported();
    return creds;
  }

  /** Renews the claim every third of the lease while `work` runs; `lost()` once a renewal found it taken over. */
  async function holding<T>(accountId: string, id: string, holder: string, work: (lost: () => boolean) => Promise<T>): Promise<T> {
    let lost = false;
    const timer = setInterval(
      () => {
        const until = new Date(clock.now().getTime() + leaseMs);
        bookSendsStore.renew(db, accountId, id, holder, until).then(
          (held) => void (lost ||= !held),
          () => undefined, // a failed renewal is retried at the next beat; the lease itself says who holds the row
        );
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    timer.unref();
    try {
      return await work(() => lost);
    } finally {
      clearInterval(timer);
    }
  }

  return {
    /** Uploads the book (built by `build`) unless this set, kind and folio were sent before: that send answers. */
    async send(
      tenant: TenantRow,
      b: { setId: string; kind: BookKind; folioNotificacion: number; build: () => Promise<Buffer> },
    ): Promise<BookEnvio> {
      const creds = await directCreds(tenant);
      const uploadBook = provider.uploadBook;
      if (!uploadBook) throw unsupported();
      const accountId = tenant.account_id;
      const holder = newId();
      const now = clock.now();
      const claimed = await bookSendsStore.claim(db, {
        id: newId(),
        accountId,
        tenantId: tenant.id,
        setId: b.setId,
        kind: b.kind,
        folio: b.folioNotificacion,
        holder,
        now,
        until: new Date(now.getTime() + leaseMs),
      });
      if (!claimed) {
        const prior = await bookSendsStore.get(db, accountId, b.setId, b.kind, b.folioNotificacion);
        if (prior && prior.status !== 'uploading') return toBookEnvio(prior);
        throw inProgress();
      }
      const id = claimed.id;
      const recorded = await holding(accountId, id, holder, async (lost) => {
        try {
          // A claim taken over from a dead process sends the file that process kept (see above).
          let book = await bookSendsStore.bookXml(db, accountId, id);
          if (!book) {
            book = await b.build();
            if (!(await bookSendsStore.saveBookXml(db, accountId, id, holder, book))) return false;
          }
          // The last moment to step back: past it, the upload happens.
          if (lost() || !(await bookSendsStore.renew(db, accountId, id, holder, new Date(clock.now().getTime() + leaseMs)))) return false;
          const up = await uploadBook(creds, { rutEmpresa: toSiiRut(tenant.rut_empresa), book, ambiente: tenant.ambiente });
          return await db.transaction(async (tx) => {
            const mine = await bookSendsStore.recordUpload(tx, accountId, id, holder, {
              trackId: up.trackId,
              estado: up.estado,
              glosa: up.glosa,
              now: clock.now(),
            });
            if (mine)
              await enqueue(
                tx,
                BOOK_POLL_QUEUE,
                { accountId, sendId: id },
                { delayMs: pollDelayMs(0, deps.pollInitialMs), singletonKey: `${BOOK_POLL_QUEUE}:${id}` },
              );
            return mine;
          });
        } catch (e) {
          // Nothing was taken: the claim goes (unless another send holds it now), so the book can be sent again.
          await bookSendsStore.release(db, accountId, id, holder);
          throw e instanceof ProviderError ? providerErrorToAppError(e) : e;
        }
      });
      const cur = await bookSendsStore.byId(db, accountId, id);
      // Not recorded: another send took the claim over; its outcome answers once it has one.
      if (!recorded && (!cur || cur.status === 'uploading')) throw inProgress();
      return toBookEnvio(cur!);
    },

    /** The kind's latest send as last read (the poll job follows the SII's review). */
    async envio(tenant: TenantRow, setId: string, kind: BookKind): Promise<BookEnvio | null> {
      const r = await bookSendsStore.latest(db, tenant.account_id, setId, kind);
      return r ? toBookEnvio(r) : null;
    },

    /** The poll job: asks the SII for the book's review until it is final (LOK/LSO accepted, LRH… rejected). */
    async runPoll(payload: Record<string, unknown>, job: Partial<JobLease> = {}): Promise<JobResult> {
      const accountId = String(payload.accountId);
      const r = await bookSendsStore.byId(db, accountId, String(payload.sendId));
      if (!r || r.status !== 'pending' || !r.track_id || !provider.bookStatus) return;
      const later = { rescheduleInMs: pollDelayMs(r.polls + 1, deps.pollInitialMs) };
      try {
        const tenant = await deps.getTenant(accountId, r.tenant_id);
        const creds = await deps.credentials.getProviderCredentials(accountId, r.tenant_id);
        // The tenant left the direct path since: nothing can ask the SII for it any more (the send stays as last read).
        if (creds.via !== 'sii') return;
        const st = await provider.bookStatus(creds, {
          rutEmpresa: toSiiRut(tenant.rut_empresa),
          trackId: r.track_id,
          ambiente: tenant.ambiente,
        });
        await fenced(db, job.fence, (sql) =>
          bookSendsStore.recordReview(sql, accountId, r.id, { status: st.outcome, estado: st.estado, glosa: st.glosa, now: clock.now() }),
        );
        return st.outcome === 'pending' ? later : undefined;
      } catch (e) {
        // The SII or the tenant's credentials are not usable right now: ask again later (a rate limit says when).
        if (e instanceof ProviderError || e instanceof AppError) return { rescheduleInMs: rateLimitWaitMs(e) ?? later.rescheduleInMs };
        throw e;
      }
    },
  };
}

export type BookSend = ReturnType<typeof createBookSend>;
