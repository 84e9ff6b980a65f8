import { siiHosts, type SiiCallContext, type SiiTokens } from '../../sii/context.ts';
import { createSiiTokens, type SiiTokensOptions } from '../../sii/tokens.ts';
import { callEmulator, type Harness } from '../http.test-support.ts';
import type { SiiEmulator } from './sii.test-support.ts';

/**
 * For adapter-against-emulator tests of the SII face (sii.test-support.ts starts the emulator on a
 * real port): the SimpleAPI harness of the same emulator (to get CAFs and send envelopes through
 * the other face), and call contexts whose tokens come from the emulator's own seed → token
 * exchange (tokens.ts), on the emulator's clock, with their HTTP attempts counted.
 */
export const harnessOf = (emu: SiiEmulator): Harness => ({
  core: emu.core,
  app: emu.app,
  call: (m, u, o) => callEmulator(emu.app, m, u, o),
  close: () => emu.close(),
});

export type CountingContext = SiiCallContext & { fetchCalls: () => number };

export function contextFor(emu: SiiEmulator, tokens?: SiiTokens, over: Partial<SiiTokensOptions> = {}): CountingContext {
  let calls = 0;
  const counted: typeof fetch = (input, init) => {
    calls += 1;
    return fetch(input, init);
  };
  const hosts = siiHosts(emu.baseUrl);
  const t = tokens ?? createSiiTokens({ http: { hosts, fetch, timeoutMs: 20_000 }, now: () => emu.clock.now().getTime(), ...over });
  return { hosts, fetch: counted, timeoutMs: 20_000, tokens: t, sleep: async () => {}, fetchCalls: () => calls };
}
