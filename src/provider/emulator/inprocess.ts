import type { FastifyInstance } from 'fastify';
import type { Provider } from '../port.ts';
import type { Pacer } from '../simpleapi/pacing.ts';
import type { ProviderCallObserver } from '../simpleapi/client.ts';
import { createSimpleApiProvider } from '../simpleapi/simpleapi.ts';
import { createSiiProvider, type SiiProvider } from '../sii/sii-provider.ts';
import type { SiiCallObserver } from '../sii/context.ts';
import { createEmulatorCore, type EmulatorCoreOptions } from './emulator.ts';
import { buildEmulatorServer } from './server.ts';
import { startCafFormsListener } from './sii/caf-forms.ts';
import type { EmulatorSiiKey } from './sii-key.ts';
import type { EmulatorStats } from './stats.ts';

/**
 * The embedded emulator (`PROVIDER=emulator`, the default): the same SimpleAPI adapter the
 * service uses in production (with the same pacer), talking to the emulator's own HTTP routes
 * without a socket (Fastify's inject). Key checks, rate limits, multipart encoding, status codes
 * and error mapping are exercised exactly as against a remote SimpleAPI, so what works here works
 * over the network.
 */
export interface InProcessEmulator extends Provider {
  readonly siiKey: EmulatorSiiKey;
  /**
   * The direct SII adapter (src/provider/sii/) over this emulator's SII face, through the same
   * inject transport: what serves tenants that connect to the SII themselves when PROVIDER=emulator.
   */
  readonly siiProvider: SiiProvider;
  /** The SimpleAPI calls this emulator answered (stats.ts). */
  stats(): EmulatorStats;
  resetStats(): void;
  /**
   * The SII's CAF forms on a local HTTPS listener (127.0.0.1, a free port), started on first use:
   * their login reads the caller's certificate from the TLS handshake, which inject cannot carry.
   * Point the SII adapter's 'caf' and 'login' services at `origin` and trust `ca` (PEM).
   */
  cafForms(): Promise<{ origin: string; ca: string }>;
  close(): Promise<void>;
}

const BASE = 'http://emulator.invalid';

export function createInProcessEmulator(
  opts: EmulatorCoreOptions & {
    timeoutMs?: number;
    pacer?: Pacer | undefined;
    observer?: ProviderCallObserver | undefined;
    siiObserver?: SiiCallObserver | undefined;
  },
): InProcessEmulator {
  const core = createEmulatorCore(opts);
  let server: Promise<FastifyInstance> | undefined;
  const app = () => (server ??= buildEmulatorServer(core).then(async (a) => (await a.ready(), a)));
  let forms: ReturnType<typeof startCafFormsListener> | undefined;

  const viaInject: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const body = req.method === 'GET' ? undefined : Buffer.from(await req.arrayBuffer());
    const r = await (
      await app()
    ).inject({
      method: req.method as 'GET' | 'POST',
      url: url.pathname + url.search,
      headers: Object.fromEntries(req.headers),
      ...(body ? { payload: body } : {}),
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    return new Response(r.statusCode === 204 ? null : new Uint8Array(r.rawPayload), { status: r.statusCode, headers });
  };

  const adapter = createSimpleApiProvider({
    apiBaseUrl: BASE,
    serviciosBaseUrl: BASE,
    timeoutMs: opts.timeoutMs ?? 120_000,
    retries: 0,
    fetch: viaInject,
    pacer: opts.pacer,
    observer: opts.observer,
  });
  // Fastify's inject has no TLS: the CAF forms' certificate login goes to a local HTTPS listener.
  const cafForms = async () => {
    forms ??= startCafFormsListener(core);
    forms.catch(() => (forms = undefined));
    const { origin, ca } = await forms;
    return { origin, ca };
  };
  const siiProvider = createSiiProvider({
    baseUrl: BASE,
    fetch: viaInject,
    timeoutMs: opts.timeoutMs ?? 120_000,
    cafForms,
    observer: opts.siiObserver,
  });
  return {
    ...adapter,
    name: 'emulator',
    siiKey: core.siiKey,
    siiProvider,
    stats: () => core.stats(),
    resetStats: () => core.resetStats(),
    cafForms,
    async close() {
      if (server) await (await server).close();
      if (forms) await (await forms.catch(() => undefined))?.close();
    },
  };
}
