/**
 * Tenant credentials: the billing-provider API key, the signing certificates (.pfx), the
 * activation links of the hosted page, and the `certificate.expiring` announcements. Other modules
 * get signing material and provider credentials through `CredentialsService`; the hosted page goes
 * through `ActivationService`. Both write through one `CredentialWriter` (docs/credentials.md,
 * docs/secrets.md).
 */
export { createCredentialsService } from './credentials.service.ts';
export type { CredentialsService, CredentialStatus } from './credentials.service.ts';
export { createCredentialWriter } from './credential-writer.ts';
export type { CredentialWriter } from './credential-writer.ts';
export type { CertificateEntry } from './certificates.service.ts';
export type { SigningMaterial } from './signing-material.ts';
export { createSignerCache } from './signer-cache.ts';
export type { SignerCache, TenantSigner } from './signer-cache.ts';
export { createActivationService, LinkUnusableError } from './activation.service.ts';
export type { ActivationService, LinkView, LinkState } from './activation.service.ts';
export type { StagedCertificate } from './activation.store.ts';
export { createPfxInspector } from './pfx/isolated.ts';
export type { PfxInspector } from './pfx/isolated.ts';
export { credentialsEncryptedColumns } from './credentials.encrypted.ts';
export { credentialsPeriodics } from './credentials.jobs.ts';
export { default as credentialsRoutes } from './credentials.routes.ts';
