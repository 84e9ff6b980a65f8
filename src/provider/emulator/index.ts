/**
 * The emulator's surface outside src/provider (docs/emulator.md): its command line, the API-key
 * verifier a test app may use instead of a provider, the SII schemas it bundles (the received
 * module validates with them), and its export-document rules (the engine's tests compare them).
 * The provider itself is built by src/provider/setup/index.ts.
 */
export { EMULATOR_USAGE, runEmulatorCommand } from './cli.ts';
export type { ApiKeyVerifier } from './verify-api-key.ts';
export { schemaValidatorFrom } from './schemas.ts';
export { exportFormFindings } from './rules/export-form.ts';
