import { issueCaf, siiDate, toSiiRut, tryParseRut, type SchemaValidator, type SiiKeys } from '../../dte/index.ts';
import type { Db } from '../../db/types.ts';
import type { Clock } from '../../lib/clock.ts';
import { ProviderError } from '../port.ts';
import type {
  AnnulInput,
  DteStatusInput,
  DteStatusResponse,
  EnvioResponse,
  EnvioStatusInput,
  EnvioStatusResponse,
  FoliosInput,
  SendInput,
  TaxpayerInput,
  TaxpayerResponse,
} from '../simpleapi/protocol.ts';
import { checkCertificate } from './pfx.ts';
import { inspectEnvelope, judgeDocuments } from './review.ts';
import { apiKeyBehaviour, assertKeyUsable } from './sandbox.ts';
import type { EmulatorSiiKey } from './sii-key.ts';
import { emulatorStore, ensureEmulatorSchema } from './store.ts';

/**
 * The emulated SimpleAPI + SII, at the level of SimpleAPI's protocol (protocol.ts): each method is
 * one SimpleAPI call with its inputs and answer shapes. server.ts puts these on HTTP routes; the
 * in-process provider reaches them through the same routes without a socket (inprocess.ts), so
 * both ways behave identically.
 *
 * Timing: an upload is reviewed at once (so folio reuse is decided in reception order) and its
 * verdict is revealed after `processingDelayMs` (×10 for the LENTO sandbox trigger). Meanwhile the
 * envelope walks the SII's stages, one fifth of the delay each: REC → SOK (schema) → CRT
 * (carátula) → FOK (signature) → PRD (in process) → the verdict. A rejection shows at the stage
 * that failed: RSC instead of SOK, RCT instead of CRT, RFR instead of FOK.
 */
const STAGES = [
  { estado: 'REC', glosa: 'Envío recibido, en proceso' },
  { estado: 'SOK', glosa: 'Schema Validado' },
  { estado: 'CRT', glosa: 'Carátula OK' },
  { estado: 'FOK', glosa: 'Firma de Envío Validada' },
  { estado: 'PRD', glosa: 'Envío en Proceso' },
] as const;
const REJECTED_AT_STAGE: Record<string, number> = { RSC: 1, RCT: 2, RFR: 3 };

/** The stage an envelope shows at `now`, or undefined once its verdict is visible. */
export function envelopeStage(e: { estado: string; received_at: Date; ready_at: Date }, now: Date): (typeof STAGES)[number] | undefined {
  const total = e.ready_at.getTime() - e.received_at.getTime();
  if (now >= e.ready_at || total <= 0) return undefined;
  const stage = Math.min(STAGES.length - 1, Math.floor(((now.getTime() - e.received_at.getTime()) / total) * STAGES.length));
  const rejectedAt = REJECTED_AT_STAGE[e.estado];
  if (rejectedAt !== undefined && stage >= rejectedAt) return undefined;
  return STAGES[Math.max(0, stage)];
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
}

export const CAF_TYPES = new Set([33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112]);
export const MAX_FOLIOS_PER_REQUEST = 10_000;

const bad = (message: string) => new ProviderError('rejected', message, 400);

function siiRut(value: unknown, field: string): string {
  const r = typeof value === 'string' ? tryParseRut(value) : null;
  if (!r) throw bad(`${field} no es un RUT válido`);
  return toSiiRut(value as string);
}

export function createEmulatorCore(opts: EmulatorCoreOptions) {
  const { db, clock, siiKey } = opts;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const slowMs = opts.slowMs ?? 3000;
  const siiKeys: SiiKeys = { [String(siiKey.idk)]: siiKey.publicKey };

  /** Every call: the key's sandbox behaviour (slow first, so a slow refusal is slow too). */
  const admit = async (apiKey: string) => {
    const b = apiKeyBehaviour(apiKey);
    if (b.slow) await sleep(slowMs);
    return b;
  };
  const billable = async (apiKey: string, pfx: Buffer | undefined, password: string | undefined, rut: string | undefined) => {
    assertKeyUsable(await admit(apiKey));
    const cert = checkCertificate(pfx, password, rut, clock.now());
    await ensureEmulatorSchema(db);
    return cert;
  };

  return {
    siiKey,
    siiKeys,

    async subscription(apiKey: string) {
      const b = await admit(apiKey);
      if (b.verdict !== 'quota') assertKeyUsable(b);
      const used = b.verdict === 'quota' ? 500 : 0;
      return [
        { servicio: 'Emisión y envío de DTE', uso: used, maximo: 500 },
        { servicio: 'Solicitud de folios', uso: b.verdict === 'quota' ? 100 : 0, maximo: 100 },
      ];
    },

    async folios(apiKey: string, input: FoliosInput, tipoDte: number, cantidad: number, pfx: Buffer | undefined): Promise<Buffer> {
      await billable(apiKey, pfx, input.Password, input.RutCertificado);
      const rut = siiRut(input.RutEmpresa, 'RutEmpresa');
      if (!CAF_TYPES.has(tipoDte)) throw bad(`El tipo de documento ${tipoDte} no existe`);
      if (!Number.isInteger(cantidad) || cantidad < 1 || cantidad > MAX_FOLIOS_PER_REQUEST) {
        throw bad(`La cantidad de folios debe estar entre 1 y ${MAX_FOLIOS_PER_REQUEST}`);
      }
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
      });
      return xml;
    },

    async send(apiKey: string, input: SendInput, pfx: Buffer | undefined, envelope: Buffer | undefined): Promise<EnvioResponse> {
      const cert = await billable(apiKey, pfx, input.Certificado?.Password, input.Certificado?.Rut);
      if (!envelope || envelope.length === 0) throw bad('Falta el archivo del envío');
      if (input.Tipo !== 1 && input.Tipo !== 2) throw bad('Tipo debe ser 1 (DTE) o 2 (boleta)');
      const now = clock.now();
      const inspected = await inspectEnvelope(envelope, {
        siiKeys,
        now,
        schemaValidator: opts.schemaValidator,
        tipo: input.Tipo === 2 ? 'boleta' : 'dte',
        rutUploader: cert.rut,
      });
      const delay = opts.processingDelayMs * (inspected.slow ? 10 : 1);
      const trackId = await db.transaction(async (tx) => {
        const id = await emulatorStore.nextTrackId(tx);
        const base = {
          trackId: id,
          rutEmisor: inspected.rutEmisor,
          rutEnvia: inspected.rutEnvia,
          tipo: input.Tipo === 2 ? 'boleta' : 'dte',
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
          await emulatorStore.insertEnvio(tx, { ...base, estado: 'EPR', glosa: 'Envío Procesado', ...judged });
        }
        return id;
      });
      const ts = now.toISOString().replace('T', ' ').slice(0, 19);
      const responseXml =
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<RECEPCIONDTE>' +
        `<RUTSENDER>${cert.rut ?? ''}</RUTSENDER><RUTCOMPANY>${inspected.rutEmisor ?? ''}</RUTCOMPANY>` +
        `<FILE>envio.xml</FILE><TIMESTAMP>${ts}</TIMESTAMP><STATUS>0</STATUS><TRACKID>${trackId}</TRACKID></RECEPCIONDTE>`;
      return { trackId: String(trackId), estado: 'REC', ok: true, glosa: 'Envío recibido', errores: [], responseXml };
    },

    async envioStatus(apiKey: string, input: EnvioStatusInput, pfx: Buffer | undefined): Promise<EnvioStatusResponse> {
      await billable(apiKey, pfx, input.Certificado?.Password, input.Certificado?.Rut);
      const rut = siiRut(input.RutEmpresa, 'RutEmpresa');
      const id = /^\d{1,15}$/.test(String(input.TrackId)) ? Number(input.TrackId) : NaN;
      const envio = Number.isSafeInteger(id) ? await emulatorStore.getEnvio(db, id) : undefined;
      if (!envio || (envio.rut_emisor !== null && envio.rut_emisor !== rut)) {
        throw new ProviderError('rejected', `El envío ${String(input.TrackId)} no existe para la empresa ${rut}`, 404);
      }
      const stage = envelopeStage(envio, clock.now());
      if (stage) return { trackId: String(envio.track_id), estado: stage.estado, glosa: stage.glosa, estadistica: [], detalle: [] };
      return {
        trackId: String(envio.track_id),
        estado: envio.estado,
        glosa: envio.glosa,
        estadistica: envio.estadistica,
        detalle: envio.detalle,
      };
    },

    async dteStatus(apiKey: string, input: DteStatusInput, pfx: Buffer | undefined): Promise<DteStatusResponse> {
      await billable(apiKey, pfx, input.Certificado?.Password, input.Certificado?.Rut);
      const rut = siiRut(input.RutEmpresa, 'RutEmpresa');
      const doc = await emulatorStore.getDocument(db, rut, Number(input.Tipo), Number(input.Folio));
      if (!doc) return { estado: 'FAU', glosa: 'Documento No Recibido por el SII' };
      const receptor = typeof input.RutReceptor === 'string' && tryParseRut(input.RutReceptor) ? toSiiRut(input.RutReceptor) : null;
      const matches =
        doc.monto_total === Number(input.Total) &&
        doc.fecha_emision === input.FechaDte &&
        (receptor === null || doc.rut_receptor === receptor);
      return matches
        ? { estado: 'DOK', glosa: 'Documento Recibido por el SII. Datos Coinciden con los Registrados' }
        : { estado: 'DNK', glosa: 'Documento Recibido por el SII pero Datos NO Coinciden con los registrados' };
    },

    async taxpayer(apiKey: string, input: TaxpayerInput, pfx: Buffer | undefined): Promise<TaxpayerResponse> {
      await billable(apiKey, pfx, input.Certificado?.Password, input.Certificado?.Rut);
      const rut = siiRut(input.RutEmpresa, 'RutEmpresa');
      return {
        rut,
        razonSocial: `CONTRIBUYENTE ${rut}`,
        actividades: [{ codigo: 620200, glosa: 'ACTIVIDADES DE CONSULTORIA DE INFORMATICA' }],
      };
    },

    async annul(apiKey: string, input: AnnulInput, pfx: Buffer | undefined, tipoDte: number, desde: number, hasta: number) {
      await billable(apiKey, pfx, input.Certificado?.Password, input.Certificado?.Rut);
      const rut = siiRut(input.RutEmpresa, 'RutEmpresa');
      if (!Number.isSafeInteger(desde) || !Number.isSafeInteger(hasta) || desde < 1 || hasta < desde) throw bad('Rango de folios inválido');
      await emulatorStore.insertAnnulled(db, { rut, tipoDte, desde, hasta, now: clock.now() });
      return { ok: true, glosa: `Folios ${desde} a ${hasta} del tipo ${tipoDte} anulados` };
    },
  };
}

export type EmulatorCore = ReturnType<typeof createEmulatorCore>;
