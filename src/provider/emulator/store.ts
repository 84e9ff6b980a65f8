import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db, Sql } from '../../db/types.ts';
import { migrate } from '../../db/migrate.ts';

/** The emulated SII's records (migrations/emulator_*.sql). Applied lazily, once per database. */
export const EMULATOR_MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

const ready = new WeakMap<Db, Promise<unknown>>();

export function ensureEmulatorSchema(db: Db): Promise<unknown> {
  let p = ready.get(db);
  if (!p) {
    p = migrate(db, EMULATOR_MIGRATIONS);
    p.catch(() => ready.delete(db));
    ready.set(db, p);
  }
  return p;
}

/**
 * One document's verdict (review.ts): estado DOK, RPR (reparos) or RCH; findings as
 * `SECTION-LEVEL-NUMBER` codes. Rows written before 2026-11-25 may say RLV and lack `detalle`.
 */
export interface EmuDocumentOutcome {
  tipo: number;
  folio: number;
  estado: string;
  descripcion: string;
  errores: { codigo: string; descripcion: string; detalle?: string | null }[];
}

export interface EmuStats {
  tipo: number;
  informados: number;
  aceptados: number;
  rechazados: number;
  reparos: number;
}

export interface EmuEnvioRow {
  track_id: number;
  rut_emisor: string | null;
  rut_envia: string | null;
  tipo: string;
  received_at: Date;
  ready_at: Date;
  estado: string;
  glosa: string;
  estadistica: EmuStats[];
  detalle: EmuDocumentOutcome[];
}

export interface EmuDocumentRow {
  rut_emisor: string;
  tipo_dte: number;
  folio: number;
  digest: string;
  track_id: number;
  estado: string;
  glosa: string;
  fecha_emision: string | null;
  monto_total: number | null;
  iva: number | null;
  rut_receptor: string | null;
}

export interface EmuAnnulledRow {
  desde: number;
  hasta: number;
  annulled_at: Date;
  annulled_by: string;
}

export const emulatorStore = {
  /** Reserves the next `cantidad` folios of an issuer's type; returns the range. */
  async reserveRange(db: Sql, rut: string, tipoDte: number, cantidad: number): Promise<{ desde: number; hasta: number }> {
    const r = await db.query<{ last_folio: number }>(
      `insert into emu_folio_counters (rut_emisor, tipo_dte, last_folio) values ($1, $2, $3)
       on conflict (rut_emisor, tipo_dte) do update set last_folio = emu_folio_counters.last_folio + $3
       returning last_folio`,
      [rut, tipoDte, cantidad],
    );
    const hasta = Number(r.rows[0]!.last_folio);
    return { desde: hasta - cantidad + 1, hasta };
  },
  async insertCaf(
    db: Sql,
    c: {
      rut: string;
      tipoDte: number;
      desde: number;
      hasta: number;
      fechaAutorizacion: string;
      modulus: string;
      now: Date;
      /** The file as issued (SII layout), for a later download of the same CAF. */
      xml: Buffer;
      /** Who asked for it (the certificate holder's name), as the SII's history shows. */
      grantedBy: string | null;
    },
  ) {
    await db.query(
      `insert into emu_cafs (rut_emisor, tipo_dte, desde, hasta, fecha_autorizacion, modulus, issued_at, caf_xml, granted_by)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [c.rut, c.tipoDte, c.desde, c.hasta, c.fechaAutorizacion, c.modulus, c.now, c.xml, c.grantedBy],
    );
  },
  /** An issuer's CAFs of a type, newest first: the SII's history of granted ranges. */
  async cafHistory(
    db: Sql,
    rut: string,
    tipoDte: number,
  ): Promise<{ desde: number; hasta: number; fecha_autorizacion: string; granted_by: string | null }[]> {
    const r = await db.query<{ desde: string | number; hasta: string | number; fecha_autorizacion: string; granted_by: string | null }>(
      `select desde, hasta, to_char(fecha_autorizacion, 'YYYY-MM-DD') as fecha_autorizacion, granted_by
       from emu_cafs where rut_emisor = $1 and tipo_dte = $2 order by issued_at desc, id desc`,
      [rut, tipoDte],
    );
    return r.rows.map((x) => ({ ...x, desde: Number(x.desde), hasta: Number(x.hasta) }));
  },
  /** The file of a granted CAF, found by its range and date; undefined when there is none (or it predates caf_xml). */
  async cafFile(db: Sql, c: { rut: string; tipoDte: number; desde: number; hasta: number; fecha: string }): Promise<Buffer | undefined> {
    const r = await db.query<{ caf_xml: Buffer | Uint8Array | null }>(
      `select caf_xml from emu_cafs where rut_emisor = $1 and tipo_dte = $2 and desde = $3 and hasta = $4
         and fecha_autorizacion = $5::date and caf_xml is not null limit 1`,
      [c.rut, c.tipoDte, c.desde, c.hasta, c.fecha],
    );
    const x = r.rows[0]?.caf_xml;
    return x ? Buffer.from(x) : undefined;
  },
  /** How many documents of a type the SII received from an issuer (its MAX_AUTOR grows with them). */
  async documentsReceived(db: Sql, rut: string, tipoDte: number): Promise<number> {
    const r = await db.query<{ n: string | number }>('select count(*) as n from emu_documents where rut_emisor = $1 and tipo_dte = $2', [
      rut,
      tipoDte,
    ]);
    return Number(r.rows[0]?.n ?? 0);
  },
  /**
   * Whether this issuer was granted a CAF with this key covering the folio. Takes a share lock on
   * the CAF row: an annulment (which locks it for update) and a reception never interleave.
   */
  async ownsCaf(db: Sql, rut: string, tipoDte: number, folio: number, modulus: string): Promise<boolean> {
    const r = await db.query(
      `select 1 from emu_cafs where rut_emisor = $1 and tipo_dte = $2 and desde <= $3 and hasta >= $3 and modulus = $4 limit 1 for share`,
      [rut, tipoDte, folio, modulus],
    );
    return r.rowCount > 0;
  },
  /** The CAFs of an issuer's type that overlap a folio range, locked for update (ascending, so lockers never cross). */
  async lockCafsOverlapping(
    db: Sql,
    rut: string,
    tipoDte: number,
    desde: number,
    hasta: number,
  ): Promise<{ desde: number; hasta: number }[]> {
    const r = await db.query<{ desde: string | number; hasta: string | number }>(
      `select desde, hasta from emu_cafs where rut_emisor = $1 and tipo_dte = $2 and desde <= $4 and hasta >= $3 order by desde, id for update`,
      [rut, tipoDte, desde, hasta],
    );
    return r.rows.map((x) => ({ desde: Number(x.desde), hasta: Number(x.hasta) }));
  },
  async cafCovers(db: Sql, rut: string, tipoDte: number, folio: number): Promise<boolean> {
    const r = await db.query('select 1 from emu_cafs where rut_emisor = $1 and tipo_dte = $2 and desde <= $3 and hasta >= $3 limit 1', [
      rut,
      tipoDte,
      folio,
    ]);
    return r.rowCount > 0;
  },
  async anyReceived(db: Sql, rut: string, tipoDte: number, desde: number, hasta: number): Promise<boolean> {
    const r = await db.query('select 1 from emu_documents where rut_emisor = $1 and tipo_dte = $2 and folio between $3 and $4 limit 1', [
      rut,
      tipoDte,
      desde,
      hasta,
    ]);
    return r.rowCount > 0;
  },
  /** The earliest annulment that overlaps the range, if any. */
  async annulledOverlapping(db: Sql, rut: string, tipoDte: number, desde: number, hasta: number): Promise<EmuAnnulledRow | undefined> {
    const r = await db.query<EmuAnnulledRow>(
      `select desde, hasta, annulled_at, annulled_by from emu_annulled
       where rut_emisor = $1 and tipo_dte = $2 and desde <= $4 and hasta >= $3 order by annulled_at, id limit 1`,
      [rut, tipoDte, desde, hasta],
    );
    const row = r.rows[0];
    return row ? { ...row, desde: Number(row.desde), hasta: Number(row.hasta), annulled_at: new Date(row.annulled_at) } : undefined;
  },
  async insertAnnulled(db: Sql, a: { rut: string; tipoDte: number; desde: number; hasta: number; by: string; now: Date }) {
    await db.query(
      'insert into emu_annulled (rut_emisor, tipo_dte, desde, hasta, annulled_at, annulled_by) values ($1, $2, $3, $4, $5, $6)',
      [a.rut, a.tipoDte, a.desde, a.hasta, a.now, a.by],
    );
  },
  async isAnnulled(db: Sql, rut: string, tipoDte: number, folio: number): Promise<boolean> {
    return (await emulatorStore.annulledOverlapping(db, rut, tipoDte, folio, folio)) !== undefined;
  },
  async nextTrackId(db: Sql): Promise<number> {
    const r = await db.query<{ id: number }>(`select nextval('emu_envios_track_id_seq') as id`);
    return Number(r.rows[0]!.id);
  },
  async insertEnvio(
    db: Sql,
    e: {
      trackId: number;
      rutEmisor: string | null;
      rutEnvia: string | null;
      tipo: string;
      receivedAt: Date;
      readyAt: Date;
      estado: string;
      glosa: string;
      estadistica: EmuStats[];
      detalle: EmuDocumentOutcome[];
      sha256: string;
    },
  ) {
    await db.query(
      `insert into emu_envios (track_id, rut_emisor, rut_envia, tipo, received_at, ready_at, estado, glosa, estadistica, detalle, envelope_sha256)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        e.trackId,
        e.rutEmisor,
        e.rutEnvia,
        e.tipo,
        e.receivedAt,
        e.readyAt,
        e.estado,
        e.glosa,
        JSON.stringify(e.estadistica),
        JSON.stringify(e.detalle),
        e.sha256,
      ],
    );
  },
  /** A file received before (same bytes, same company, since `since`): its first envelope (DTEUpload STATUS 99). */
  async findEnvioBySha(db: Sql, sha256: string, rutCompany: string, since: Date) {
    // Two sends of one file at once: the second waits for the first's transaction, then finds it.
    await db.query('select pg_advisory_xact_lock(hashtext($1))', [sha256]);
    const r = await db.query<{ track_id: string | number; sends: number }>(
      `select track_id, sends from emu_envios where envelope_sha256 = $1 and rut_emisor = $2 and tipo = 'dte' and received_at >= $3
       order by track_id limit 1 for update`,
      [sha256, rutCompany, since],
    );
    const row = r.rows[0];
    return row ? { trackId: Number(row.track_id), sends: Number(row.sends) } : undefined;
  },
  async countSend(db: Sql, trackId: number): Promise<number> {
    const r = await db.query<{ sends: number }>('update emu_envios set sends = sends + 1 where track_id = $1 returning sends', [trackId]);
    return Number(r.rows[0]?.sends ?? 0);
  },
  async getEnvio(db: Sql, trackId: number): Promise<EmuEnvioRow | undefined> {
    const r = await db.query<EmuEnvioRow>('select * from emu_envios where track_id = $1', [trackId]);
    const row = r.rows[0];
    return row
      ? { ...row, track_id: Number(row.track_id), received_at: new Date(row.received_at), ready_at: new Date(row.ready_at) }
      : undefined;
  },
  /** Records a received document; false when its folio was received before. */
  async insertDocument(
    db: Sql,
    d: {
      rut: string;
      tipoDte: number;
      folio: number;
      digest: string;
      trackId: number;
      estado: string;
      glosa: string;
      fechaEmision: string | null;
      montoTotal: number | null;
      iva: number | null;
      rutReceptor: string | null;
      now: Date;
    },
  ): Promise<boolean> {
    const r = await db.query(
      `insert into emu_documents (rut_emisor, tipo_dte, folio, digest, track_id, estado, glosa, fecha_emision, monto_total, iva, rut_receptor, received_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict do nothing`,
      [d.rut, d.tipoDte, d.folio, d.digest, d.trackId, d.estado, d.glosa, d.fechaEmision, d.montoTotal, d.iva, d.rutReceptor, d.now],
    );
    return r.rowCount === 1;
  },
  /** The document as received, locked: events on one document are decided one at a time. */
  async lockDocument(tx: Sql, rut: string, tipoDte: number, folio: number): Promise<{ received_at: Date } | undefined> {
    const r = await tx.query<{ received_at: Date }>(
      'select received_at from emu_documents where rut_emisor = $1 and tipo_dte = $2 and folio = $3 for update',
      [rut, tipoDte, folio],
    );
    const row = r.rows[0];
    return row ? { received_at: new Date(row.received_at) } : undefined;
  },
  /** The registro's events of a document, oldest first. */
  async events(db: Sql, rut: string, tipoDte: number, folio: number): Promise<string[]> {
    const r = await db.query<{ accion: string }>(
      'select accion from emu_dte_events where rut_emisor = $1 and tipo_dte = $2 and folio = $3 order by seq',
      [rut, tipoDte, folio],
    );
    return r.rows.map((x) => x.accion);
  },
  async insertEvent(db: Sql, e: { rut: string; tipoDte: number; folio: number; accion: string; by: string | null; now: Date }) {
    await db.query(
      `insert into emu_dte_events (rut_emisor, tipo_dte, folio, accion, rut_responsable, registered_at)
       values ($1, $2, $3, $4, $5, $6) on conflict do nothing`,
      [e.rut, e.tipoDte, e.folio, e.accion, e.by, e.now],
    );
  },
  async getDocument(db: Sql, rut: string, tipoDte: number, folio: number): Promise<EmuDocumentRow | undefined> {
    const r = await db.query<EmuDocumentRow>('select * from emu_documents where rut_emisor = $1 and tipo_dte = $2 and folio = $3', [
      rut,
      tipoDte,
      folio,
    ]);
    const row = r.rows[0];
    const n = (v: number | null) => (v === null ? null : Number(v));
    return row
      ? { ...row, folio: Number(row.folio), monto_total: n(row.monto_total), iva: n(row.iva), track_id: Number(row.track_id) }
      : undefined;
  },
};
