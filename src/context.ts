/**
 * The composition root: builds every service from its explicit dependencies. No service reads
 * globals; tests build their own context with fakes swapped in from outside.
 */
import type { Config } from './config.ts';
import { createBookSend } from './modules/certification/index.ts';
import { backgroundLog } from './lib/log-safe.ts';
import type { Db, Sql } from './db/types.ts';
import type { Clock } from './lib/clock.ts';
import { createAccountsService } from './modules/accounts/index.ts';
import { createMembersService } from './modules/members/index.ts';
import { createApiKeysService } from './modules/api-keys/index.ts';
import { createTenantLogos, createTenantsService } from './modules/tenants/index.ts';
import { createDashboardAuthService } from './modules/dashboard-auth/index.ts';
import { createSignupMailer } from './web/dashboard/auth/signup-mail.ts';
import { createInvitationMailer } from './web/dashboard/auth/invitation-mail.ts';
import { rateLimiterFor } from './lib/rate-limiter.ts';
import crypto from 'node:crypto';
import { createActivationService } from './modules/credentials/index.ts';
import { createCredentialsService, createCredentialWriter, createSignerCache } from './modules/credentials/index.ts';
import { createPfxInspector, type PfxInspector } from './modules/credentials/index.ts';
import { createProvider } from './provider/setup/index.ts';
import type { Provider } from './provider/index.ts';
import type { SiiKeys } from './dte/index.ts';
import { createLogoPreparer, type LogoPreparer } from './pdf/index.ts';
import { createFoliosService } from './modules/folios/index.ts';
import { createFolioAnnulment } from './modules/folios/index.ts';
import { createDteDeliveries, createDteMailComposer, createDteService, DTE_DELIVERY_SUBJECT } from './modules/dte/index.ts';
import { createSendService } from './modules/dte/index.ts';
import { credentialsEncryptedColumns } from './modules/credentials/index.ts';
import { webhooksEncryptedColumns } from './modules/webhooks/index.ts';
import { foliosEncryptedColumns } from './modules/folios/index.ts';
import { idempotencyEncryptedColumns } from './http/plugins/idempotency.ts';
import { createEnvelope } from './secrets/envelope.ts';
import type { Keyrings } from './secrets/keyring-files.ts';
import { createDbSecretStore, SECRETS_MIGRATIONS } from './secrets/secret-store.ts';
import { createWebhooksService } from './modules/webhooks/index.ts';
import {
  createReceivedDeliveries,
  createReceivedService,
  createRespuestaComposer,
  RECEIVED_DTE_SUBJECT,
  RECEIVED_ENVIO_SUBJECT,
} from './modules/received/index.ts';
import { schemaValidatorFrom, type ApiKeyVerifier } from './provider/emulator/index.ts';
import { createExchangeService, createMailboxTransport, createSmtpTransport } from './modules/exchange/index.ts';
import { folioStock } from './modules/folios/index.ts';
import { isDteEngineError, siiDate } from './dte/index.ts';
import { queueStats } from './jobs/queue.ts';
import { MAIN_MIGRATIONS } from './db/open.ts';
import { createMetrics } from './ops/metrics.ts';
import {
  createCertificationBooks,
  createCertificationExchange,
  createCertificationService,
  createCertificationSimulation,
} from './modules/certification/index.ts';
import { createReadiness } from './ops/readiness.ts';
import { createAuditService } from './modules/audit/index.ts';

export interface ContextDeps {
  config: Config;
  db: Db;
  clock: Clock;
  /** The separate secrets store's own database (src/secrets/open.ts). */
  secretsDb: Db;
  /** Key-encryption keys of the main store (`data`) and of the secrets store (src/secrets/keyring-files.ts). */
  keyrings: Keyrings;
  /**
   * Billing provider; default: the adapter config.provider names (src/provider/setup/index.ts). A fake
   * replaces just the calls it has (e.g. only `verifyApiKey`); the rest stay the configured adapter's.
   */
  provider?: ApiKeyVerifier | Partial<Provider>;
  /** Keys CAF signatures must verify with (default: the official SII keys, plus the emulator's when in use). */
  cafKeys?: SiiKeys;
  pfxInspector?: PfxInspector;
  /** Decodes uploaded logos in worker threads (src/pdf/logo-isolated.ts). */
  logoPreparer?: LogoPreparer;
}

export function createContext(deps: ContextDeps) {
  const { db, clock } = deps;
  // Operations (docs/operations.md): metrics read the queue and the folio stock at scrape time;
  // the webhook worker and the provider client are handed observers, never a global registry.
  const metrics = createMetrics({
    queueStats: () => queueStats(db),
    folioStock: () => folioStock(db, siiDate(clock.now())),
  });
  const readiness = createReadiness([
    { name: 'database', db, migrationsDir: MAIN_MIGRATIONS },
    { name: 'secrets_database', db: deps.secretsDb, migrationsDir: SECRETS_MIGRATIONS },
  ]);
  // Whether a scope is live (docs/design.md "Test mode"): a tenant, a webhook event and an audit event
  // take their mode from the scope they are made in. The accounts service is made below and asked
  // only at call time.
  const livemodeOf = async (scopeId: string, sql: Sql) => (await accounts.scopeOf(scopeId, sql))?.livemode ?? true;
  // The audit log (docs/audit.md): its recorder is handed to every service whose changes it keeps.
  const audit = createAuditService({ db, clock, livemodeOf });
  const apiKeys = createApiKeysService({ db, clock, audit: audit.recorder });
  // One SMTP transport for every outbound e-mail (exchange deliveries, sign-up confirmations, invitations).
  const smtpTransport = deps.config.smtp.url ? createSmtpTransport({ url: deps.config.smtp.url }) : undefined;
  // Members and invitations (docs/dashboard.md "Members and roles"); the account's name is read
  // through the accounts service, made just below (it creates each account's owner through this one).
  const members = createMembersService({
    db,
    clock,
    // Invitations per account share the login's limit (each may send an e-mail).
    settings: { invitationTtlMs: 7 * 24 * 3_600_000, publicUrl: deps.config.appUrl, inviteRateLimit: deps.config.dashboard.loginRateLimit },
    rateLimiter: rateLimiterFor(db),
    accountName: (accountId) => accounts.nameOf(accountId),
    audit: audit.recorder,
    mailer: smtpTransport
      ? createInvitationMailer({ transport: smtpTransport, from: deps.config.smtp.from, log: backgroundLog })
      : undefined,
  });
  const accounts = createAccountsService({ db, clock, apiKeys, members });
  const tenants = createTenantsService({ db, clock, audit: audit.recorder, livemodeOf });
  const tenantLogos = createTenantLogos({ db, clock, preparer: deps.logoPreparer ?? createLogoPreparer(), audit: audit.recorder });
  const dashboardAuth = createDashboardAuthService({
    db,
    clock,
    accounts,
    members,
    rateLimiter: rateLimiterFor(db),
    settings: {
      idleMs: deps.config.dashboard.sessionIdleMs,
      absoluteMs: deps.config.dashboard.sessionMaxMs,
      anonymousMs: Math.min(deps.config.dashboard.sessionMaxMs, 2 * 3_600_000),
      signupEnabled: deps.config.signupEnabled,
      loginRateLimit: deps.config.dashboard.loginRateLimit,
      confirmationTtlMs: 24 * 3_600_000,
      publicUrl: deps.config.appUrl,
    },
    // With SMTP, sign-up confirms the address by e-mail and never says whether it has an account
    // (docs/dashboard.md "Sign-up"); without it, the embedded default signs up at once.
    mailer: smtpTransport ? createSignupMailer({ transport: smtpTransport, from: deps.config.smtp.from, log: backgroundLog }) : undefined,
  });
  // Secrets: the main store's envelope (the .pfx, CAF keys) and the separate secrets store.
  const dataCipher = createEnvelope(deps.keyrings.data.keyring);
  const secretsEnvelope = createEnvelope(deps.keyrings.secrets.keyring);
  const secretStore = createDbSecretStore({ db: deps.secretsDb, envelope: secretsEnvelope, clock });
  const providerSetup = createProvider(deps.config, { db, clock, observer: metrics.provider, siiObserver: metrics.sii });
  const provider: Provider = deps.provider ? ({ ...providerSetup.provider, ...deps.provider } as Provider) : providerSetup.provider;
  const cafKeys = deps.cafKeys ?? providerSetup.cafKeys;
  // Test tenants' CAFs may be the built-in emulator's (docs/design.md "Test mode"); a test context's
  // own keys (deps.cafKeys) stand for both modes.
  const testCafKeys = deps.cafKeys ?? providerSetup.testCafKeys;
  // One writer keeps the two-database write order for the API and the hosted page alike.
  const credentialWriter = createCredentialWriter({
    db,
    clock,
    secretStore,
    verifier: provider,
    pfxInspector: deps.pfxInspector ?? createPfxInspector(),
    tenants,
    log: backgroundLog,
  });
  const credentials = createCredentialsService({
    db,
    clock,
    secretStore,
    dataCipher,
    writer: credentialWriter,
    tenants,
    audit: audit.recorder,
  });
  const activation = createActivationService({
    db,
    clock,
    appUrl: deps.config.appUrl,
    ttlMs: deps.config.activationLinkTtlMs,
    writer: credentialWriter,
    dataCipher,
    tenants,
    accounts,
    audit: audit.recorder,
  });
  const webhooks = createWebhooksService({
    db,
    clock,
    cipher: dataCipher,
    settings: deps.config.webhooks,
    audit: audit.recorder,
    livemodeOf,
  });
  // Issuing: folios, DTE create/read, send and status (src/modules/folios, src/modules/dte).
  const signers = createSignerCache({ source: credentials, db });
  const folios = createFoliosService({
    db,
    clock,
    provider,
    credentials,
    dataCipher,
    cafKeys,
    testCafKeys,
    getTenant: tenants.getRow,
    requestWaitMs: deps.config.folioRequestWaitMs,
    audit: audit.recorder,
    reservationTimeoutMs: deps.config.folioReservationTimeoutMs,
  });
  const folioAnnulment = createFolioAnnulment({
    db,
    clock,
    provider,
    credentials,
    log: backgroundLog,
    audit: audit.recorder,
  });
  const dte = createDteService({ db, clock, folios, signers, tenantLogo: tenantLogos.png });
  // Outbound mail (docs/exchange.md): the generic outbox of e-mails. What goes, and the messages,
  // are the dte and received modules' (their deliveries and composers, registered below).
  const exchange = createExchangeService({
    db,
    clock,
    transport: smtpTransport ?? createMailboxTransport({ db, clock }),
    from: deps.config.smtp.from,
    retryScheduleMs: deps.config.smtp.retryScheduleMs,
    log: backgroundLog,
  });
  // Accepted documents to their receptors: the dte module's rules, through the outbox.
  const dteDeliveries = createDteDeliveries({ db, outbox: exchange, documents: dte });
  // The tenant's signed answers to its suppliers: the received module's rules, through the outbox;
  // its reads bound lazily because the received module is handed these deliveries in turn.
  const receivedDeliveries = createReceivedDeliveries({ outbox: exchange, received: () => received });
  const dteSend = createSendService({
    db,
    clock,
    provider,
    signers,
    credentials,
    getTenant: tenants.getRow,
    sendWaitMs: deps.config.dteSendWaitMs,
    pollInitialMs: deps.config.dtePollInitialMs,
    onAccepted: dteDeliveries.onAccepted,
    audit: audit.recorder,
  });
  // Received documents: verified with the same SII keys as the CAFs we are given, and the SII's
  // schemas beside the engine (the published XSDs, src/dte/schemas).
  // Answers to them are registered at the SII through the provider with the tenant's credentials.
  const schemaValidator = schemaValidatorFrom();
  const received = createReceivedService({
    db,
    clock,
    signers,
    cafKeys,
    testCafKeys,
    schemaValidator,
    provider,
    credentials,
    getTenant: tenants.getRow,
    // Its answers are e-mailed to the supplier through the exchange module's outbox.
    respuestas: receivedDeliveries,
    log: backgroundLog,
  });
  exchange.registerSubject(DTE_DELIVERY_SUBJECT, {
    compose: createDteMailComposer({ clock, getTenant: tenants.getRow, signers, documents: dte }),
    // The engine's errors (an expired certificate…) are recorded with their code, and retried.
    explainError: (e) => (isDteEngineError(e) ? { code: e.code, message: e.message } : undefined),
  });
  const respuestaComposer = createRespuestaComposer({ getTenant: tenants.getRow, received });
  exchange.registerSubject(RECEIVED_ENVIO_SUBJECT, { compose: respuestaComposer });
  exchange.registerSubject(RECEIVED_DTE_SUBJECT, { compose: respuestaComposer });
  // Certification (docs/certification.md): the SII's test sets, read and kept per tenant.
  const certification = createCertificationService({ db, clock, dte, folios, dteSend });
  // Its books: the purchase book from the set, the sales and guía books from the documents made for its cases.
  // Sent to the SII through the tenant's provider where its path takes books (the direct SII path).
  // Their review is followed by a job (certificationJobHandlers), as the documents' verdicts are.
  const certificationBookSends = createBookSend({
    db,
    clock,
    provider,
    credentials,
    getTenant: tenants.getRow,
    pollInitialMs: deps.config.dtePollInitialMs,
  });
  const certificationBooks = createCertificationBooks({ db, clock, signers, dtes: dte, sends: certificationBookSends });
  // Its exchange step: the SII's EnvioDTE checked as a received one is, answered with three signed files.
  const certificationExchange = createCertificationExchange({ clock, signers, cafKeys, testCafKeys, schemaValidator });
  // Its simulation: the company's own documents, made and sent as any document.
  const certificationSimulation = createCertificationSimulation({ db, clock, dte, folios, dteSend });
  return {
    ...deps,
    provider,
    cafKeys,
    testCafKeys,
    metrics,
    readiness,
    secrets: { dataCipher, secretsEnvelope, store: secretStore },
    // Keys of the hosted pages, derived from server key material so every process agrees.
    pageKeys: { csrf: Buffer.from(crypto.hkdfSync('sha256', deps.keyrings.data.keyring.current.key, 'dte-pages', 'csrf-v1', 32)) },
    /** Every encrypted column of the main database, for key rotation (src/secrets/rotation.ts). */
    encryptedColumns: [
      ...credentialsEncryptedColumns,
      ...webhooksEncryptedColumns,
      ...foliosEncryptedColumns,
      ...idempotencyEncryptedColumns,
    ],
    services: {
      audit,
      apiKeys,
      accounts,
      members,
      tenants,
      tenantLogos,
      dashboardAuth,
      credentials,
      activation,
      webhooks,
      folios,
      folioAnnulment,
      dte,
      dteSend,
      dteDeliveries,
      received,
      receivedDeliveries,
      exchange,
      certification,
      certificationBooks,
      certificationBookSends,
      certificationExchange,
      certificationSimulation,
    },
  };
}

export type AppContext = ReturnType<typeof createContext>;
