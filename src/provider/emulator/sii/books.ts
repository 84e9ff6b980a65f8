import crypto from 'node:crypto';
import { verifyBook, type SchemaValidator } from '../../../dte/index.ts';
import type { Db } from '../../../db/types.ts';
import { emulatorStore } from '../store.ts';
import { bookTotalMismatches } from '../rules/book-totals.ts';
import { BOOK_ESTADO, BOOK_GLOSA, BOOK_NOT_REGISTERED, UPLOAD_STATUS } from './texts.ts';

/**
 * A book at DTEUpload (docs/sources.md §1.3: books go through the same upload as envelopes;
 * docs/emulator.md, "Books"): verified (schema → STATUS 7, EnvioLibro signature or carátula →
 * STATUS 8), the same file again within the window → STATUS 99 with its first track id, a
 * FolioNotificacion this company already used for the same kind of book → STATUS 6 with "ENVIO
 * NO REGISTRADO PARA LA EMPRESA" (the text from live use, docs/sources.md §1.4; the code ours),
 * else STATUS 0 and an envío whose QueryEstUp ESTADO is LOK, or LRH naming the totals that do not
 * add up (rules/book-totals.ts), revealed after the processing delay like an envelope's verdict.
 */
export interface BookReception {
  status: string;
  trackId?: number;
  error?: string;
  sends?: number;
}

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

export async function receiveBook(
  core: { db: Db; schemaValidator: SchemaValidator | undefined; processingDelayMs: number },
  r: { data: Buffer; company: string; now: Date; dedupSince: Date },
): Promise<BookReception> {
  const v = await verifyBook(r.data, { now: r.now, ...(core.schemaValidator ? { schemaValidator: core.schemaValidator } : {}) });
  const schema = v.errors.find((e) => e.code === 'RSC');
  if (!v.kind || schema) return { status: UPLOAD_STATUS.schema, error: schema?.message ?? 'SCH-00001: Invalid Schema Name' };
  const other = v.errors[0];
  if (other) return { status: UPLOAD_STATUS.signature, error: other.message };
  const car = v.caratula!;
  const rut = car.rutEmisor ?? r.company;
  const bookKind = v.kind === 'LibroGuia' ? 'GUIA' : (car.tipoOperacion ?? 'VENTA');
  const sha = sha256(r.data);
  const mismatches = bookTotalMismatches(v.kind, r.data.toString('latin1'));
  return core.db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`book:${rut}`]);
    const prior = await tx.query<{ track_id: string | number }>(
      `select track_id from emu_envios where envelope_sha256 = $1 and rut_emisor = $2 and tipo = 'libro' and received_at >= $3
       order by track_id limit 1`,
      [sha, rut, r.dedupSince],
    );
    const first = prior.rows[0];
    if (first) {
      const trackId = Number(first.track_id);
      return { status: UPLOAD_STATUS.duplicate, trackId, sends: await emulatorStore.countSend(tx, trackId) };
    }
    if (car.folioNotificacion !== null) {
      const used = await tx.query(
        'select 1 from emu_book_notifications where rut_emisor = $1 and book_kind = $2 and folio_notificacion = $3',
        [rut, bookKind, car.folioNotificacion],
      );
      if (used.rows.length > 0) return { status: UPLOAD_STATUS.company, error: BOOK_NOT_REGISTERED };
    }
    const trackId = await emulatorStore.nextTrackId(tx);
    const estado = mismatches.length === 0 ? BOOK_ESTADO.ok : BOOK_ESTADO.totals;
    await emulatorStore.insertEnvio(tx, {
      trackId,
      rutEmisor: rut,
      rutEnvia: car.rutEnvia,
      tipo: 'libro',
      receivedAt: r.now,
      readyAt: new Date(r.now.getTime() + core.processingDelayMs),
      estado,
      glosa: mismatches.length === 0 ? BOOK_GLOSA.ok : `${BOOK_GLOSA.totals}: ${mismatches.join('; ')}`,
      estadistica: [],
      detalle: [],
      sha256: sha,
    });
    if (car.folioNotificacion !== null) {
      await tx.query('insert into emu_book_notifications (rut_emisor, book_kind, folio_notificacion, track_id) values ($1, $2, $3, $4)', [
        rut,
        bookKind,
        car.folioNotificacion,
        trackId,
      ]);
    }
    return { status: UPLOAD_STATUS.ok, trackId };
  });
}
