import type { Db, Sql } from '../../db/types.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, randomToken, sha256Hex, UUID_RE } from '../../lib/tokens.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import type { AccountsService } from '../accounts/index.ts';
import { needsApiKey, type TenantProvider, type TenantRow, type TenantsService } from '../tenants/index.ts';
import { activationStore, type ActivationLinkRow, type StagedCertificate } from './activation.store.ts';
import { notifyIfCertificateRowExpiring } from './certificate-expiring.ts';
import { toCertificateEntry } from './certificates.service.ts';
import type { Committed, CredentialWriter, NewSecret } from './credential-writer.ts';
import { apiKeyAad, pfxAad, pfxPasswordAad, secretRefs } from './credentials.encrypted.ts';
import { credentialsStore, type CertificateRow } from './credentials.store.ts';

/**
 * Activation links (docs/credentials.md "Activation links and the hosted page"): `act_` tokens
 * stored as SHA-256, one pending link per tenant, single use. The hosted page's progress (step 1
 * the verified API key, step 2 the certificate waiting for confirmation) is kept on the link, and
 * completion moves it to the tenant in one transaction — the only place a link becomes
 * `completed`, behind a row lock, so of any number of concurrent completions exactly one wins.
 *
 * Secrets are written through the credential writer (credential-writer.ts), in the same order as
 * the API's: fresh ref, commit, then delete what was replaced.
 *
 * Lock order everywhere: tenant row, then link row (the credentials services lock the tenant too).
 */
export type LinkState = 'unknown' | 'pending' | 'expired' | 'invalidated' | 'completed';

export interface LinkView {
  state: 'pending';
  linkId: string;
  tenantId: string;
  expiresAt: Date;
  tenant: { razonSocial: string; rutEmpresa: string };
  /**
   * The tenant's provider, read at each view: a direct tenant (`sii`) has no API-key step, so its
   * page asks for the certificate, then the confirmation (docs/credentials.md).
   */
  provider: TenantProvider;
  /** Whether the page has an API-key step (the provider needs the key). */
  needsApiKey: boolean;
  /**
   * The name of the account (the SaaS company) asking for the credentials: the page names it so a
   * person can tell a real request from a look-alike (docs/credentials.md, hosted page).
   */
  issuer: string;
  apiKeyVerifiedAt: Date | null;
  certificate: StagedCertificate | null;
}

const TOKEN_RE = /^act_[A-Za-z0-9_-]{43}$/;

export class LinkUnusableError extends AppError {
  readonly state: Exclude<LinkState, 'pending'>;
  /** Who sent the link (the account's name), so the page can say whom to ask; unknown tokens have none. */
  readonly issuer: string | undefined;
  constructor(state: Exclude<LinkState, 'pending'>, issuer?: string) {
    super(
      state === 'unknown' ? 'not_found' : 'gone',
      state === 'unknown' ? 'activation_link_not_found' : `activation_link_${state}`,
      state === 'unknown'
        ? 'This activation link does not exist.'
        : `This activation link can no longer be used (${state}). Ask for a new one.`,
    );
    this.state = state;
    this.issuer = issuer;
  }
}

export function createActivationService(deps: {
  db: Db;
  clock: Clock;
  appUrl: string;
  ttlMs: number;
  writer: CredentialWriter;
  tenants: Pick<TenantsService, 'findRow'>;
  accounts: Pick<AccountsService, 'nameOf'>;
  dataCipher: DataCipher;
  audit?: AuditRecorder | undefined;
}) {
  const { db, clock, writer, dataCipher } = deps;

  const stateOf = (l: ActivationLinkRow | undefined, now: Date): LinkState =>
    !l ? 'unknown' : l.status === 'pending' && l.expires_at.getTime() <= now.getTime() ? 'expired' : l.status;

  const find = async (sql: Sql, token: string, forUpdate = false) =>
    TOKEN_RE.test(token) ? activationStore.byTokenHash(sql, sha256Hex(token), { forUpdate }) : undefined;

  /** The name of the account that sent a link: the person to ask for a new one. */
  const issuerOf = async (link: ActivationLinkRow | undefined) => (link ? await deps.accounts.nameOf(link.account_id) : undefined);

  /** Whether the page asks for the API key: the tenant's provider needs it (read now: a PATCH applies at once). */
  const needsKey = async (link: ActivationLinkRow) => {
    const tenant = await deps.tenants.findRow(db, link.account_id, link.tenant_id);
    return !tenant || needsApiKey(tenant.provider);
  };

  /** The usable link, or LinkUnusableError (not_found when unknown, gone when expired/invalidated/completed). */
  const usable = async (token: string) => {
    const link = await find(db, token);
    const state = stateOf(link, clock.now());
    if (state !== 'pending' || !link) throw new LinkUnusableError(state === 'pending' ? 'unknown' : state, await issuerOf(link));
    return link;
  };

  /**
   * A credential write on a usable link (credential-writer.ts): `fresh` secrets first, then `fn` in
   * a transaction holding the tenant row, then the link row, with the link checked again under the
   * lock. A link lost to a concurrent completion or a newer link reads as unusable; whom to ask is
   * looked up after the transaction, since `accounts.nameOf` reads outside it (src/db/types.ts:
   * inside a transaction, only its `tx`).
   */
  const onLockedLink = async <T>(
    token: string,
    fresh: NewSecret[],
    fn: (tx: Sql, link: ActivationLinkRow, tenant: TenantRow) => Promise<Committed<T>>,
  ): Promise<T> => {
    const first = await usable(token);
    try {
      return await writer.write(fresh, async (tx) => {
        const tenant = await deps.tenants.findRow(tx, first.account_id, first.tenant_id, { forUpdate: true });
        const link = await find(tx, token, true);
        const state = stateOf(link, clock.now());
        if (state !== 'pending' || !link || !tenant) throw new LinkUnusableError(state === 'pending' ? 'unknown' : state);
        return fn(tx, link, tenant);
      });
    } catch (e) {
      if (e instanceof LinkUnusableError && e.state !== 'unknown' && e.issuer === undefined)
        throw new LinkUnusableError(e.state, await deps.accounts.nameOf(first.account_id));
      throw e;
    }
  };

  return {
    async createLink(accountId: string, tenantId: string, actor?: AuditActor) {
      if (!UUID_RE.test(tenantId)) throw errors.notFound('tenant', tenantId);
      const token = randomToken('act_');
      // The link it replaces is ended, and the secrets staged on it are deleted after commit.
      const expiresAt = await writer.write([], async (tx) => {
        const tenant = await deps.tenants.findRow(tx, accountId, tenantId, { forUpdate: true });
        if (!tenant) throw errors.notFound('tenant', tenantId);
        const now = clock.now();
        const released = await activationStore.endPending(tx, accountId, tenantId, now);
        const expiresAt = new Date(now.getTime() + deps.ttlMs);
        const linkId = newId();
        await activationStore.insert(tx, { id: linkId, accountId, tenantId, tokenHash: sha256Hex(token), expiresAt, now });
        // The link's id, never its token (whoever holds the token may upload credentials).
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: 'activation_link.created',
          target: { type: 'activation_link', id: linkId },
          details: { tenantId, expiresAt },
        });
        return { result: expiresAt, replaced: released };
      });
      return { token, url: `${deps.appUrl}/activate/${token}`, expiresAt: expiresAt.toISOString() };
    },

    /**
     * The state of the tenant's newest link, for the dashboard: `none` when no link was ever
     * generated. The token itself is never available again (only its hash is stored).
     */
    async linkStatus(
      accountId: string,
      tenantId: string,
    ): Promise<{ state: Exclude<LinkState, 'unknown'> | 'none'; expiresAt: string | null; createdAt: string | null }> {
      if (!UUID_RE.test(tenantId)) throw errors.notFound('tenant', tenantId);
      if (!(await deps.tenants.findRow(db, accountId, tenantId))) throw errors.notFound('tenant', tenantId);
      const link = await activationStore.latestForTenant(db, accountId, tenantId);
      if (!link) return { state: 'none', expiresAt: null, createdAt: null };
      return {
        state: stateOf(link, clock.now()) as Exclude<LinkState, 'unknown'>,
        expiresAt: link.expires_at.toISOString(),
        createdAt: link.created_at.toISOString(),
      };
    },

    /** What the hosted page shows for a token. */
    async view(token: string): Promise<LinkView | { state: Exclude<LinkState, 'pending'>; issuer?: string | undefined }> {
      const link = await find(db, token);
      const state = stateOf(link, clock.now());
      if (state !== 'pending' || !link) return { state: state as Exclude<LinkState, 'pending'>, issuer: await issuerOf(link) };
      const tenant = await deps.tenants.findRow(db, link.account_id, link.tenant_id);
      if (!tenant) return { state: 'unknown' };
      return {
        state: 'pending',
        linkId: link.id,
        tenantId: link.tenant_id,
        expiresAt: link.expires_at,
        tenant: { razonSocial: tenant.razon_social, rutEmpresa: tenant.rut_empresa },
        provider: tenant.provider,
        needsApiKey: needsApiKey(tenant.provider),
        issuer: (await issuerOf(link)) ?? '',
        apiKeyVerifiedAt: link.api_key_verified_at,
        certificate: link.staged_certificate,
      };
    },

    /** Step 1: verify the API key with the provider and keep it against the link. */
    async submitApiKey(token: string, apiKey: string) {
      const link = await usable(token);
      // A test tenant's key is checked by the built-in emulator (docs/design.md "Test mode").
      const livemode = (await deps.tenants.findRow(db, link.account_id, link.tenant_id))?.livemode ?? true;
      const verifiedAt = await writer.verifyApiKey(apiKey, livemode);
      const version = newId();
      const fresh = {
        ref: secretRefs.apiKey(link.tenant_id, version),
        aad: apiKeyAad(link.account_id, link.tenant_id, version),
        value: apiKey,
      };
      await onLockedLink(token, [fresh], async (tx, locked) => {
        await activationStore.stageApiKey(tx, locked.id, fresh.ref, verifiedAt, clock.now());
        return { result: undefined, replaced: [locked.api_key_ref] };
      });
    },

    /**
     * Step 2 (step 1 of a direct tenant's page): read and check the .pfx, keep it (encrypted) for
     * the customer to confirm. Through SimpleAPI the API key comes first.
     */
    async submitCertificate(token: string, file: Buffer, password: string): Promise<StagedCertificate> {
      const link = await usable(token);
      if (!link.api_key_ref && (await needsKey(link)))
        throw errors.conflict('activation_step_order', 'Enter and verify the billing-provider API key first (step 1).');
      const { info, rut, fechaVencimiento } = await writer.inspectCertificate(file, password);
      const id = newId();
      const staged: StagedCertificate = {
        id,
        holderName: info.holderName,
        rut,
        notBefore: info.notBefore,
        notAfter: info.notAfter,
        fechaVencimiento,
        subject: info.subject,
        issuer: info.issuer,
        serialNumber: info.serialNumber,
        fingerprint256: info.fingerprint256,
        certificateDer: Buffer.from(info.certificateDer).toString('base64'),
      };
      const fresh = {
        ref: secretRefs.pfxPassword(link.tenant_id, id),
        aad: pfxPasswordAad(link.account_id, link.tenant_id, id),
        value: password,
      };
      const pfxCiphertext = dataCipher.encrypt(file, pfxAad(link.account_id, link.tenant_id, id));
      await onLockedLink(token, [fresh], async (tx, locked) => {
        await activationStore.stageCertificate(tx, locked.id, staged, pfxCiphertext, fresh.ref, clock.now());
        return { result: undefined, replaced: [locked.staged_password_ref] };
      });
      return staged;
    },

    /**
     * Completion: moves the staged API key (when the tenant's provider needs one, or one was
     * staged anyway) and certificate to the tenant, marks the link completed and emits
     * tenant.credentials.updated — all in one transaction. The provider is read under the tenant's
     * lock, so a PATCH of it between the steps is honoured.
     */
    async complete(token: string, actor?: AuditActor) {
      return onLockedLink(token, [], async (tx, link, tenant) => {
        const cert = link.staged_certificate;
        const pfx = await activationStore.stagedPfx(tx, link.id);
        const keyNeeded = needsApiKey(tenant.provider);
        if ((keyNeeded && (!link.api_key_ref || !link.api_key_verified_at)) || !cert || !link.staged_password_ref || !pfx)
          throw errors.conflict(
            'activation_incomplete',
            keyNeeded
              ? 'Both steps must be done before confirming: the API key, then the certificate.'
              : 'Upload the certificate before confirming.',
          );
        const now = clock.now();
        if (new Date(cert.notAfter).getTime() <= now.getTime())
          throw errors.unprocessable('certificate_expired', `The certificate expired on ${cert.notAfter}. Upload a current certificate.`, {
            param: 'file',
          });
        if (!(await activationStore.complete(tx, link.id, now))) throw new LinkUnusableError('completed');
        const { account_id: accountId, tenant_id: tenantId } = link;
        const oldApiKeyRef =
          link.api_key_ref && link.api_key_verified_at
            ? await credentialsStore.upsertApiKey(tx, accountId, tenantId, link.api_key_ref, link.api_key_verified_at, now)
            : undefined;
        // The same certificate uploaded again replaces the stored copy.
        const same = await credentialsStore.findByFingerprint(tx, accountId, tenantId, cert.fingerprint256);
        const replacedCert = same ? await credentialsStore.deleteCertificate(tx, accountId, tenantId, same.id, now) : undefined;
        const row: CertificateRow = await credentialsStore.insertCertificate(
          tx,
          accountId,
          tenantId,
          {
            id: cert.id,
            rutCertificado: cert.rut,
            nombreTitular: cert.holderName.slice(0, 100),
            fechaVencimiento: cert.fechaVencimiento,
            subject: cert.subject,
            issuer: cert.issuer,
            serialNumber: cert.serialNumber,
            fingerprint256: cert.fingerprint256,
            notBefore: new Date(cert.notBefore),
            notAfter: new Date(cert.notAfter),
            certificateDer: Buffer.from(cert.certificateDer, 'base64'),
            pfxCiphertext: pfx, // bound to (account, tenant, cert.id) when staged: moved as is
            passwordRef: link.staged_password_ref,
          },
          true,
          now,
        );
        await writer.applyChange(tx, accountId, tenantId, now);
        await notifyIfCertificateRowExpiring(tx, row, now); // certificate.expiring, if already in the 30-day window
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: 'activation_link.completed',
          target: { type: 'activation_link', id: link.id },
          details: { tenantId, certificateId: row.id, withProviderKey: link.api_key_ref !== null },
        });
        return { result: { tenantId, certificate: toCertificateEntry(row) }, replaced: [oldApiKeyRef, replacedCert?.password_ref] };
      });
    },
  };
}

export type ActivationService = ReturnType<typeof createActivationService>;
