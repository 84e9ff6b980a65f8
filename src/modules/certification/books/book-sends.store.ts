import type { Sql } from '../../../db/types.ts';

/** certification_book_sends: every query scoped by account (docs/certification.md, "Books"). */
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
  sent_at: Date;
  updated_at: Date;
}

const row = (r: BookSendRow): BookSendRow => ({ ...r, sent_at: new Date(r.sent_at), updated_at: new Date(r.updated_at) });

export const bookSendsStore = {
  /** Claims (set, kind, folio) for an upload; undefined when a send of it exists already. */
  async claim(
    tx: Sql,
    s: { id: string; accountId: string; tenantId: string; setId: string; kind: string; folio: number; now: Date },
  ): Promise<BookSendRow | undefined> {
    const r = await tx.query<BookSendRow>(
      `insert into certification_book_sends (id, account_id, tenant_id, set_id, kind, folio_notificacion, status, sent_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, 'uploading', $7, $7)
       on conflict (set_id, kind, folio_notificacion) do nothing returning *`,
      [s.id, s.accountId, s.tenantId, s.setId, s.kind, s.folio, s.now],
    );
    return r.rows[0] ? row(r.rows[0]) : undefined;
  },
  async get(tx: Sql, accountId: string, setId: string, kind: string, folio: number): Promise<BookSendRow | undefined> {
    const r = await tx.query<BookSendRow>(
      'select * from certification_book_sends where account_id = $1 and set_id = $2 and kind = $3 and folio_notificacion = $4',
      [accountId, setId, kind, folio],
    );
    return r.rows[0] ? row(r.rows[0]) : undefined;
  },
  /** The kind's latest send (by sent_at). */
  async latest(tx: Sql, accountId: string, setId: string, kind: string): Promise<BookSendRow | undefined> {
    const r = await tx.query<BookSendRow>(
      `select * from certification_book_sends where account_id = $1 and set_id = $2 and kind = $3 and status <> 'uploading'
       order by sent_at desc, id desc limit 1`,
      [accountId, setId, kind],
    );
    return r.rows[0] ? row(r.rows[0]) : undefined;
  },
  async update(
    tx: Sql,
    accountId: string,
    id: string,
    u: { trackId?: string; status: BookSendRow['status']; estado: string | null; glosa: string | null; now: Date },
  ): Promise<void> {
    await tx.query(
      `update certification_book_sends set track_id = coalesce($3, track_id), status = $4, estado = $5, glosa = $6, updated_at = $7
       where account_id = $1 and id = $2`,
      [accountId, id, u.trackId ?? null, u.status, u.estado, u.glosa, u.now],
    );
  },
  async remove(tx: Sql, accountId: string, id: string): Promise<void> {
    await tx.query('delete from certification_book_sends where account_id = $1 and id = $2', [accountId, id]);
  },
};
