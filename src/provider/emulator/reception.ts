import type { SchemaValidator, SiiKeys } from '../../dte/index.ts';
import type { Db } from '../../db/types.ts';
import { inspectEnvelope, judgeDocuments } from './review.ts';
import { emulatorStore, ensureEmulatorSchema } from './store.ts';
import { ENVELOPE_GLOSA } from './texts.ts';

/**
 * One envelope received by the emulated SII, whichever face it came through (SimpleAPI's
 * envio/enviar, the SII's DTEUpload or its boleta REST envío): inspected (review.ts step 1), judged
 * against the SII's records and stored under a new track id in one transaction (step 2), its
 * verdict visible after the processing delay (×10 for the LENTO trigger, emulator.ts STAGES).
 * The caller has already checked who is uploading and answers in its own protocol's words.
 */
export interface ReceptionDeps {
  db: Db;
  siiKeys: SiiKeys;
  schemaValidator?: SchemaValidator | undefined;
  processingDelayMs: number;
}

export interface Received {
  trackId: number;
  /** The envelope's RutEmisor (or the one read from the raw text when the carátula did not parse). */
  rutEmisor: string | null;
  rutEnvia: string | null;
}

export async function receiveEnvelope(
  deps: ReceptionDeps,
  data: Buffer,
  o: { tipo: 'dte' | 'boleta'; rutUploader: string | null; rutInFile: string | null; now: Date },
): Promise<Received> {
  const { db } = deps;
  await ensureEmulatorSchema(db);
  const inspected = await inspectEnvelope(data, {
    siiKeys: deps.siiKeys,
    now: o.now,
    schemaValidator: deps.schemaValidator,
    tipo: o.tipo,
    rutUploader: o.rutUploader,
  });
  const delay = deps.processingDelayMs * (inspected.slow ? 10 : 1);
  const rutEmisor = inspected.rutEmisor ?? o.rutInFile;
  const rutEnvia = inspected.rutEnvia ?? o.rutUploader;
  const trackId = await db.transaction(async (tx) => {
    const id = await emulatorStore.nextTrackId(tx);
    const base = {
      trackId: id,
      rutEmisor,
      rutEnvia,
      tipo: o.tipo,
      receivedAt: o.now,
      readyAt: new Date(o.now.getTime() + delay),
      sha256: inspected.sha256,
    };
    if (inspected.rejection) {
      await emulatorStore.insertEnvio(tx, {
        ...base,
        estado: inspected.rejection.estado,
        glosa: inspected.rejection.glosa,
        estadistica: [],
        detalle: [],
      });
    } else {
      const judged = await judgeDocuments(tx, inspected, { trackId: id, now: o.now });
      await emulatorStore.insertEnvio(tx, { ...base, estado: 'EPR', glosa: ENVELOPE_GLOSA.EPR!, ...judged });
    }
    return id;
  });
  return { trackId, rutEmisor, rutEnvia };
}

/** The RutEmisor as written in an upload's text, before any parsing (SimpleAPI's face reads it the same way). */
export const rutInText = (raw: string): string | null => /<RutEmisor>\s*([^<\s]+)\s*<\/RutEmisor>/.exec(raw)?.[1] ?? null;
