import type { Provider, Quota } from '../port.ts';
import { apiKeyBehaviour, assertKeyUsable } from './sandbox.ts';

/**
 * The emulator's API-key check on its own, without a database or a server: the sandbox rules of
 * sandbox.ts (docs/emulator.md) — shorter than 8 characters or `invalid` → refused; `expired` →
 * "Apikey vencida"; `unavailable` → provider down; `quota` → valid, but the plan has no calls
 * left; anything else → valid. The full emulator (inprocess.ts) answers `verifyApiKey` the same
 * way; this stays for callers and tests that only need the check.
 */
export type ApiKeyVerifier = Pick<Provider, 'name' | 'verifyApiKey'>;

export async function emulatorVerifyApiKey(apiKey: string): Promise<{ quota: Quota[] }> {
  const b = apiKeyBehaviour(apiKey);
  if (b.verdict !== 'quota') assertKeyUsable(b);
  const maximo = 1000;
  return { quota: [{ servicio: 'emulator', uso: b.verdict === 'quota' ? maximo : 0, maximo }] };
}

export const emulatorKeyVerifier: ApiKeyVerifier = { name: 'emulator', verifyApiKey: emulatorVerifyApiKey };
