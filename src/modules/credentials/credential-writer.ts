import type { Db, Sql } from '../../db/types.ts';
import { errors } from '../../errors.ts';
import { emitEvent } from '../../events/outbox.ts';
import type { Clock } from '../../lib/clock.ts';
import { ProviderError, providerErrorToAppError, type Provider } from '../../provider/index.ts';
import type { SecretStore } from '../../secrets/secret-store.ts';
import type { TenantsService } from '../tenants/index.ts';
import { checkCertificate, type Declared } from './certificate-checks.ts';
import { credentialsStore } from './credentials.store.ts';
import { PfxError, type PfxInspection } from './pfx/inspect.ts';
import type { PfxInspector } from './pfx/isolated.ts';

/**
 * The one way credentials are written, by the API (api-key.service.ts, certificates.service.ts)
 * and by the hosted page (activation.service.ts).
 *
 * Two databases are involved (main + secrets store, docs/secrets.md "Housekeeping"), so every
 * write follows one order, kept by `write`:
 * 1. verify and decrypt outside any transaction (`verifyApiKey`, `inspectCertificate`);
 * 2. write each new secret under a fresh ref (secrets are immutable: a change never overwrites);
 * 3. commit the main-database change that points to it, with the tenant summary and the event
 *    (`applyChange`, called by the change inside its transaction);
 * 4. then delete the secrets it replaced.
 * A failure before commit deletes the fresh secrets; a crash leaves at worst an unreferenced
 * secret, which the hourly sweep (sweep.ts) removes. Never the reverse: no committed row ever
 * points to a secret that is not there yet.
 */
export interface NewSecret {
  ref: string;
  /** The owner string the value is bound to (credentials.encrypted.ts). */
  aad: string;
  value: string;
}

/** What a change hands back from its transaction: its result, and the refs it stopped pointing to. */
export interface Committed<T> {
  result: T;
  replaced?: (string | null | undefined)[];
}

export interface CredentialWriterDeps {
  db: Db;
  clock: Clock;
  secretStore: SecretStore;
  verifier: Pick<Provider, 'verifyApiKey'>;
  pfxInspector: PfxInspector;
  tenants: Pick<TenantsService, 'refreshStatus' | 'settled'>;
  log?: { warn: (obj: object, msg: string) => void } | undefined;
}

export function createCredentialWriter(deps: CredentialWriterDeps) {
  const { db, clock, secretStore } = deps;

  /** Best effort: a secret that cannot be deleted now is unreferenced, and the sweep will. */
  const discard = async (refs: (string | undefined | null)[]) => {
    for (const ref of refs)
      if (ref)
        await secretStore
          .delete(ref)
          .catch((e: unknown) => deps.log?.warn({ err: e }, 'could not delete a replaced secret; the sweep will'));
  };

  return {
    discard,

    /** Asks the provider; its refusal becomes an AppError and nothing is saved. Never inside a transaction. */
    async verifyApiKey(apiKey: string, livemode: boolean): Promise<Date> {
      try {
        await deps.verifier.verifyApiKey(apiKey, { livemode });
      } catch (e) {
        // A rejected or expired key is the caller's to fix; an unreachable or slow provider is retryable.
        throw e instanceof ProviderError ? providerErrorToAppError(e) : e;
      }
      return clock.now();
    },

    /** Reads an untrusted .pfx in a worker thread and applies the clock-dependent checks. */
    async inspectCertificate(file: Buffer, password: string, declared?: Declared) {
      let info: PfxInspection;
      try {
        info = await deps.pfxInspector.inspect(file, password);
      } catch (e) {
        if (e instanceof PfxError)
          throw errors.unprocessable(e.code, e.message, { param: e.code === 'certificate_password_invalid' ? 'password' : 'file' });
        throw e;
      }
      return { info, ...checkCertificate(info, clock.now(), declared) };
    },

    /**
     * After any change to a tenant's credentials, inside its transaction: the summary kept on the
     * tenant row, the tenant's status, and `tenant.credentials.updated` when the change leaves
     * complete what the tenant's provider needs — the status says so (tenants.store.ts
     * refreshStatus): both credentials through SimpleAPI, the certificate alone for a direct
     * tenant (`sii`), whose event then reports whether a key happens to be stored too.
     */
    async applyChange(tx: Sql, accountId: string, tenantId: string, now: Date) {
      const s = await credentialsStore.writeSummary(tx, accountId, tenantId, now);
      const st = await deps.tenants.refreshStatus(tx, accountId, tenantId);
      if (s && st?.status === 'active')
        await emitEvent(tx, {
          accountId,
          type: 'tenant.credentials.updated',
          data: { tenantId, apiKey: { configured: s.api_key_verified_at !== null }, certificate: { configured: s.certificate_configured } },
          now,
        });
    },

    /**
     * Steps 2–4 above: stores `fresh`, runs `change` in one main-database transaction (which locks
     * what it needs: the tenant row first), then deletes what the change replaced.
     */
    async write<T>(fresh: NewSecret[], change: (tx: Sql) => Promise<Committed<T>>): Promise<T> {
      const written: string[] = [];
      let committed: Committed<T>;
      try {
        for (const s of fresh) {
          await secretStore.put(s.ref, s.value, s.aad);
          written.push(s.ref);
        }
        committed = await db.transaction(change);
      } catch (e) {
        await discard(written);
        throw e;
      }
      // The change rewrote the tenant's credential summary and status: every process must see it
      // before the caller hears of it (src/modules/tenants/tenants.cache.ts).
      await deps.tenants.settled();
      await discard(committed.replaced ?? []);
      return committed.result;
    },
  };
}

export type CredentialWriter = ReturnType<typeof createCredentialWriter>;
