import { cafKeysFor } from '../../provider/index.ts';
import crypto from 'node:crypto';
import type { Db, Sql } from '../../db/types.ts';
import {
  assertSignerValidAt,
  buildRespuestaEnvio,
  ESTADO_RECEP_DTE,
  isDteEngineError,
  readPrintable,
  isReceivable,
  type PreparedSigner,
  type PrintableDte,
  type SchemaValidator,
  type SiiKeys,
} from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import { emitEvent } from '../../events/outbox.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/tokens.ts';
import { isDeliverableAddress } from '../exchange/index.ts';
import type { RespuestaToSend } from './received.deliveries.ts';
import type { TenantRow } from '../tenants/index.ts';
import { receivedStore, type EnvioDocument, type ReceivedDteRow } from './received.store.ts';
import { documentProblem, type DocumentProblem } from './received.verdict.ts';
import { envioGlosa, toReceivedDte, toReceivedEnvio, type ReceivedEnvio } from './received.views.ts';
import { guardXml } from './received.xml-guard.ts';
import { readAddressedEnvelope } from './received.envelope.ts';

/**
 * Receiving a supplier's EnvioDTE (docs/received.md; docs/decisions.md §13). In order:
 *  1. the hostile-XML guard (received.xml-guard.ts), before any parser runs;
 *  2. the tenant's signing certificate (the answer is signed; 409 without one, before any work);
 *  3. the engine's verification: schema, envelope signature, carátula, RutReceptor = tenant, and
 *     each DTE from its own bytes (signature, TED, CAF against the SII keys `cafKeys`);
 *  4. envelope problems → a 4xx naming the first (received.verdict.ts); nothing is stored;
 *  5. each document: receivable, or refused with its code and EstadoRecepDTE; when none is
 *     receivable → a 4xx naming the first document's problem;
 *  6. the signed RespuestaEnvioDTE is built outside any transaction, then one transaction stores
 *     the envío (with the answer), each new document once per tenant (issuer, type, folio) and
 *     its `dte.received` event (outbox). Documents the tenant already has are answered
 *     "DTE Repetido" (EstadoRecepDTE 4) and not stored again. Whether a document is new is read
 *     before signing; an upload that races another one with the same document finds it taken at
 *     insert, rolls back and answers again (at most three times).
 */
export interface ReceiveDeps {
  db: Db;
  clock: Clock;
  /** The tenant's signing key (the credentials module's signer cache). */
  signers: { get(accountId: string, tenantId: string): Promise<{ signer: PreparedSigner }> };
  /** Keys a CAF's signature may verify with, by IDK (src/provider/sii-keys.ts). */
  cafKeys: SiiKeys;
  /** The same for test tenants: the built-in emulator's may be among them (docs/design.md "Test mode"). */
  testCafKeys?: SiiKeys | undefined;
  schemaValidator: SchemaValidator;
  /**
   * The answers' deliveries (received.deliveries.ts, through the exchange outbox): called in the transaction that stores
   * an answer, it records its delivery (or a skipped one) and enqueues the e-mail sent after commit.
   */
  respuestas?: { onRespuesta(tx: Sql, r: RespuestaToSend): Promise<unknown> } | undefined;
}

/** `respuestaA` of a request: where the answer goes instead of the supplier's CorreoEmisor (400 when unusable). */
export function checkRespuestaA(to: string | undefined): string | undefined {
  const v = to?.trim() || undefined;
  if (v !== undefined && !isDeliverableAddress(v))
    throw errors.invalid('invalid_email', '`respuestaA` is not an e-mail address an answer can be sent to (name@domain.tld).', {
      param: 'respuestaA',
    });
  return v;
}

/** Ley 19.983 art. 3: eight calendar days from reception to accept or claim. */
export const ACCEPTANCE_WINDOW_MS = 8 * 24 * 3_600_000;

export interface ReceiveResult {
  /** At least one document was new (201); otherwise every document was known or refused (200). */
  created: boolean;
  envio: ReceivedEnvio;
  respuestaXml: string;
}

interface Candidate {
  index: number;
  printable: PrintableDte;
  bytes: Buffer;
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  rutEmisor: string;
  rutReceptor: string;
  montoTotal: number;
}

class RaceLost extends Error {}

const amount = (s: string | null): number | null => (s !== null && /^\d{1,15}$/.test(s) ? Number(s) : null);

export function createReceive(deps: ReceiveDeps) {
  const { db, clock } = deps;

  return async function receive(
    tenant: TenantRow,
    body: Buffer,
    opts: { nombreEnvio?: string | undefined; respuestaA?: string | undefined } = {},
  ): Promise<ReceiveResult> {
    const { account_id: accountId, id: tenantId } = tenant;
    const respuestaA = checkRespuestaA(opts.respuestaA);
    guardXml(body);
    const { signer } = await deps.signers.get(accountId, tenantId);
    try {
      assertSignerValidAt(signer, clock.now());
    } catch (e) {
      throw errors.conflict(
        isDteEngineError(e) ? e.code : 'certificate_expired',
        `${(e as Error).message}. The answer to a supplier is signed with the tenant's certificate.`,
        { param: 'certificate' },
      );
    }
    const { v, parts, rutTenant } = await readAddressedEnvelope(body, tenant, {
      siiKeys: cafKeysFor(deps, tenant),
      schemaValidator: deps.schemaValidator,
    });
    const car = v.caratula;
    if (parts.dtes.length !== v.dtes.length || !car?.rutEmisor || !car.rutEnvia || !car.fechaResolucion || car.numeroResolucion === null)
      throw errors.unprocessable('envelope_caratula_invalid', "The envelope's carátula or documents cannot be read.", { param: 'body' });

    const problems: (DocumentProblem | null)[] = [];
    const candidates: Candidate[] = [];
    v.dtes.forEach((d, index) => {
      let problem = documentProblem(d, { rutTenant, receivable: isReceivable });
      let printable: PrintableDte | undefined;
      if (!problem) {
        try {
          printable = readPrintable(parts.dtes[index]!);
        } catch (e) {
          problem = { code: 'document_malformed', message: `The DTE cannot be read: ${(e as Error).message}`, estado: 99, issues: [] };
        }
      }
      problems.push(problem);
      if (problem || !printable) return;
      candidates.push({
        index,
        printable,
        bytes: parts.dtes[index]!,
        tipoDte: d.tipoDte!,
        folio: d.folio!,
        fechaEmision: d.fechaEmision!,
        rutEmisor: d.rutEmisor!,
        rutReceptor: d.rutReceptor!,
        montoTotal: d.montoTotal!,
      });
    });
    if (candidates.length === 0) {
      const first = problems.find((p) => p !== null)!;
      throw errors.unprocessable(first.code, first.message, {
        param: 'body',
        details: {
          documentsTotal: v.dtes.length,
          // The first 100: enough to see the pattern, bounded for an envelope of 2000.
          documents: v.dtes.slice(0, 100).map((d, i) => ({
            index: i,
            tipoDte: d.tipoDte,
            folio: d.folio,
            code: problems[i]?.code ?? null,
            message: problems[i]?.message ?? null,
            issues: problems[i]?.issues ?? [],
          })),
        },
      });
    }

    const nombreEnvio = (opts.nombreEnvio ?? `${parts.setId ?? 'EnvioDTE'}.xml`).slice(0, 80);
    const sha256 = crypto.createHash('sha256').update(body).digest('hex');
    for (let attempt = 1; ; attempt++) {
      const now = clock.now();
      const existing = await receivedStore.existing(db, accountId, tenantId, candidates);
      const codEnvio = await receivedStore.nextCode(db);
      // What each document comes to, in the envelope's order; a document twice in one envelope is
      // received once and repeated after.
      const ids = new Map<string, { id: string; isNew: boolean }>();
      const documents: EnvioDocument[] = v.dtes.map((d, index) => {
        const problem = problems[index];
        const base = {
          index,
          tipoDte: d.tipoDte,
          folio: d.folio,
          fechaEmision: d.fechaEmision,
          rutEmisor: d.rutEmisor,
          rutReceptor: d.rutReceptor,
          montoTotal: d.montoTotal,
        };
        if (problem)
          return {
            ...base,
            estadoRecepDte: problem.estado,
            glosa: problem.message.slice(0, 256),
            outcome: 'refused',
            receivedDteId: null,
            error: { code: problem.code, message: problem.message },
          };
        const k = receivedStore.key(d.rutEmisor!, d.tipoDte!, d.folio!);
        const known = ids.get(k) ?? (existing.has(k) ? { id: existing.get(k)!, isNew: false } : undefined);
        if (known)
          return { ...base, estadoRecepDte: 4, glosa: ESTADO_RECEP_DTE[4], outcome: 'repeated', receivedDteId: known.id, error: null };
        const id = newId();
        ids.set(k, { id, isNew: true });
        return { ...base, estadoRecepDte: 0, glosa: ESTADO_RECEP_DTE[0], outcome: 'received', receivedDteId: id, error: null };
      });
      const respuesta = buildRespuestaEnvio({
        rutResponde: rutTenant,
        rutRecibe: car.rutEmisor,
        idRespuesta: codEnvio,
        codEnvio,
        nombreEnvio,
        envioDteId: (parts.setId ?? 'SetDoc').slice(0, 80),
        digest: parts.digest,
        caratula: { rutEmisor: car.rutEmisor, rutReceptor: car.rutReceptor },
        estadoEnvio: 0,
        glosaEnvio: envioGlosa(documents),
        // A RecepcionDTE needs every field and a type of DTEType; a refused document without them
        // is counted in the glosa only.
        documentos: documents.flatMap((d) =>
          d.tipoDte !== null &&
          isReceivable(d.tipoDte) &&
          d.folio !== null &&
          d.folio > 0 &&
          d.fechaEmision !== null &&
          d.rutEmisor !== null &&
          d.rutReceptor !== null &&
          d.montoTotal !== null
            ? [
                {
                  tipoDte: d.tipoDte,
                  folio: d.folio,
                  fechaEmision: d.fechaEmision,
                  rutEmisor: d.rutEmisor,
                  rutReceptor: d.rutReceptor,
                  montoTotal: d.montoTotal,
                  estado: d.estadoRecepDte as keyof typeof ESTADO_RECEP_DTE,
                  glosa: d.glosa,
                },
              ]
            : [],
        ),
        recibidoEn: now,
        signer,
        now,
      });
      const envioId = newId();
      try {
        const row = await db.transaction(async (tx) => {
          const envio = await receivedStore.insertEnvio(tx, {
            id: envioId,
            accountId,
            tenantId,
            codEnvio,
            envioDteId: (parts.setId ?? 'SetDoc').slice(0, 80),
            nombreEnvio,
            rutEmisor: car.rutEmisor!,
            rutEnvia: car.rutEnvia!,
            sha256,
            documents,
            respuesta: respuesta.xml,
            now,
          });
          for (const c of candidates) {
            const doc = documents[c.index]!;
            if (doc.outcome !== 'received') continue;
            const inserted = await receivedStore.insertDte(tx, {
              id: doc.receivedDteId!,
              accountId,
              tenantId,
              envioId,
              rutEmisor: c.rutEmisor,
              tipoDte: c.tipoDte,
              folio: c.folio,
              fechaEmision: c.fechaEmision,
              rutReceptor: c.rutReceptor,
              razonSocialEmisor: c.printable.emisor.razonSocial.slice(0, 100),
              giroEmisor: c.printable.emisor.giro?.slice(0, 80) ?? null,
              correoEmisor: c.printable.emisor.correo?.trim().slice(0, 254) || null,
              montoNeto: amount(c.printable.totales.montoNeto),
              montoExento: amount(c.printable.totales.montoExento),
              iva: amount(c.printable.totales.iva),
              montoTotal: c.montoTotal,
              fechaResolucion: car.fechaResolucion!,
              numeroResolucion: car.numeroResolucion!,
              xml: c.bytes,
              receivedAt: now,
              acceptanceDeadline: new Date(now.getTime() + ACCEPTANCE_WINDOW_MS),
            });
            if (!inserted) throw new RaceLost();
            await emitEvent(tx, { accountId, type: 'dte.received', data: receivedEventData(inserted), now });
          }
          // The answer to the supplier (outbox): to respuestaA, else the CorreoEmisor its documents
          // carry (one issuer per envelope: the first that has one).
          await deps.respuestas?.onRespuesta(tx, {
            accountId,
            tenantId,
            answer: { receivedEnvioId: envioId },
            to: respuestaA ?? candidates.map((c) => c.printable.emisor.correo?.trim()).find((x) => x),
          });
          return envio;
        });
        return {
          created: documents.some((d) => d.outcome === 'received'),
          envio: toReceivedEnvio(row),
          respuestaXml: respuesta.xml.toString('latin1'),
        };
      } catch (e) {
        if (!(e instanceof RaceLost)) throw e;
        if (attempt < 3) continue;
        throw new AppError('conflict', 'upload_in_progress', 'Another upload of the same documents is being received. Retry shortly.', {
          retryAfterSeconds: 1,
        });
      }
    }
  };
}

/** The `data` of `dte.received` (docs/webhooks.md, "Events"). */
export function receivedEventData(r: ReceivedDteRow): Record<string, unknown> {
  const v = toReceivedDte(r);
  return {
    tenantId: v.tenantId,
    receivedDteId: v.id,
    tipoDte: v.tipoDte,
    folio: v.folio,
    fechaEmision: v.fechaEmision,
    emisor: { rut: v.emisor.rut, razonSocial: v.emisor.razonSocial },
    montoTotal: v.montoTotal,
    status: v.status,
    receivedAt: v.receivedAt,
    acceptanceDeadline: v.acceptanceDeadline,
  };
}
