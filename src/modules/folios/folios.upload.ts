import type { Db, Sql } from '../../db/types.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import {
  isCafExpired,
  isDteEngineError,
  isSupportedTipoDte,
  parseCafBlock,
  parseCafFile,
  siiDate,
  SUPPORTED_TIPOS_DTE,
  type Caf,
  type SiiKeys,
} from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import { siiAmbienteOfIdk } from '../../provider/index.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import type { TenantRow } from '../tenants/index.ts';
import { cafKeysFor, cafProblem, type CafProblemCode } from './caf-checks.ts';
import { cafKeyAad } from './folios.encrypted.ts';
import { storeCafRange } from './folios.ranges.ts';
import { uploadStore, type StoredRangeRow } from './folios.upload.store.ts';

/**
 * A CAF uploaded as the file the SII's web hands out (docs/folios.md, "Uploading a CAF"). It needs
 * no provider and no credentials: the file carries everything. It is refused unless it would be
 * usable at once by this tenant, each reason with its own code: readable, with its private key,
 * signed by a trusted key (the check folio requests use, caf-checks.ts), this tenant's RUT, a
 * type the service issues, an SII key of the tenant's environment, not expired, and overlapping
 * none of the tenant's ranges of the type — except the very same CAF, which answers the range
 * already stored (an upload repeated is harmless). It is then stored exactly as a requested CAF
 * is: the CAF block in clear, RSASK encrypted and bound to its row.
 */
export const CAF_MAX_BYTES = 16 * 1024;

export interface UploadedCaf {
  tipoDte: number;
  desde: number;
  hasta: number;
  fechaAutorizacion: string;
  vencimiento: string | null;
  idk: number;
  ambiente: string | null;
  disponibles: number;
  createdAt: string;
}

/** `created`: stored now (201); otherwise the same CAF was already stored (200). */
export interface CafUploadOutcome {
  created: boolean;
  caf: UploadedCaf;
}

export interface CafUploadDeps {
  db: Db;
  clock: Clock;
  dataCipher: Pick<DataCipher, 'encrypt'>;
  /** Keys a CAF's FRMA must verify with (src/provider/sii-keys.ts). */
  cafKeys: SiiKeys;
  audit?: AuditRecorder | undefined;
  /** The same for test tenants (caf-checks.ts cafKeysFor). */
  testCafKeys?: SiiKeys | undefined;
}

const AS_DOWNLOADED = 'Upload the CAF file exactly as downloaded from the SII (an XML file whose root is <AUTORIZACION>).';

const UNREADABLE: Record<string, string> = {
  caf_not_xml: `The file is not XML. ${AS_DOWNLOADED}`,
  caf_not_autorizacion: `The file is XML but not a CAF. ${AS_DOWNLOADED}`,
};

/** The file as a Caf, or the 422 that says what is wrong with it. */
function readCaf(file: Buffer): Caf {
  if (file.length === 0) throw errors.unprocessable('caf_unreadable', `The file is empty. ${AS_DOWNLOADED}`, { param: 'file' });
  try {
    return parseCafFile(file);
  } catch (e) {
    if (isDteEngineError(e) && e.code === 'caf_private_key_missing')
      throw errors.unprocessable(
        'caf_private_key_missing',
        'The CAF file has no private key (RSASK), so no document could be stamped with it. Upload the whole file as downloaded ' +
          'from the SII: the CAF copied out of a document, or a file cut down to its <CAF> block, is not enough.',
        { param: 'file' },
      );
    const why = isDteEngineError(e) ? e.message : 'it could not be read';
    const message = (isDteEngineError(e) && UNREADABLE[e.code]) || `The CAF cannot be read: ${why}. ${AS_DOWNLOADED}`;
    throw new AppError('unprocessable', 'caf_unreadable', message, { param: 'file', cause: e });
  }
}

/** A problem of caf-checks.ts as the upload answers it: a code of its own and what to do. */
const PROBLEM: Record<CafProblemCode, { code: string; hint: string }> = {
  caf_rut_mismatch: {
    code: 'caf_rut_mismatch',
    hint: 'Upload a CAF granted to this tenant’s RUT, or upload this one to its company’s tenant.',
  },
  // Not reached: an upload asks for no particular type.
  caf_tipo_mismatch: { code: 'unsupported_tipo_dte', hint: '' },
  caf_unknown_idk: {
    code: 'caf_unknown_idk',
    hint:
      'The SII signs CAFs with its key 100 (certificación) or 300 (producción). To trust another key (a test SII of your own), ' +
      'set SII_CAF_KEYS=IDK:public-key.pem on the server.',
  },
  caf_signature_invalid: {
    code: 'caf_signature_invalid',
    hint: 'The file was altered after the SII signed it, or is not the SII’s: download it again from the SII.',
  },
  caf_key_mismatch: {
    code: 'caf_private_key_mismatch',
    hint: 'The private key (RSASK) in the file is not the one of this CAF: download the file again from the SII.',
  },
};

const view = (g: StoredRangeRow): UploadedCaf => ({
  tipoDte: g.tipo_dte,
  desde: g.desde,
  hasta: g.hasta,
  fechaAutorizacion: g.fecha_autorizacion,
  vencimiento: g.vencimiento,
  idk: g.idk,
  ambiente: g.ambiente,
  disponibles: g.hasta - g.next_folio + 1,
  createdAt: g.created_at.toISOString(),
});

/** The same CAF: same type and range, and the same FRMA (the SII's signature over that grant). */
const sameCaf = (g: StoredRangeRow, caf: Caf): boolean => {
  if (g.tipo_dte !== caf.tipoDte || g.desde !== caf.desde || g.hasta !== caf.hasta) return false;
  try {
    return parseCafBlock(g.caf_block).frma === caf.frma;
  } catch {
    return false;
  }
};

export function createCafUpload(deps: CafUploadDeps) {
  const { db, clock } = deps;

  /** Every rule but the overlap, which needs the stored ranges (in the transaction). */
  const check = (tenant: Pick<TenantRow, 'rut_empresa' | 'ambiente' | 'livemode'>, caf: Caf, today: string) => {
    const problem = cafProblem(caf, { rutEmpresa: tenant.rut_empresa }, cafKeysFor(deps, tenant));
    if (problem) {
      const p = PROBLEM[problem.code];
      throw errors.unprocessable(p.code, `${problem.message} ${p.hint}`, { param: 'file', details: problem.details });
    }
    if (!isSupportedTipoDte(caf.tipoDte))
      throw errors.unprocessable(
        'unsupported_tipo_dte',
        `The CAF is for document type ${caf.tipoDte}, which this service does not issue (it issues ${SUPPORTED_TIPOS_DTE.join(', ')}).`,
        { param: 'file', details: { tipoDte: caf.tipoDte } },
      );
    const cafAmbiente = siiAmbienteOfIdk(caf.idk);
    if (cafAmbiente !== null && cafAmbiente !== tenant.ambiente)
      throw errors.unprocessable(
        'caf_ambiente_mismatch',
        `The CAF was granted in the SII's ${cafAmbiente} environment (IDK ${caf.idk}) and the tenant issues in ${tenant.ambiente}. ` +
          `Upload a CAF from the SII's ${tenant.ambiente} site, or change the tenant's ambiente.`,
        { param: 'file', details: { idk: caf.idk, cafAmbiente, ambiente: tenant.ambiente } },
      );
    if (isCafExpired(caf, today))
      throw errors.unprocessable(
        'caf_expired',
        `The CAF expired on ${caf.vencimiento} (CAFs of type ${caf.tipoDte} can be used for 180 days after their authorization ` +
          `on ${caf.fechaAutorizacion}). Request new folios from the SII.`,
        { param: 'file', details: { fechaAutorizacion: caf.fechaAutorizacion, vencimiento: caf.vencimiento } },
      );
  };

  return {
    /**
     * Checks the file and stores it as a range of the tenant, or answers the range already stored
     * for the same CAF. `bindResult`, when given, runs in the storing transaction (the request's
     * Idempotency-Key, src/http/plugins/idempotency.ts).
     */
    async upload(
      tenant: Pick<TenantRow, 'account_id' | 'id' | 'rut_empresa' | 'ambiente' | 'livemode'>,
      file: Buffer,
      opts: { bindResult?: ((tx: Sql, id: string) => Promise<void>) | undefined } = {},
      actor?: AuditActor,
    ): Promise<CafUploadOutcome> {
      const { account_id: accountId, id: tenantId } = tenant;
      const caf = readCaf(file);
      const now = clock.now();
      check(tenant, caf, siiDate(now));
      const rangeId = newId();
      // Encrypted before the transaction opens: no CPU work while it holds a connection.
      const privateKeyEnc = deps.dataCipher.encrypt(caf.privateKeyPem!, cafKeyAad(accountId, tenantId, rangeId));
      const stored = await db.transaction(async (tx) => {
        const r = await storeCafRange(tx, {
          rangeId,
          accountId,
          tenantId,
          ambiente: tenant.ambiente,
          caf,
          privateKeyEnc,
          requestId: null,
          now,
        });
        if (!r.stored) {
          const same = r.overlaps.find((g) => sameCaf(g, caf));
          if (same) return { created: false, row: same };
          if (r.overlaps.length === 0)
            throw errors.conflict('caf_overlap', `The tenant already has a CAF of type ${caf.tipoDte} starting at folio ${caf.desde}.`, {
              param: 'file',
            });
          throw errors.conflict(
            'caf_overlap',
            `Folios ${caf.desde}–${caf.hasta} of type ${caf.tipoDte} overlap a CAF the tenant already has ` +
              `(${r.overlaps.map((g) => `${g.desde}–${g.hasta}`).join(', ')}): a folio can be issued only once. ` +
              'Upload the CAF the SII granted after it, which starts at a higher folio.',
            {
              param: 'file',
              details: {
                overlapping: r.overlaps.map((g) => ({ desde: g.desde, hasta: g.hasta, fechaAutorizacion: g.fecha_autorizacion })),
              },
            },
          );
        }
        await opts.bindResult?.(tx, rangeId);
        // The range, never the CAF's private key.
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: 'folio.caf_uploaded',
          target: { type: 'folio_range', id: rangeId },
          details: { tenantId, tipoDte: caf.tipoDte, desde: caf.desde, hasta: caf.hasta },
        });
        return { created: true, row: (await uploadStore.byId(tx, accountId, rangeId))! };
      });
      return { created: stored.created, caf: view(stored.row) };
    },

    /** A stored range as the upload answers it, by id within the account (the replay of an upload whose response was lost). */
    async byId(accountId: string, rangeId: string): Promise<UploadedCaf> {
      const row = UUID_RE.test(rangeId) ? await uploadStore.byId(db, accountId, rangeId) : undefined;
      if (!row) throw errors.notFound('folio_range', rangeId);
      return view(row);
    },
  };
}

export type CafUpload = ReturnType<typeof createCafUpload>;
