import { issueCaf, siiDate, toSiiRut, tryParseRut, type SchemaValidator, type SiiKeys } from '../../dte/index.ts';
import type { Db } from '../../db/types.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  FAILED_TRACK_ID,
  TIPO_INCORRECTO,
  ACCIONES_REGISTRO,
  type AceptacionReclamoResponse,
  type AnnulEntry,
  type DteStatusResponse,
  type EnvioBoletaStatusResponse,
  type EnvioDteStatusResponse,
  type EnvioResponse,
  type RateLimits,
} from '../simpleapi/protocol.ts';
import { cafAsServed, type CafLayout } from './caf-layout.ts';
import { checkCertificate, type OpenedPfx } from './pfx.ts';
import { createRateLimiter } from './rate-limit.ts';
import { emptyReply, jsonReply, refuse, textReply, xmlReply, type Reply } from './reply.ts';
import { inspectEnvelope, judgeDocuments } from './review.ts';
import type { KeyBehaviour } from './sandbox.ts';
import type { EmulatorSiiKey } from './sii-key.ts';
import {
  boletaReception,
  chileDashed,
  chileSlashed,
  chileSpaced,
  chileTimestamp,
  DOTNET_MIN_DATE,
  dotnetTicks,
  numAtencion,
  recepcionDte,
  registroSoap,
  siiRespuesta,
} from './sii-format.ts';
import { createCallStats } from './stats.ts';
import { emulatorStore, ensureEmulatorSchema, type EmuDocumentOutcome, type EmuEnvioRow } from './store.ts';
import {
  annulText,
  API_TEXT,
  BOLETA_NO_PERMISSION,
  DOCUMENT_DESCRIPCION,
  DTE_STATES,
  ENVELOPE_GLOSA,
  INTERNAL_ERROR,
  MENSAJE,
  NO_PERMISSION,
  REGISTRO_TEXT,
  UNKNOWN_TRACK,
  UPLOAD_REFUSED,
  type DteState,
} from './texts.ts';

/**
 * The emulated SimpleAPI + SII behind SimpleAPI's routes (protocol.ts). server.ts owns HTTP: the
 * key, the rate limits, multipart; each method here is one route past those checks and returns
 * the answer as it goes on the wire (reply.ts), in the shapes the provider's published material
 * records (sources next to each; docs/emulator.md lists them and our choices where they are
 * silent). The in-process provider reaches the same routes without a socket (inprocess.ts), so the
 * two ways behave identically.
 *
 * Timing: an upload is reviewed at once (so folio reuse is decided in reception order) and its
 * verdict is revealed after `processingDelayMs` (×10 for the LENTO sandbox trigger). Meanwhile the
 * envelope walks the SII's stages, one fifth of the delay each: REC → SOK (schema) → CRT
 * (carátula) → FOK (signature) → PDR (in process) → the verdict [C "Consultar Estado Envio",
 * "Posibles códigos de respuesta"]. A rejection shows at the stage that failed: RSC instead of
 * SOK, RCT instead of CRT, RFR instead of FOK.
 */
const STAGES = ['REC', 'SOK', 'CRT', 'FOK', 'PDR'] as const;
const REJECTED_AT_STAGE: Record<string, number> = { RSC: 1, RCT: 2, RFR: 3 };

/** The stage an envelope shows at `now`, or undefined once its verdict is visible. */
export function envelopeStage(
  e: { estado: string; received_at: Date; ready_at: Date },
  now: Date,
): { estado: string; glosa: string } | undefined {
  const total = e.ready_at.getTime() - e.received_at.getTime();
  if (now >= e.ready_at || total <= 0) return undefined;
  const stage = Math.min(STAGES.length - 1, Math.floor(((now.getTime() - e.received_at.getTime()) / total) * STAGES.length));
  const rejectedAt = REJECTED_AT_STAGE[e.estado];
  if (rejectedAt !== undefined && stage >= rejectedAt) return undefined;
  const estado = STAGES[Math.max(0, stage)]!;
  return { estado, glosa: ENVELOPE_GLOSA[estado]! };
}

export interface EmulatorCoreOptions {
  db: Db;
  clock: Clock;
  siiKey: EmulatorSiiKey;
  processingDelayMs: number;
  /** Extra latency of the `slow` sandbox keys. */
  slowMs?: number;
  schemaValidator?: SchemaValidator | undefined;
  sleep?: (ms: number) => Promise<void>;
  /** SimpleAPI's rate limits per key and host (protocol.ts, PRODUCTION_RATE_LIMITS); null or absent: off. */
  rateLimits?: RateLimits | null;
  /** The wall clock rate-limit windows run on (default Date.now); the document clock is `clock`. */
  rateClock?: () => number;
  /**
   * Latency of the servicios host's calls to the SII (folios, annulment). Production "normalmente
   * demora entre 40 a 80 segundos" [C "Get Folios", "Anulacion"]; default 0.
   */
  serviciosDelayMs?: number;
  /** The CAF as served: 'indented' (default, D9) or the SII's own layout (caf-layout.ts). */
  cafLayout?: CafLayout;
}

export const CAF_TYPES = new Set([33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112]);
/**
 * What `folios/get/{tipo}/` answers and the most one request may ask for. The SII computes it from
 * the company's history (3846 in the recorded answer [C "Consulta Disponibles"]); ours is fixed.
 */
export const FOLIOS_AVAILABLE = 10_000;

/** A file part, by position: the certificate first, then the document [C "Enviar al SII"]. */
export interface Upload {
  data: Buffer;
  filename: string;
}

/** One call past the key and rate-limit checks: its parsed multipart (server.ts). */
export interface CallInput {
  input: Record<string, unknown> | undefined;
  files: Upload[];
}

/** Newtonsoft reads JSON members case-insensitively: `certificado` binds `Certificado`. */
export function member(o: unknown, name: string): unknown {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const lower = name.toLowerCase();
  const k = Object.keys(o).find((x) => x.toLowerCase() === lower);
  return k === undefined ? undefined : (o as Record<string, unknown>)[k];
}
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** A JSON number or a numeric string (Newtonsoft converts both). */
const int = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
};
const bool = (v: unknown): boolean => v === true || (typeof v === 'string' && v.toLowerCase() === 'true');
const sameRut = (a: string | undefined, b: string | null): boolean => {
  if (!a || !b || !tryParseRut(a)) return false;
  return toSiiRut(a) === b;
};

const mensaje = (status: number, text: string) => jsonReply(status, { Mensaje: text });

export function createEmulatorCore(opts: EmulatorCoreOptions) {
  const { db, clock, siiKey } = opts;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const siiKeys: SiiKeys = { [String(siiKey.idk)]: siiKey.publicKey };
  const calls = createCallStats();
  const rateLimiter = opts.rateLimits ? createRateLimiter(db, opts.rateLimits, opts.rateClock) : null;
  const cafLayout = opts.cafLayout ?? 'indented';
  let atencion = 0;

  /** The SII login with the caller's certificate; a refusal is SimpleAPI's empty 401 [D9]. */
  const login = (pfx: Upload | undefined, password: unknown, rut: unknown): OpenedPfx => {
    const v = checkCertificate(pfx?.data, str(password), str(rut), clock.now());
    if (!v.ok) return refuse(emptyReply(401));
    return v;
  };

  /** servicios: input and certificate present [C "Get Folios": 400 "Faltan archivos en form-data"], then the SII login. */
  const serviciosLogin = async (c: CallInput) => {
    if (!c.input || c.files.length === 0) refuse(mensaje(400, MENSAJE.missingFiles));
    const cert = login(c.files[0], member(c.input, 'Password'), member(c.input, 'RutCertificado'));
    const rutEmpresa = str(member(c.input, 'RutEmpresa'));
    if (!rutEmpresa || !tryParseRut(rutEmpresa)) refuse(mensaje(400, MENSAJE.badInput));
    await ensureEmulatorSchema(db);
    if (opts.serviciosDelayMs) await sleep(opts.serviciosDelayMs);
    return { cert, rut: toSiiRut(rutEmpresa) };
  };

  /**
   * The SII grants a CAF: the issuer's next `cantidad` folios of the type, signed with the
   * emulator's SII key, recorded with the file as issued (SII layout) so a later download
   * (sii/caf-forms.ts, of_genera_archivo) answers the same bytes. Both faces grant through here.
   */
  const grantCaf = async (rut: string, tipoDte: number, cantidad: number, grantedBy: string | null) => {
    const now = clock.now();
    const { desde, hasta } = await emulatorStore.reserveRange(db, rut, tipoDte, cantidad);
    const { xml, caf } = issueCaf({
      rutEmisor: rut,
      razonSocial: `CONTRIBUYENTE ${rut}`,
      tipoDte,
      desde,
      hasta,
      fechaAutorizacion: siiDate(now),
      idk: siiKey.idk,
      siiPrivateKey: siiKey.privateKey,
    });
    await emulatorStore.insertCaf(db, {
      rut,
      tipoDte,
      desde,
      hasta,
      fechaAutorizacion: caf.fechaAutorizacion,
      modulus: caf.publicKey.modulus,
      now,
      xml,
      grantedBy,
    });
    return { xml, caf };
  };

  /** The DTE host: the certificate file present (ours: 400 text/plain, as TIPO_INCORRECTO is). */
  const needFiles = (c: CallInput, n: number) => {
    if (!c.input || c.files.length < n) refuse(textReply(400, API_TEXT.missingFiles));
  };

  const failedUpload = (
    cert: OpenedPfx,
    rutEmpresa: string | null,
    file: string,
    why: (typeof UPLOAD_REFUSED)[keyof typeof UPLOAD_REFUSED],
  ) => {
    const now = clock.now();
    const body: EnvioResponse = {
      rutEnvia: cert.rut,
      rutEmpresa,
      file,
      fecha: chileTimestamp(now),
      estado: why.status,
      ok: false,
      glosa: why.glosa,
      errores: why.error,
      trackId: FAILED_TRACK_ID,
      responseXml: recepcionDte({
        rutSender: cert.rut ?? '',
        rutCompany: rutEmpresa ?? '',
        file,
        timestamp: chileSpaced(now),
        status: why.status,
        error: why.error,
      }),
    };
    return jsonReply(400, body);
  };

  /**
   * The SII's reception of an envelope, shared by both faces (SimpleAPI's envio/enviar, the SII's
   * DTEUpload): reviewed at once (inspectEnvelope, then judgeDocuments in the transaction that
   * stores it, so folio reuse is decided in reception order), its verdict revealed at ready_at.
   * With `dedupSince`, a file with the same bytes for the same company received since then is not
   * received again: its first envelope is answered, with its sends counted (DTEUpload STATUS 99).
   */
  const receiveEnvelope = async (r: {
    data: Buffer;
    tipo: 'dte' | 'boleta';
    rutUploader: string | null;
    rutInFile: string;
    now: Date;
    dedupSince?: Date;
  }): Promise<{ trackId: number; rutEmpresa: string; duplicate?: { sends: number } }> => {
    const { now } = r;
    const inspected = await inspectEnvelope(r.data, {
      siiKeys,
      now,
      schemaValidator: opts.schemaValidator,
      tipo: r.tipo,
      rutUploader: r.rutUploader,
    });
    const rutEmpresa = inspected.rutEmisor ?? r.rutInFile;
    const delay = opts.processingDelayMs * (inspected.slow ? 10 : 1);
    return db.transaction(async (tx) => {
      if (r.dedupSince) {
        const prior = await emulatorStore.findEnvioBySha(tx, inspected.sha256, rutEmpresa, r.dedupSince);
        if (prior) return { trackId: prior.trackId, rutEmpresa, duplicate: { sends: await emulatorStore.countSend(tx, prior.trackId) } };
      }
      const id = await emulatorStore.nextTrackId(tx);
      const base = {
        trackId: id,
        rutEmisor: rutEmpresa,
        rutEnvia: inspected.rutEnvia ?? r.rutUploader,
        tipo: r.tipo,
        receivedAt: now,
        readyAt: new Date(now.getTime() + delay),
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
        const judged = await judgeDocuments(tx, inspected, { trackId: id, now });
        await emulatorStore.insertEnvio(tx, { ...base, estado: 'EPR', glosa: ENVELOPE_GLOSA.EPR!, ...judged });
      }
      return { trackId: id, rutEmpresa };
    });
  };

  const attention = (now: Date) => {
    atencion += 1;
    return { numero: atencion, text: numAtencion(atencion, now), fecha: chileTimestamp(now) };
  };

  /** consulta/envio for an EnvioDTE: counts only [C "Consulta Exitosa"; SDK EstadoDTETrackIdResult]. */
  const dteEnvioAnswer = (envio: EmuEnvioRow): EnvioDteStatusResponse => {
    const now = clock.now();
    const stage = envelopeStage(envio, now);
    const estado = stage?.estado ?? envio.estado;
    const glosa = ENVELOPE_GLOSA[estado] ?? envio.glosa;
    const estados =
      estado === 'EPR'
        ? envio.estadistica.map((s) => ({
            tipoDocumento: s.tipo,
            cantidadInformados: s.informados,
            cantidadAceptados: s.aceptados,
            cantidadRechazados: s.rechazados,
            cantidadReparos: s.reparos,
          }))
        : [];
    const at = attention(now);
    const responseXml = siiRespuesta(
      [
        ['TRACKID', envio.track_id],
        ['ESTADO', estado],
        ['GLOSA', glosa],
        ['NUM_ATENCION', at.text],
      ],
      estados.map((e) => [
        ['TIPO_DOCTO', e.tipoDocumento],
        ['INFORMADOS', e.cantidadInformados],
        ['ACEPTADOS', e.cantidadAceptados],
        ['RECHAZADOS', e.cantidadRechazados],
        ['REPAROS', e.cantidadReparos],
      ]),
    );
    return {
      estados,
      responseXml,
      trackId: envio.track_id,
      estado,
      // [SDK EstadoDTETrackIdResult: Ok => Estado == "EPR"]
      ok: estado === 'EPR',
      numeroAtencion: at.numero,
      fechaAtencion: at.fecha,
      srV_CODE: null,
      sqL_CODE: null,
      erR_CODE: null,
      glosa,
    };
  };

  /** A failed DTE envelope query, in the recorded shape [C "Usuario sin permiso en empresa"]. */
  const dteEnvioFailure = (estado: string, glosa: string, hdr: [string, string][], errCode: string | null): EnvioDteStatusResponse => ({
    estados: [],
    responseXml: siiRespuesta(hdr),
    trackId: 0,
    estado,
    ok: false,
    numeroAtencion: 0,
    fechaAtencion: DOTNET_MIN_DATE,
    srV_CODE: null,
    sqL_CODE: null,
    erR_CODE: errCode,
    glosa,
  });

  /** The DTE server's answer about an envelope (both faces): unknown → -11, another company's → 106, else its state. */
  const dteEnvioFor = (found: EmuEnvioRow | undefined, rutEmpresa: string | undefined): EnvioDteStatusResponse => {
    if (!found) {
      const hdr: [string, string][] = [
        ['ESTADO', UNKNOWN_TRACK.estado],
        ['ERR_CODE', UNKNOWN_TRACK.errCode],
      ];
      return dteEnvioFailure(UNKNOWN_TRACK.estado, UNKNOWN_TRACK.glosa, hdr, UNKNOWN_TRACK.errCode);
    }
    if (!sameRut(rutEmpresa, found.rut_emisor)) {
      const hdr: [string, string][] = [
        ['ESTADO', NO_PERMISSION.estado],
        ['GLOSA', NO_PERMISSION.glosa],
      ];
      return dteEnvioFailure(NO_PERMISSION.estado, NO_PERMISSION.glosa, hdr, null);
    }
    return dteEnvioAnswer(found);
  };

  /**
   * A document as the SII's records hold it (both faces' consulta/dte, QueryEstDte): received
   * with the same data DOK, other data DNK; not received: annulled FAN, outside every CAF FNA,
   * else FAU (a rejected document was never received).
   */
  const documentState = async (q: {
    rut: string;
    tipo: number;
    folio: number;
    receptor: string | undefined;
    fecha: string | undefined;
    monto: number | undefined;
  }): Promise<DteState> => {
    const doc = await emulatorStore.getDocument(db, q.rut, q.tipo, q.folio);
    if (doc) {
      const matches =
        doc.monto_total === q.monto &&
        doc.fecha_emision === q.fecha &&
        (doc.rut_receptor === null || sameRut(q.receptor, doc.rut_receptor));
      return matches ? 'DOK' : 'DNK';
    }
    if (await emulatorStore.isAnnulled(db, q.rut, q.tipo, q.folio)) return 'FAN';
    if (!(await emulatorStore.cafCovers(db, q.rut, q.tipo, q.folio))) return 'FNA';
    return 'FAU';
  };

  /** consulta/envio for boletas [C "Consulta Exitosa Boleta", "Envio con boletas rechazadas", "… aceptado con reparo"]. */
  const boletaEnvioAnswer = (envio: EmuEnvioRow): EnvioBoletaStatusResponse => {
    const stage = envelopeStage(envio, clock.now());
    const estado = stage?.estado ?? envio.estado;
    const processed = estado === 'EPR';
    const detalles = processed
      ? envio.detalle.filter((d) => d.estado === 'RCH' || d.estado === 'RPR' || d.estado === 'RLV').map(boletaDetalle)
      : [];
    const details = detalles.flatMap((d) => d.errores.map((e) => e.detalle).filter((x): x is string => !!x));
    return {
      rutEmisor: envio.rut_emisor,
      rutEnvia: envio.rut_envia,
      trackId: envio.track_id,
      fechaRecepcion: chileSlashed(envio.received_at),
      estado,
      response: null,
      // Built member by member: jsonb does not keep the order of keys.
      estadistica: processed
        ? envio.estadistica.map((s) => ({
            tipo: s.tipo,
            informados: s.informados,
            aceptados: s.aceptados,
            rechazados: s.rechazados,
            reparos: s.reparos,
          }))
        : [],
      detalles,
      // The recorded answers carry the error's `detalle` here ("" when none) [C]; several are joined
      // with "; " (ours). A rejected envelope says why here (ours).
      errores: processed ? details.join('; ') : stage ? '' : envio.glosa,
    };
  };

  /** [C "Usuario sin permiso en el SII"], without `errores` as recorded. */
  const boletaEnvioFailure = (): EnvioBoletaStatusResponse => ({
    rutEmisor: null,
    rutEnvia: null,
    trackId: 0,
    fechaRecepcion: null,
    estado: null,
    response: BOLETA_NO_PERMISSION,
    estadistica: null,
    detalles: null,
  });

  return {
    siiKey,
    /** Grants a CAF (both faces: SimpleAPI's folios/get, the SII's CAF forms in sii/caf-forms.ts). */
    grantCaf,
    siiKeys,
    rateLimiter,
    calls,
    /** The SII face (sii/) keeps its seeds and tokens in the same database, on the same clock. */
    db,
    /** The SII face's book reception (sii/books.ts) validates and delays like envelopes. */
    schemaValidator: opts.schemaValidator,
    processingDelayMs: opts.processingDelayMs,
    clock,
    /** Shared with the SII face (sii/): reception, the envelope's and a document's state. */
    receiveEnvelope,
    dteEnvioFor,
    documentState,
    /** The emulator's tables, created on first use (in-process they live in the service's database). */
    ready: () => ensureEmulatorSchema(db),
    stats: () => calls.snapshot(),
    resetStats: () => calls.reset(),
    /** The `slow` sandbox keys' extra latency (server.ts applies it before anything else). */
    slowDown: () => sleep(opts.slowMs ?? 3000),

    /** GET suscripcion/status: `[{servicio, uso, maximo}]` [D9]; the `quota` key shows its plan used up. */
    subscription(b: KeyBehaviour): Reply {
      const quota = b.verdict === 'quota';
      return jsonReply(200, [
        { servicio: 'Emisión y envío de DTE', uso: quota ? 500 : 0, maximo: 500 },
        { servicio: 'Solicitud de folios', uso: quota ? 100 : 0, maximo: 100 },
      ]);
    },

    /** POST folios/get/{tipo}/{cantidad}: the CAF [C "Get Folios"]. */
    async folios(c: CallInput, tipoDte: number, cantidad: number): Promise<Reply> {
      const { rut, cert } = await serviciosLogin(c);
      if (!CAF_TYPES.has(tipoDte)) return mensaje(400, MENSAJE.badTipo);
      if (!Number.isSafeInteger(cantidad) || cantidad < 1) return mensaje(400, MENSAJE.badInput);
      if (cantidad > FOLIOS_AVAILABLE) return mensaje(400, MENSAJE.tooMany);
      const { xml } = await grantCaf(rut, tipoDte, cantidad, cert.name || null);
      return xmlReply(cafAsServed(xml, cafLayout));
    },

    /** POST folios/get/{tipo}/: a bare number [C "Consulta Disponibles"]. */
    async foliosAvailable(c: CallInput, tipoDte: number): Promise<Reply> {
      await serviciosLogin(c);
      if (!CAF_TYPES.has(tipoDte)) return mensaje(400, MENSAJE.badTipo);
      return jsonReply(200, FOLIOS_AVAILABLE);
    },

    /**
     * POST folios/anulacion/{tipo}/{desde}/{hasta}: one entry per CAF the range touches, last CAF
     * first, 200 when every entry succeeded and 400 otherwise [C "Anulacion", 200 and 400].
     */
    async annul(c: CallInput, tipoDte: number, desde: number, hasta: number): Promise<Reply> {
      const { cert, rut } = await serviciosLogin(c);
      if (!CAF_TYPES.has(tipoDte)) return mensaje(400, MENSAJE.badTipo);
      if (!Number.isSafeInteger(desde) || !Number.isSafeInteger(hasta) || desde < 1 || hasta < desde) return mensaje(400, MENSAJE.badRange);
      const now = clock.now();
      const when = chileDashed(now);
      const entries = await db.transaction(async (tx) => {
        const cafs = await emulatorStore.lockCafsOverlapping(tx, rut, tipoDte, desde, hasta);
        const out: AnnulEntry[] = [];
        for (const caf of cafs.reverse()) {
          const from = Math.max(desde, caf.desde);
          const to = Math.min(hasta, caf.hasta);
          const entry = { folioInicialCAF: caf.desde, folioFinalCAF: caf.hasta };
          const prior = (await emulatorStore.anyReceived(tx, rut, tipoDte, from, to))
            ? 'received'
            : await emulatorStore.annulledOverlapping(tx, rut, tipoDte, from, to);
          if (prior === 'received') out.push({ exito: false, mensaje: annulText.received(), ...entry });
          else if (prior) {
            const por = prior.annulled_by;
            out.push({
              exito: false,
              mensaje: annulText.already({ fecha: chileDashed(prior.annulled_at).fecha, desde: prior.desde, hasta: prior.hasta, por }),
              ...entry,
            });
          } else {
            await emulatorStore.insertAnnulled(tx, { rut, tipoDte, desde: from, hasta: to, by: cert.name.toUpperCase(), now });
            const mensaje = annulText.ok({
              ...when,
              tipoDte,
              desde: from,
              hasta: to,
              razonSocial: `CONTRIBUYENTE ${rut}`,
              rutEmpresa: rut,
              rutCert: cert.rut ?? '',
            });
            out.push({ exito: true, mensaje, ...entry });
          }
        }
        return out;
      });
      if (entries.length === 0) {
        return jsonReply(400, [{ exito: false, mensaje: annulText.notGranted(), folioInicialCAF: desde, folioFinalCAF: hasta }]);
      }
      return jsonReply(entries.every((e) => e.exito) ? 200 : 400, entries);
    },

    /**
     * POST envio/enviar [C "Enviar al SII"; SDK EnvioResult]: Tipo 1 answers the SII's RECEPCIONDTE
     * (estado "0", "Upload OK"), Tipo 2 the boleta server's JSON (estado "REC"). An upload the SII
     * refuses at reception (empty, or not an envelope) is HTTP 400 with trackId -999999 [D9].
     */
    async send(c: CallInput): Promise<Reply> {
      needFiles(c, 2);
      const tipo = int(member(c.input, 'Tipo'));
      if (tipo !== 1 && tipo !== 2) return textReply(400, TIPO_INCORRECTO);
      const certificado = member(c.input, 'Certificado');
      const cert = login(c.files[0], member(certificado, 'Password'), member(certificado, 'Rut'));
      await ensureEmulatorSchema(db);
      const upload = c.files[1]!;
      const now = clock.now();
      const ticks = dotnetTicks(now);
      // SimpleAPI's own names for the file [C]: EnvioDTE "archivo_envio_<ticks>.xml"; the boleta
      // server "<ticks>_<uploaded name>SRV_CODE" (sic, as recorded).
      const file = tipo === 1 ? `archivo_envio_${ticks}.xml` : `${ticks}_${upload.filename || 'envio.xml'}SRV_CODE`;
      const raw = upload.data.toString('latin1');
      if (upload.data.length === 0) return failedUpload(cert, null, file, UPLOAD_REFUSED.empty);
      const rutInFile = /<RutEmisor>\s*([^<\s]+)\s*<\/RutEmisor>/.exec(raw)?.[1];
      if (!/<(?:\w+:)?Envio(?:DTE|BOLETA)[\s>]/.test(raw) || !rutInFile)
        return failedUpload(cert, rutInFile ?? null, file, UPLOAD_REFUSED.notEnvelope);

      const { trackId, rutEmpresa } = await receiveEnvelope({
        data: upload.data,
        tipo: tipo === 2 ? 'boleta' : 'dte',
        rutUploader: cert.rut,
        rutInFile,
        now,
      });
      const rutEnvia = cert.rut ?? '';
      const answer = (estado: string, glosa: string, responseXml: string): EnvioResponse => ({
        rutEnvia,
        rutEmpresa,
        file,
        fecha: chileTimestamp(now),
        estado,
        ok: true,
        glosa,
        errores: null,
        trackId,
        responseXml,
      });
      if (tipo === 1) {
        return jsonReply(
          200,
          answer(
            '0',
            'Upload OK',
            recepcionDte({ rutSender: rutEnvia, rutCompany: rutEmpresa, file, timestamp: chileSpaced(now), status: '0', trackId }),
          ),
        );
      }
      return jsonReply(
        200,
        answer('REC', '', boletaReception({ rutEmisor: rutEmpresa, rutEnvia, trackId, fechaRecepcion: chileSpaced(now), file })),
      );
    },

    /** POST consulta/envio: counts only for EnvioDTE; `detalles` for boletas (ServidorBoletaREST). */
    async envioStatus(c: CallInput): Promise<Reply> {
      needFiles(c, 1);
      const boleta = bool(member(c.input, 'ServidorBoletaREST'));
      const certificado = member(c.input, 'Certificado');
      if (certificado === undefined || certificado === null) {
        // [C "Error interno SII"]: the input named it otherwise; the SII call failed inside SimpleAPI.
        if (boleta) return jsonReply(200, boletaEnvioFailure());
        const hdr: [string, string][] = [
          ['ESTADO', INTERNAL_ERROR.estado],
          ['GLOSA', INTERNAL_ERROR.glosaXml],
        ];
        return jsonReply(200, { ...dteEnvioFailure('', INTERNAL_ERROR.glosa, hdr, null), estado: null });
      }
      login(c.files[0], member(certificado, 'Password'), member(certificado, 'Rut'));
      await ensureEmulatorSchema(db);
      const rutEmpresa = str(member(c.input, 'RutEmpresa'));
      const trackId = int(member(c.input, 'TrackId'));
      const envio = trackId !== undefined ? await emulatorStore.getEnvio(db, trackId) : undefined;
      // The boleta server and the DTE server keep their own envelopes: asking the other one finds nothing.
      const found = envio && (envio.tipo === 'boleta') === boleta ? envio : undefined;
      if (boleta) {
        if (!found || !sameRut(rutEmpresa, found.rut_emisor)) return jsonReply(200, boletaEnvioFailure());
        return jsonReply(200, boletaEnvioAnswer(found));
      }
      return jsonReply(200, dteEnvioFor(found, rutEmpresa));
    },

    /**
     * POST consulta/dte [C "Consultar Estado DTE"; SDK EstadoDTEResult]. Only documents the SII
     * received (accepted, with or without reparos) are found: a rejected one is FAU, as one never
     * sent. Boletas answer in `codigo`/`descripcion` with `estado: null` [C "Boleta no recibida"].
     */
    async dteStatus(c: CallInput): Promise<Reply> {
      needFiles(c, 1);
      const certificado = member(c.input, 'Certificado');
      login(c.files[0], member(certificado, 'Password'), member(certificado, 'Rut'));
      await ensureEmulatorSchema(db);
      const rutEmpresa = str(member(c.input, 'RutEmpresa'));
      const tipo = int(member(c.input, 'Tipo'));
      const folio = int(member(c.input, 'Folio'));
      if (!rutEmpresa || !tryParseRut(rutEmpresa) || tipo === undefined || folio === undefined) return textReply(400, API_TEXT.badInput);
      const rut = toSiiRut(rutEmpresa);
      const state = await documentState({
        rut,
        tipo,
        folio,
        receptor: str(member(c.input, 'RutReceptor')),
        fecha: str(member(c.input, 'FechaDTE')),
        monto: int(member(c.input, 'Total')),
      });
      const s = DTE_STATES[state];
      const common = { erR_CODE: null, glosa_ERR_CODE: null, numeroAtencion: 0, fechaAtencion: DOTNET_MIN_DATE };
      if (bool(member(c.input, 'ServidorBoletaREST'))) {
        return jsonReply(200, {
          responseXml: null,
          estado: null,
          ok: false,
          glosaEstado: null,
          ...common,
          codigo: state,
          descripcion: s.glosaErr,
        } satisfies DteStatusResponse);
      }
      const responseXml = siiRespuesta([
        ['ESTADO', state],
        ['GLOSA_ESTADO', s.glosaEstado],
        ['ERR_CODE', s.errCode],
        ['GLOSA_ERR', s.glosaErr],
        ['NUM_ATENCION', null],
      ]);
      return jsonReply(200, {
        responseXml,
        estado: state,
        // [SDK EstadoDTEResult: Ok => Estado == "DOK"]
        ok: state === 'DOK',
        glosaEstado: s.glosaEstado,
        ...common,
        codigo: null,
        descripcion: null,
      } satisfies DteStatusResponse);
    },

    /**
     * POST compras/aceptacionreclamo [C "Aceptar - Rechazar en SII"]: the SII's registro de
     * aceptación o reclamo, answered HTTP 200 with its code whatever it decides. Checks in the
     * order of …aceptacion-reclamo-dte-v1.2: RutEmpresa (1), Folio (2), Tipo (3), Accion (4), the
     * document received by this SII (9, as recorded for a document it does not have [C]), the eight
     * days from its reception here (8), then the events before (registroDecision). Who may act for
     * the receptor (codes 14, 17) is not modelled: any certificate the SII accepts may register.
     */
    async acceptance(c: CallInput): Promise<Reply> {
      needFiles(c, 1);
      const certificado = member(c.input, 'Certificado');
      const cert = login(c.files[0], member(certificado, 'Password'), member(certificado, 'Rut'));
      await ensureEmulatorSchema(db);
      const rutEmpresa = str(member(c.input, 'RutEmpresa'));
      const tipo = int(member(c.input, 'Tipo'));
      const folio = int(member(c.input, 'Folio'));
      const accion = str(member(c.input, 'Accion'));
      const answer = (codRespuesta: number, descripcion: string) =>
        jsonReply(200, {
          response: registroSoap(codRespuesta, descripcion),
          codRespuesta,
          descripcion,
          fechaRecepcion: DOTNET_MIN_DATE,
          detalles: [],
        } satisfies AceptacionReclamoResponse);
      if (!rutEmpresa || !tryParseRut(rutEmpresa)) return answer(1, REGISTRO_TEXT[1]);
      if (folio === undefined || folio < 1) return answer(2, REGISTRO_TEXT[2]);
      if (tipo === undefined || !REGISTRO_TIPOS.has(tipo)) return answer(3, REGISTRO_TEXT[3]);
      if (!accion || !(ACCIONES_REGISTRO as readonly string[]).includes(accion)) return answer(4, REGISTRO_TEXT[4]);
      const r = await registroAccion(db, { rut: toSiiRut(rutEmpresa), tipo, folio, accion, by: cert.rut, now: clock.now() });
      return answer(r.codigo, r.descripcion);
    },
  };
}

/** The registro's window: "dentro de los primeros 8 días corridos" from the SII's reception (…aceptacion-reclamo-dte-v1.2). */
export const REGISTRO_WINDOW_MS = 8 * 24 * 3_600_000;
/** The types the registro operates on (…aceptacion-reclamo-dte-v1.2, tipoDoc): others are code 3. */
export const REGISTRO_TIPOS = new Set([33, 34, 43]);
const CLAIMS = new Set(['RCD', 'RFP', 'RFT']);

/**
 * The registro's decision for `accion` on a document with the events `before` (oldest first), in
 * the order of …aceptacion-reclamo-dte-v1.2, "accionDoc": an earlier claim refuses ERM (6) and ACD
 * (12) and takes any other claim; ACD takes ERM and refuses claims (11); ERM takes ACD and refuses
 * claims (13); the same event again is 7. The window (8) is checked before, by the caller.
 */
export function registroDecision(accion: string, before: readonly string[]): { code: number; record: boolean } {
  const claims = before.filter((e) => CLAIMS.has(e));
  if (before.includes(accion)) return { code: 7, record: false };
  if (claims.length > 0) {
    if (accion === 'ERM') return { code: 6, record: false };
    if (accion === 'ACD') return { code: 12, record: false };
    return { code: 0, record: true };
  }
  if (CLAIMS.has(accion)) {
    if (before.includes('ACD')) return { code: 11, record: false };
    if (before.includes('ERM')) return { code: 13, record: false };
  }
  return { code: 0, record: true };
}

/**
 * The registro's answer for a well-formed request (codes 1–4 checked by the caller): the document
 * received by this SII (9), the eight days from its reception here (8), then the events before
 * (registroDecision), decided under the document's lock and recorded when taken. Both faces call
 * it: SimpleAPI's compras/aceptacionreclamo and the SII's own WsRegistroReclamoDte (sii/claims.ts).
 */
export async function registroAccion(
  db: Db,
  r: { rut: string; tipo: number; folio: number; accion: string; by: string | null; now: Date },
): Promise<{ codigo: number; descripcion: string }> {
  const { rut, tipo, folio, accion, now } = r;
  const code = await db.transaction(async (tx) => {
    const doc = await emulatorStore.lockDocument(tx, rut, tipo, folio);
    if (!doc) return { code: 9, claim: '' };
    if (now.getTime() > doc.received_at.getTime() + REGISTRO_WINDOW_MS) return { code: 8, claim: '' };
    const before = await emulatorStore.events(tx, rut, tipo, folio);
    const d = registroDecision(accion, before);
    if (d.record) await emulatorStore.insertEvent(tx, { rut, tipoDte: tipo, folio, accion, by: r.by, now });
    return { code: d.code, claim: before.find((e) => CLAIMS.has(e)) ?? '' };
  });
  const t = REGISTRO_TEXT[code.code as keyof typeof REGISTRO_TEXT];
  return { codigo: code.code, descripcion: typeof t === 'function' ? t(code.claim) : t };
}

/** One document of the boleta server's `detalles`: findings `SEC-L-NNN` → seccion, nivel, codigo [C]. */
export function boletaDetalle(d: EmuDocumentOutcome) {
  return {
    tipo: d.tipo,
    folio: d.folio,
    estado: d.estado === 'RLV' ? 'RPR' : d.estado,
    descripcion: d.estado === 'RCH' ? DOCUMENT_DESCRIPCION.RCH : DOCUMENT_DESCRIPCION.RPR,
    errores: d.errores.map((e) => {
      const m = /^([A-Z]+)-(\d)-(\d+)$/.exec(e.codigo);
      return {
        seccion: m ? m[1]! : e.codigo,
        linea: 0,
        nivel: m ? Number(m[2]) : 3,
        codigo: m ? Number(m[3]) : 0,
        descripcion: e.descripcion,
        detalle: e.detalle ?? null,
      };
    }),
  };
}

export type EmulatorCore = ReturnType<typeof createEmulatorCore>;
