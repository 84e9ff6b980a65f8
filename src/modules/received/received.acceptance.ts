import {
  assertSignerValidAt,
  buildEnvioRecibos,
  buildResultadoDte,
  isDteEngineError,
  type AnsweredDocument,
  type EstadoDte,
  type PreparedSigner,
} from '../../dte/index.ts';
import { errors } from '../../errors.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import { siiText } from '../../lib/validate.ts';
import type { TenantRef, TenantRow } from '../tenants/index.ts';
import { checkRespuestaA, type ReceiveDeps } from './received.receive.ts';
import { accionesStore, type AccionRow } from './received.acciones.store.ts';
import { createRegistration, type RegistrationDeps } from './received.registration.ts';
import { checkAcceptance, statusOf, type Accion } from './received.rules.ts';
import { receivedStore, type ReceivedDteRow } from './received.store.ts';
import { toReceivedDte, type ReceivedDte } from './received.views.ts';

/**
 * The tenant's answers to a received factura (Ley 19.983; docs/received.md, "Accepting or
 * claiming"), with the actions and the rules of the SII's registro de aceptación o reclamo
 * (docs/…aceptacion-reclamo-dte-v1.2, "accionDoc"):
 *  - ACD acepta el contenido, ERM otorga el recibo de mercaderías o servicios → `accepted`;
 *  - RCD reclamo al contenido, RFP / RFT reclamo por falta parcial / total de mercaderías → `claimed`;
 *  - only facturas 33 and 34 (the service's receivable types that registro operates on);
 *  - only within eight calendar days of reception (the record's deadline; the clock is injected);
 *  - the same action twice is recorded once (answered with the record as it is); ACD and ERM go
 *    together, and so do different claims; a claim after ACD or ERM, or ACD or ERM after a claim,
 *    is refused.
 *
 * Each answer is durable before anything is asked of the SII, in this order:
 *  1. the rules above, on the document as read (no lock);
 *  2. the signed document for the supplier, built and signed outside any transaction: a
 *     RespuestaDTE with a ResultadoDTE for ACD, RCD, RFP, RFT, an EnvioRecibos with a Recibo for ERM;
 *  3. one transaction locks the document, checks the rules again (a concurrent answer may have
 *     come first) and records the answer as `pending` registration with its signed document;
 *  4. after commit, one registration attempt at the SII through the provider (received.registration.ts).
 *     The SII's answer is recorded as it comes: `registered` (200), `refused` (422
 *     acceptance_refused_by_sii, the answer stays in the history and no longer counts), or, when the
 *     provider or the SII could not answer now (outage, timeout, rate limit, credentials), still
 *     `pending` (202): the worker tries again with backoff, and asking again tries at once.
 * Only answers not refused by the SII (`pending`, `registered`, `failed`) count for the rules and the status.
 */
/** ResultadoDTE's EstadoDTE per action: a claim of partial lack of goods accepts with discrepancies. */
const ESTADO_DTE: Record<Exclude<Accion, 'ERM'>, EstadoDte> = { ACD: 0, RFP: 1, RCD: 2, RFT: 2 };
const ACCION_TEXT: Record<Accion, string> = {
  ACD: 'Acepta contenido del documento (ACD)',
  ERM: 'Otorga recibo de mercaderias o servicios (ERM)',
  RCD: 'Reclamo al contenido del documento (RCD)',
  RFP: 'Reclamo por falta parcial de mercaderias (RFP)',
  RFT: 'Reclamo por falta total de mercaderias (RFT)',
};

/**
 * The tenant's address as the Recinto, cut to its 80 characters. Stored tenant data passed the
 * same text policy (tenants.service.ts); a row written before it did and holding a character the
 * answer cannot carry is the tenant's data to fix, as for its documents.
 */
function tenantRecinto(tenant: TenantRow): string {
  try {
    return siiText(`${tenant.direccion}, ${tenant.comuna}`, { param: 'recinto', maxLength: 80, truncate: true });
  } catch (e) {
    throw errors.conflict(
      'tenant_data_invalid',
      `The tenant's address cannot go into the Recibo as its Recinto: ${(e as Error).message} Fix it with PATCH /api/v1/tenants/{tenantId}, or send recinto.`,
      { param: 'recinto' },
    );
  }
}

export interface AcceptanceDeps extends RegistrationDeps {
  signers: { get(accountId: string, tenantId: string): Promise<{ signer: PreparedSigner }> };
  respuestas?: ReceiveDeps['respuestas'];
}

export interface AcceptanceBodyInput {
  accion: Accion;
  glosa?: string | undefined;
  recinto?: string | undefined;
  /** Where to e-mail the signed answer instead of the supplier's CorreoEmisor. */
  respuestaA?: string | undefined;
}

/** The answer and whether the SII holds it yet: `registered` 200, `pending`/`failed` 202 (the route). */
export interface AcceptanceResult {
  dte: ReceivedDte;
  state: AccionRow['sii_state'];
}

export function createAcceptance(deps: AcceptanceDeps) {
  const { db, clock } = deps;
  const registration = createRegistration(deps);

  /** The document as it is now, and what happened to answer `n`. */
  const outcome = async (tenant: TenantRow, id: string, n: number): Promise<AcceptanceResult> => {
    const row = (await receivedStore.get(db, tenant.account_id, tenant.id, id))!;
    const a = row.acciones.find((x) => x.n === n)!;
    if (a.state === 'refused')
      throw errors.unprocessable(
        'acceptance_refused_by_sii',
        `The SII refused to register ${a.accion} for this document (code ${a.codigo ?? '?'}: ${a.descripcion ?? 'no description'}). ` +
          "It is kept in the document's acciones as refused and does not count.",
        { details: { accion: a.accion, n: a.n, siiCodigo: a.codigo, siiDescripcion: a.descripcion } },
      );
    return { dte: toReceivedDte(row), state: a.state };
  };

  const signedAnswer = async (
    tenant: TenantRow,
    row: ReceivedDteRow,
    body: AcceptanceBodyInput,
    glosa: string | null,
    recinto: string | null,
  ) => {
    const { signer } = await deps.signers.get(tenant.account_id, tenant.id);
    const now = clock.now();
    try {
      assertSignerValidAt(signer, now);
    } catch (e) {
      throw errors.conflict(
        isDteEngineError(e) ? e.code : 'certificate_expired',
        `${(e as Error).message}. The answer to the supplier is signed with the tenant's certificate.`,
        { param: 'certificate' },
      );
    }
    const documento: AnsweredDocument = {
      tipoDte: row.tipo_dte,
      folio: Number(row.folio),
      fechaEmision: row.fecha_emision,
      rutEmisor: row.rut_emisor,
      rutReceptor: row.rut_receptor,
      montoTotal: Number(row.monto_total),
    };
    // IdRespuesta / the SetRecibos number: the same sequence as CodEnvio (unique, at most 10 digits).
    const number = await receivedStore.nextCode(db);
    if (body.accion === 'ERM')
      return {
        tipo: 'EnvioRecibos',
        xml: buildEnvioRecibos({
          rutResponde: row.rut_receptor,
          rutRecibe: row.rut_emisor,
          idEnvio: number,
          documento,
          recinto: recinto!,
          signer,
          now,
        }).xml,
      };
    const codEnvio = await receivedStore.codEnvio(db, tenant.account_id, row.envio_id);
    return {
      tipo: 'RespuestaDTE',
      xml: buildResultadoDte({
        rutResponde: row.rut_receptor,
        rutRecibe: row.rut_emisor,
        idRespuesta: number,
        documento,
        codEnvio: codEnvio!,
        estado: ESTADO_DTE[body.accion],
        glosa: glosa ? `${ACCION_TEXT[body.accion]}: ${glosa}`.slice(0, 256) : ACCION_TEXT[body.accion],
        signer,
        now,
      }).xml,
    };
  };

  return {
    registration,

    async accept(tenant: TenantRow, id: string, body: AcceptanceBodyInput): Promise<AcceptanceResult> {
      // Both go into the signed answer: the engine's text policy first (src/lib/validate.ts), so what is
      // stored is what is signed and a character the answer cannot carry is a 400 naming the field.
      const glosa = siiText(body.glosa, { param: 'glosa', maxLength: 256, optional: true }) ?? null;
      const ownRecinto = siiText(body.recinto, { param: 'recinto', maxLength: 80, optional: true });
      const respuestaA = checkRespuestaA(body.respuestaA);
      const row = UUID_RE.test(id) ? await receivedStore.get(db, tenant.account_id, tenant.id, id) : undefined;
      if (!row) throw errors.notFound('received_dte', id);
      const repeat = checkAcceptance(row, body.accion, clock.now());
      if (repeat) {
        // Asked again: answered as recorded; one not yet registered is tried again now.
        if (repeat.state !== 'registered') await registration.attemptNow(tenant.account_id, row.id, repeat.n);
        return outcome(tenant, row.id, repeat.n);
      }
      // Where the goods were received (Recibo/Recinto, ≤ 80): the tenant's address unless given.
      const recinto = body.accion === 'ERM' ? (ownRecinto ?? tenantRecinto(tenant)) : null;
      const answer = await signedAnswer(tenant, row, body, glosa, recinto);
      const recorded = await db.transaction(async (tx) => {
        const lockedRow = await receivedStore.getForUpdate(tx, tenant.account_id, tenant.id, row.id);
        if (!lockedRow) throw errors.notFound('received_dte', id);
        // Read again once the lock is held: the locking statement's own snapshot (PostgreSQL, read
        // committed) predates an answer committed by the request that held the lock before us.
        const answered = await accionesStore.listFor(tx, tenant.account_id, row.id);
        const locked = { ...lockedRow, acciones: answered.map((a) => ({ n: a.n, accion: a.accion, state: a.sii_state })) };
        const now = clock.now();
        const again = checkAcceptance(locked, body.accion, now);
        if (again) return again.n; // a concurrent request recorded it first
        const a = await accionesStore.insert(tx, {
          id: newId(),
          accountId: tenant.account_id,
          tenantId: tenant.id,
          receivedDteId: row.id,
          accion: body.accion,
          glosa,
          recinto,
          respuesta: answer.xml,
          respuestaTipo: answer.tipo,
          now,
        });
        await receivedStore.setStatus(tx, {
          accountId: tenant.account_id,
          id: row.id,
          status: statusOf([...locked.acciones, { accion: a.accion, state: a.sii_state }]),
          now,
        });
        // Its signed document to the supplier (outbox): sent after commit by the exchange module.
        await deps.respuestas?.onRespuesta(tx, {
          accountId: tenant.account_id,
          tenantId: tenant.id,
          answer: { receivedDteId: row.id, n: a.n, tipo: answer.tipo === 'EnvioRecibos' ? 'EnvioRecibos' : 'ResultadoDTE' },
          to: respuestaA ?? lockedRow.correo_emisor,
        });
        return a.n;
      });
      await registration.attemptNow(tenant.account_id, row.id, recorded);
      return outcome(tenant, row.id, recorded);
    },

    /** The signed answer for the supplier, byte for byte (GET …/acceptance/{n}/xml). */
    async respuestaXml(tenant: TenantRef, id: string, n: number): Promise<{ xml: Buffer; tipo: string }> {
      const r = UUID_RE.test(id) ? await accionesStore.getRespuesta(db, tenant.account_id, tenant.id, id, n) : undefined;
      if (!r) throw errors.notFound('received_acceptance', `${id}/${n}`);
      if (!r.respuesta || !r.respuesta_tipo) throw errors.notFound('received_acceptance', `${id}/${n}`);
      return { xml: r.respuesta, tipo: r.respuesta_tipo };
    },
  };
}
