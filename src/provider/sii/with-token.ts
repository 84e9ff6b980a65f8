import type { Ambiente } from '../port.ts';
import type { SiiCallContext, SiiCredentials, SiiTokenKind } from './context.ts';

/**
 * A call made with a token of `kind`, made again once with a fresh token when the SII refuses the
 * first (expired, or forgotten by the SII: docs/sources.md §1.5, Odoo drops the token and retries
 * on 401). `call` answers undefined for a refused token; after a second refusal the caller gets
 * undefined and words the failure itself.
 */
export async function withToken<T>(
  ctx: SiiCallContext,
  kind: SiiTokenKind,
  creds: SiiCredentials,
  ambiente: Ambiente,
  call: (token: string) => Promise<T | undefined>,
): Promise<T | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const token = await ctx.tokens.get(kind, creds, ambiente);
    const out = await call(token);
    if (out !== undefined) return out;
    ctx.tokens.invalidate(kind, creds, ambiente, token);
  }
  return undefined;
}
