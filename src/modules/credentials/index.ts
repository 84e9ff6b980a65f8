/**
 * Tenant credentials: the billing-provider API key, the signing certificates (.pfx), and the
 * activation links of the hosted page. Other modules get signing material and provider
 * credentials through `CredentialsService`; the hosted page goes through `ActivationService`.
 */
export { createCredentialsService, toCertificateEntry, MAX_CERTIFICATES_PER_TENANT } from './credentials.service.ts';
export type { CredentialsService, CredentialStatus, CertificateEntry, SigningMaterial } from './credentials.service.ts';
export { createActivationService, LinkUnusableError } from './activation.service.ts';
export type { ActivationService, LinkView, LinkState } from './activation.service.ts';
export type { StagedCertificate } from './activation.store.ts';
export { createPfxInspector } from './pfx/isolated.ts';
export type { PfxInspector } from './pfx/isolated.ts';
export { credentialsEncryptedColumns } from './credentials.encrypted.ts';
export { default as credentialsRoutes } from './credentials.routes.ts';
