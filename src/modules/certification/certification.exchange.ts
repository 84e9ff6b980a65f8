import { cafKeysFor } from '../../provider/index.ts';
import {
  assertSignerValidAt,
  buildEnvioRecibosOf,
  buildRespuestaEnvio,
  buildResultadosDte,
  isDteEngineError,
  isReceivable,
  type AnsweredDocument,
  type PreparedSigner,
  type SchemaValidator,
  type SiiKeys,
} from '../../dte/index.ts';
import { errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { siiText } from '../../lib/validate.ts';
import { buildZip } from '../../lib/zip.ts';
import { documentProblem, guardXml, readAddressedEnvelope, type DocumentProblem } from '../received/index.ts';
import type { TenantRow } from '../tenants/index.ts';

/**
 * The certification's exchange step (docs/certification.md, "The exchange step"): the SII sends
 * the company an EnvioDTE addressed to it, and the company answers with three signed files,
 * uploaded at the SII's certification site:
 *  1. `1_RecepcionDTE.xml`, the RespuestaEnvioDTE with the RecepcionEnvio (the envelope and each
 *     document received, or not and why);
 *  2. `2_EnvioRecibos.xml`, the Ley 19.983 receipt of every document received;
 *  3. `3_ResultadoDTE.xml`, the RespuestaEnvioDTE with the commercial result of each document
 *     (accepted, or rejected with the reason it was not received).
 * The envelope is checked exactly as `POST …/received` checks one (the received module's guard and
 * verdicts over the engine's verification); unlike it, nothing is stored, nothing is e-mailed and
 * nothing is registered at the SII: the files are the answer, for the user to upload.
 */
export interface ExchangeDeps {
  clock: Clock;
  signers: { get(accountId: string, tenantId: string): Promise<{ signer: PreparedSigner }> };
  cafKeys: SiiKeys;
  /** A test tenant's CAF keys (docs/design.md "Test mode"), as the received module takes them. */
  testCafKeys?: SiiKeys | undefined;
  schemaValidator: SchemaValidator;
}

export interface ExchangeOptions {
  /** NmbEnvio: the file name the SII's envelope came as; default {SetDTE ID}.xml. */
  nombreEnvio?: string | undefined;
  /** Recinto of the receipts; default the tenant's address. */
  recinto?: string | undefined;
}

export interface ExchangeAnswers {
  zip: Buffer;
  filename: string;
  files: string[];
}

export function createCertificationExchange(deps: ExchangeDeps) {
  const signerFor = async (tenant: TenantRow, now: Date) => {
    const { signer } = await deps.signers.get(tenant.account_id, tenant.id);
    try {
      assertSignerValidAt(signer, now);
    } catch (e) {
      throw errors.conflict(
        isDteEngineError(e) ? e.code : 'certificate_expired',
        `${(e as Error).message}. The exchange answers are signed with the tenant's certificate.`,
        { param: 'certificate' },
      );
    }
    return signer;
  };

  return async function answerExchange(tenant: TenantRow, body: Buffer, opts: ExchangeOptions = {}): Promise<ExchangeAnswers> {
    guardXml(body);
    const recinto =
      siiText(opts.recinto, { param: 'recinto', maxLength: 80, optional: true }) ??
      siiText(`${tenant.direccion}, ${tenant.comuna}`, { param: 'recinto', maxLength: 80, truncate: true });
    const now = deps.clock.now();
    const signer = await signerFor(tenant, now);
    const { v, parts, rutTenant } = await readAddressedEnvelope(body, tenant, {
      siiKeys: cafKeysFor(deps, tenant),
      schemaValidator: deps.schemaValidator,
    });
    const rutEmisor = v.caratula?.rutEmisor;
    if (!rutEmisor || parts.dtes.length !== v.dtes.length)
      throw errors.unprocessable('envelope_caratula_invalid', "The envelope's carátula or documents cannot be read.", { param: 'body' });

    // Each document the answers can name (a type and the fields a RecepcionDTE carries), with why
    // it was not received, if it was not.
    const named: { documento: AnsweredDocument; problem: DocumentProblem | null }[] = [];
    for (const d of v.dtes) {
      if (d.tipoDte === null || !isReceivable(d.tipoDte) || d.folio === null || d.folio < 1) continue;
      if (!d.fechaEmision || !d.rutEmisor || !d.rutReceptor || d.montoTotal === null) continue;
      named.push({
        documento: {
          tipoDte: d.tipoDte,
          folio: d.folio,
          fechaEmision: d.fechaEmision,
          rutEmisor: d.rutEmisor,
          rutReceptor: d.rutReceptor,
          montoTotal: d.montoTotal,
        },
        problem: documentProblem(d, { rutTenant, receivable: isReceivable }),
      });
    }
    if (named.length === 0)
      throw errors.unprocessable(
        'envelope_invalid',
        'No document of the envelope can be named in an answer (type, folio, date, RUTs, total).',
        {
          param: 'body',
        },
      );

    // IdRespuesta, CodEnvio and the SetRecibos number: unique per receptor, at most 10 digits; the
    // answer's second serves (a second answer in the same second would repeat them, which the SII's
    // certification only reads as two uploads).
    const n = Math.floor(now.getTime() / 1000);
    const glosa = (p: DocumentProblem) => p.message.slice(0, 256);
    const common = { rutResponde: rutTenant, rutRecibe: rutEmisor, signer, now };
    const recepcion = buildRespuestaEnvio({
      ...common,
      idRespuesta: n,
      codEnvio: n,
      nombreEnvio: (opts.nombreEnvio ?? `${parts.setId ?? 'EnvioDTE'}.xml`).slice(0, 80),
      envioDteId: (parts.setId ?? 'SetDTE').slice(0, 80),
      digest: parts.digest,
      caratula: { rutEmisor, rutReceptor: v.caratula?.rutReceptor ?? null },
      estadoEnvio: 0,
      documentos: named.map(({ documento, problem }) => ({
        ...documento,
        estado: problem?.estado ?? 0,
        glosa: problem ? glosa(problem) : undefined,
      })),
      recibidoEn: now,
    });
    const received = named.filter((x) => !x.problem).map((x) => x.documento);
    const recibos = received.length > 0 ? buildEnvioRecibosOf({ ...common, idEnvio: n + 1, recinto, documentos: received }) : undefined;
    const resultado = buildResultadosDte({
      ...common,
      idRespuesta: n + 2,
      resultados: named.map(({ documento, problem }) => ({
        documento,
        codEnvio: n,
        estado: problem ? 2 : 0,
        glosa: problem ? `DTE Rechazado: ${glosa(problem)}`.slice(0, 256) : undefined,
      })),
    });
    const entries = [
      { name: '1_RecepcionDTE.xml', data: recepcion.xml },
      ...(recibos ? [{ name: '2_EnvioRecibos.xml', data: recibos.xml }] : []),
      { name: '3_ResultadoDTE.xml', data: resultado.xml },
    ];
    return { zip: buildZip(entries, now), filename: `intercambio-${n}.zip`, files: entries.map((e) => e.name) };
  };
}
