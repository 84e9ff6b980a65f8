import type { Sql } from '../../../db/types.ts';

/**
 * certification_book_sends: every query scoped by account (docs/certification.md, "Books").
 * An `uploading` row is a claim held by `lease_holder` until `lease_until`; the writes of an
 * upload's outcome name the holder, so only the claim that holds the row can record it.
 */
export interface BookSendRow {
  id: string;
  account_id: string;
  tenant_id: string;
  set_id: string;
  kind: string;
  folio_notificacion: string | number;
  track_id: string | null;
  status: 'uploading' | 'pending' | 'accepted' | 'rejected';
  estado: string | null;
  glosa: string | null;
  lease_holder: string | null;
  lease_until: Date | null;
  polls: number;
  sent_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, account_id, tenant_id, set_id, kind, folio_notificacion, track_id, status, estado, glosa,
  lease_holder, lease_until, polls, sent_at, updated_at`;

const row = (r: BookSendRow): BookSendRow => ({
  ...r,
  lease_until: r.lease_until ? new Date(r.lease_until) : null,
  sent_at: new Date(r.sent_at),
  updated_at: new Date(r.updated_at),
});

export const bookSendsStore = {
  /**
   * Claims (set, kind, folio) for an upload under `holder` until `until`: a new row, or an
   * `uploading` row whose lease ran out (its process died mid-upload: this claim takes it over).
   * Undefined while another claim's lease is live, or once the book was sent.
   */
  async claim(
    tx: Sql,
    s: {
      id: string;
      accountId: string;
      tenantId: string;
      setId: string;
      kind: string;
      folio: number;
      holder: string;
      now: Date;
      until: Date;
    },
  ): Promise<BookSendRow | undefined> {
    const r = await tx.query<BookSendRow>(
      `insert into certification_book_sends
         (id, account_id, tenant_id, set_id, kind, folio_notificacion, status, lease_holder, lease_until, sent_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, 'uploading', $7, $9, $8, $8)
       on conflict (set_id, kind, folio_notificacion) do update
         set lease_holder = excluded.lease_holder, lease_until = excluded.lease_until, updated_at = excluded.updated_at
         where certification_book_sends.account_id = excluded.account_id
           and certification_book_sends.status = 'uploading'
           and (certification_book_sends.lease_until is null or certification_book_sends.lease_until <= $8)
       returning ${COLUMNS}`,
      [s.id, s.accountId, s.tenantId, s.setId, s.kind, s.folio, s.holder, s.now, s.until],
    );
    return r.rows[0] ? row(r.rows[0]) : undefined;
  },
  /** Extends the holder's lease; false when the claim was taken over (or finished). */
  async renew(tx: Sql, accountId: string, id: string, holder: string, until: Date): Promise<boolean> {
    const r = await tx.query(
      `update certification_book_sends set lease_until = $4
       where account_id = $1 and id = $2 and lease_holder = $3 and status = 'uploading'`,
      [accountId, id, holder, until],
    );
    return r.rowCount > 0;
  },
  /** The file an earlier holder kept before uploading, or null. */
  async bookXml(tx: Sql, accountId: string, id: string): Promise<Buffer | null> {
    const r = await tx.query<{ book_xml: Uint8Array | null }>(
      'select book_xml from certification_book_sends where account_id = $1 and id = $2',
      [accountId, id],
    );
    const x = r.rows[0]?.book_xml;
    return x ? Buffer.from(x) : null;
  },
  /** Keeps the file about to be uploaded; false when the holder lost the claim. */
  async saveBookXml(tx: Sql, accountId: string, id: string, holder: string, xml: Buffer): Promise<boolean> {
    const r = await tx.query(
      `update certification_book_sends set book_xml = $4
       where account_id = $1 and id = $2 and lease_holder = $3 and status = 'uploading'`,
      [accountId, id, holder, xml],
    );
    return r.rowCount > 0;
  },
  /** The upload's answer, recorded by the claim that holds the row; false when it was taken over. */
  async recordUpload(
    tx: Sql,
    accountId: string,
    id: string,
    holder: string,
    u: { trackId: string; estado: string | null; glosa: string | null; now: Date },
  ): Promise<boolean> {
    const r = await tx.query(
      `update certification_book_sends
         set track_id = $4, status = 'pending', estado = $5, glosa = $6, updated_at = $7, lease_holder = null, lease_until = null
       where account_id = $1 and id = $2 and lease_holder = $3 and status = 'uploading'`,
      [accountId, id, holder, u.trackId, u.estado, u.glosa, u.now],
    );
    return r.rowCount > 0;
  },
  /** Drops a claim whose upload failed (nothing was taken), unless another claim holds it now. */
  async release(tx: Sql, accountId: string, id: string, holder: string): Promise<void> {
    await tx.query(
      `delete from certification_book_sends where account_id = $1 and id = $2 and lease_holder = $3 and status = 'uploading'`,
      [accountId, id, holder],
    );
  },
  async byId(tx: Sql, accountId: string, id: string): Promise<BookSendRow | undefined> {
    const r = await tx.query<BookSendRow>(`select ${COLUMNS} from certification_book_sends where account_id = $1 and id = $2`, [
      accountId,
      id,
    ]);
    return r.rows[0] ? row(r.rows[0]) : undefined;
  },
  async get(tx: Sql, accountId: string, setId: string, kind: string, folio: number): Promise<BookSendRow | undefined> {
    const r = await tx.query<BookSendRow>(
      `select ${COLUMNS} from certification_book_sends where account_id = $1 and set_id = $2 and kind = $3 and folio_notificacion = $4`,
      [accountId, setId, kind, folio],
    );
    return r.rows[0] ? row(r.rows[0]) : undefined;
  },
  /** The kind's latest send (by sent_at) that reached the SII. */
  async latest(tx: Sql, accountId: string, setId: string, kind: string): Promise<BookSendRow | undefined> {
    const r = await tx.query<BookSendRow>(
      `select ${COLUMNS} from certification_book_sends where account_id = $1 and set_id = $2 and kind = $3 and status <> 'uploading'
       order by sent_at desc, id desc limit 1`,
      [accountId, setId, kind],
    );
    return r.rows[0] ? row(r.rows[0]) : undefined;
  },
  /** The SII's review as the poll job read it (only while the send is pending). */
  async recordReview(
    tx: Sql,
    accountId: string,
    id: string,
    u: { status: 'pending' | 'accepted' | 'rejected'; estado: string | null; glosa: string | null; now: Date },
  ): Promise<void> {
    await tx.query(
      `update certification_book_sends set status = $3, estado = $4, glosa = $5, updated_at = $6, polls = polls + 1
       where account_id = $1 and id = $2 and status = 'pending'`,
      [accountId, id, u.status, u.estado, u.glosa, u.now],
    );
  },
};
