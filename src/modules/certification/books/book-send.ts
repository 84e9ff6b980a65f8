import { toSiiRut } from '../../../dte/index.ts';
import type { Db } from '../../../db/types.ts';
import { errors } from '../../../errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/tokens.ts';
import { ProviderError, providerErrorToAppError, type Provider, type ProviderCredentials } from '../../../provider/index.ts';
import type { TenantRow } from '../../tenants/index.ts';
import { bookSendsStore, type BookSendRow } from './book-sends.store.ts';
import type { BookKind } from './books.service.ts';

/**
 * Sending a set's book to the SII (docs/certification.md, "Books: sending"): the signed file of
 * `…/xml`, uploaded through the tenant's provider where its path can take books (the direct SII
 * path: DTEUpload, docs/sii-direct.md); a SimpleAPI tenant uploads it by hand (no source says
 * SimpleAPI takes books). One upload per set, kind and FolioNotificacion: asked again, the first
 * send answers (the file is signed anew each time, so its bytes differ and the SII's own STATUS 99
 * would not catch it); a new FolioNotificacion is a new upload. The SII's review is read when the
 * book is shown (GET …/books/{kind}) until it is final: the same QueryEstUp as envíos, asked on
 * demand instead of by a job, since a person reads the book's state during certification.
 */
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
}

const view = (r: BookSendRow): BookEnvio => ({
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

export function createBookSend(deps: BookSendDeps) {
  const { db, clock, provider } = deps;

  async function directCreds(tenant: TenantRow) {
    const creds = await deps.credentials.getProviderCredentials(tenant.account_id, tenant.id);
    if (creds.via !== 'sii' || !provider.uploadBook || !provider.bookStatus) throw unsupported();
    return creds;
  }

  return {
    /** Uploads the book (built by `build`) unless this set, kind and folio were sent before: that send answers. */
    async send(
      tenant: TenantRow,
      b: { setId: string; kind: BookKind; folioNotificacion: number; build: () => Promise<Buffer> },
    ): Promise<BookEnvio> {
      const creds = await directCreds(tenant);
      const claimed = await bookSendsStore.claim(db, {
        id: newId(),
        accountId: tenant.account_id,
        tenantId: tenant.id,
        setId: b.setId,
        kind: b.kind,
        folio: b.folioNotificacion,
        now: clock.now(),
      });
      if (!claimed) {
        const prior = await bookSendsStore.get(db, tenant.account_id, b.setId, b.kind, b.folioNotificacion);
        if (prior) return view(prior);
        throw errors.conflict('certification_book_send_in_progress', 'This book is being sent by another request: ask again in a moment.');
      }
      const id = claimed.id;
      const uploadBook = provider.uploadBook;
      if (!uploadBook) throw unsupported();
      try {
        const book = await b.build();
        const up = await uploadBook(creds, { rutEmpresa: toSiiRut(tenant.rut_empresa), book, ambiente: tenant.ambiente });
        await bookSendsStore.update(db, tenant.account_id, id, {
          trackId: up.trackId,
          status: 'pending',
          estado: up.estado,
          glosa: up.glosa,
          now: clock.now(),
        });
      } catch (e) {
        // Nothing was taken: the claim goes, so the same book can be sent again.
        await bookSendsStore.remove(db, tenant.account_id, id);
        throw e instanceof ProviderError ? providerErrorToAppError(e) : e;
      }
      return view((await bookSendsStore.get(db, tenant.account_id, b.setId, b.kind, b.folioNotificacion))!);
    },

    /** The kind's latest send, its review asked of the SII while pending (a failed query leaves it as it was). */
    async envio(tenant: TenantRow, setId: string, kind: BookKind): Promise<BookEnvio | null> {
      const r = await bookSendsStore.latest(db, tenant.account_id, setId, kind);
      if (!r) return null;
      if (r.status !== 'pending' || !r.track_id || !provider.bookStatus) return view(r);
      try {
        const creds = await deps.credentials.getProviderCredentials(tenant.account_id, tenant.id);
        const st = await provider.bookStatus(creds, {
          rutEmpresa: toSiiRut(tenant.rut_empresa),
          trackId: r.track_id,
          ambiente: tenant.ambiente,
        });
        const now = clock.now();
        await bookSendsStore.update(db, tenant.account_id, r.id, { status: st.outcome, estado: st.estado, glosa: st.glosa, now });
        return view({ ...r, status: st.outcome, estado: st.estado, glosa: st.glosa, updated_at: now });
      } catch (e) {
        if (e instanceof ProviderError) return view(r);
        throw e;
      }
    },
  };
}

export type BookSend = ReturnType<typeof createBookSend>;
