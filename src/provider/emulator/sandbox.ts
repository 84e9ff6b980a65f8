import { ProviderError } from '../port.ts';

/**
 * Sandbox behaviours of the emulator, like a payment processor's test cards (docs/emulator.md).
 * They are triggered by ordinary inputs, so they work the same in-process and over HTTP:
 *
 * API keys (case-insensitive substrings; checked on every call, server.ts answers them):
 *   shorter than 8 characters or containing `invalid`  → refused: 401, empty on the DTE host,
 *                                                        `{"Mensaje":"API KEY Incorrecta…"}` on servicios
 *   `expired`                                          → 401 `{"error":"Apikey vencida…"}`
 *   `quota`                                            → a valid key whose plan has no calls left:
 *                                                        401 `{"Mensaje":"Límite de la suscripción alcanzado"}`
 *                                                        (the subscription status still answers, uso = maximo)
 *   `unavailable`                                      → the provider is down (503)
 *   `slow`                                             → every answer takes `slowMs` longer
 *
 * Documents (the receptor's razón social, case-insensitive substrings):
 *   `RECHAZO`  → the SII rejects the document (SBX-3-001)
 *   `REPARO`   → accepted with reparos (SBX-2-001)
 *   `LENTO`    → the envelope takes ten times the processing delay to reach its final state
 *
 * Certificates (the SII face): a holder named `SIN PERMISO` → QueryEstUp answers 106 (DOCUMENT_TRIGGERS_SII).
 */
export type KeyVerdict = 'ok' | 'invalid' | 'expired' | 'quota' | 'unavailable';

export interface KeyBehaviour {
  verdict: KeyVerdict;
  slow: boolean;
}

export function apiKeyBehaviour(apiKey: string): KeyBehaviour {
  const k = apiKey.toLowerCase();
  const slow = k.includes('slow');
  if (apiKey.trim().length < 8 || k.includes('invalid')) return { verdict: 'invalid', slow };
  if (k.includes('expired')) return { verdict: 'expired', slow };
  if (k.includes('unavailable')) return { verdict: 'unavailable', slow };
  if (k.includes('quota')) return { verdict: 'quota', slow };
  return { verdict: 'ok', slow };
}

/** For the stand-alone key check (verify-api-key.ts): the provider error this key means. */
export function assertKeyUsable(b: KeyBehaviour): void {
  switch (b.verdict) {
    case 'invalid':
      throw new ProviderError('invalid_api_key', 'The billing provider refused the API key.', 401);
    case 'expired':
      throw new ProviderError('expired_api_key', 'The billing-provider API key has expired (Apikey vencida).', 401);
    case 'unavailable':
      throw new ProviderError('unavailable', 'The billing provider is unavailable (sandbox key).', 503);
    case 'quota':
      throw new ProviderError('quota_exhausted', 'The billing-provider plan has no calls left.', 429);
    case 'ok':
      return;
  }
}

export const DOCUMENT_TRIGGERS = {
  reject: /RECHAZO/i,
  objection: /REPARO/i,
  slow: /LENTO/i,
};

/**
 * The SII face (sii/): a certificate whose holder's name (subject CN) contains `SIN PERMISO` has no
 * "Enviar documentos" permission for any company: its uploads are received (STATUS 0) and the
 * status query answers the SII's 106 (docs/sources.md §1.2: the 106 shows in the query, not the upload).
 */
export const DOCUMENT_TRIGGERS_SII = {
  noPermission: /SIN PERMISO/i,
};

export const SANDBOX_CODES = {
  reject: { codigo: 'SBX-3-001', descripcion: 'Rechazo de prueba', detalle: 'sandbox: razón social del receptor contiene RECHAZO' },
  objection: { codigo: 'SBX-2-001', descripcion: 'Reparo de prueba', detalle: 'sandbox: razón social del receptor contiene REPARO' },
};
