import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/types.ts';
import type { SiiKeys } from '../../dte/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { createInProcessEmulator } from '../emulator/inprocess.ts';
import { schemaValidatorFrom } from '../emulator/schemas.ts';
import { EMULATOR_IDK, loadOrCreateSiiKey } from '../emulator/sii-key.ts';
import type { Provider } from '../port.ts';
import { createRoutedProvider } from '../routed.ts';
import { createDbPacer } from '../simpleapi/pacing.ts';
import { createSimpleApiProvider } from '../simpleapi/simpleapi.ts';
import type { ProviderCallObserver } from '../simpleapi/client.ts';
import { cafTrust } from '../sii-keys.ts';
import { createSiiProvider } from '../sii/sii-provider.ts';
import type { SiiCallObserver } from '../sii/context.ts';

/**
 * The provider the service calls (routed.ts): each call goes the way its tenant's `provider` says,
 * through the billing-provider adapter config.provider chooses (docs/design.md §1), or straight to
 * the SII through the SII adapter (src/provider/sii/, docs/sii-direct.md): at the SII's hosts, or
 * at SII_BASE_URL, or — with PROVIDER=emulator — at the in-process emulator's SII face, so nothing
 * leaves the machine. Also chooses the set of keys CAFs must be signed with (the SII's, the emulator's when in use, and SII_CAF_KEYS). The emulator keeps its SII key in EMULATOR_DATA_DIR (default
 * DATA_DIR/emulator) and its records in emu_* tables of the service's own database, so in-process
 * it survives restarts and is shared by every process of one PostgreSQL. Calls are paced to the
 * provider's rate limits per key (simpleapi/pacing.ts); the emulator enforces the same limits.
 */
export interface ProviderSetup {
  provider: Provider & { close?: () => Promise<void> };
  /** The keys a live tenant's CAFs must verify with. */
  cafKeys: SiiKeys;
  /**
   * The keys a test tenant's CAFs must verify with (docs/design.md "Test mode"): the in-process
   * emulator's key is trusted here only. With PROVIDER=simpleapi it is never in `cafKeys`, so a
   * live tenant cannot be handed an emulator-signed CAF.
   */
  testCafKeys: SiiKeys;
}

/**
 * The adapter's own extras (close, the emulator's key and stats) stay reachable on the result; the
 * port's calls are the routed ones.
 */
const routed = <P extends Provider>(simpleapi: P, sii: Provider | undefined, test: Provider | 'here'): P => ({
  ...simpleapi,
  ...createRoutedProvider({ simpleapi, sii, test }),
});

export function createProvider(
  config: Config,
  deps: { db: Db; clock: Clock; observer?: ProviderCallObserver; siiObserver?: SiiCallObserver },
): ProviderSetup {
  const limits = config.simpleapi.rateLimits;
  const pacer = limits ? createDbPacer(deps.db, limits, { maxWaitMs: config.simpleapi.maxPaceWaitMs }) : undefined;
  // SII_CAF_KEYS, read and checked by config.ts (never the SII's 100/300, never the emulator's IDK).
  const operatorKeys = config.siiCafKeys.map((k) => ({ idk: k.idk, publicKey: k.publicKeyPem }));
  // The built-in emulator: the provider itself with PROVIDER=emulator, and test mode's path always
  // (docs/design.md "Test mode"), so test tenants work whatever the installation's provider.
  const siiKey = loadOrCreateSiiKey(config.emulator.dataDir ?? path.join(config.dataDir, 'emulator'));
  const emulator = createInProcessEmulator({
    db: deps.db,
    clock: deps.clock,
    siiKey,
    processingDelayMs: config.emulator.processingDelayMs,
    slowMs: config.emulator.slowMs,
    schemaValidator: schemaValidatorFrom(config.emulator.schemaDir),
    timeoutMs: config.simpleapi.timeoutMs,
    rateLimits: limits,
    pacer,
    observer: deps.observer,
    siiObserver: deps.siiObserver,
  });
  const testPath = createRoutedProvider({ simpleapi: emulator, sii: emulator.siiProvider, test: 'here' });
  const testCafKeys = cafTrust([{ idk: siiKey.idk, publicKey: siiKey.publicKey }, ...operatorKeys]);
  if (config.provider === 'simpleapi') {
    const emulatorKey = config.emulator.siiPublicKeyFile
      ? [{ idk: EMULATOR_IDK, publicKey: fs.readFileSync(config.emulator.siiPublicKeyFile, 'utf8') }]
      : [];
    const live = routed(
      createSimpleApiProvider({
        apiBaseUrl: config.simpleapi.apiBaseUrl,
        serviciosBaseUrl: config.simpleapi.serviciosBaseUrl,
        timeoutMs: config.simpleapi.timeoutMs,
        retries: config.simpleapi.retries,
        pacer,
        observer: deps.observer,
      }),
      createSiiProvider({ baseUrl: config.sii.baseUrl, timeoutMs: config.simpleapi.timeoutMs, observer: deps.siiObserver }),
      testPath,
    );
    return {
      provider: { ...live, close: () => emulator.close() },
      // Never the in-process emulator's key: only a standalone emulator's, when the operator names it.
      cafKeys: cafTrust([...emulatorKey, ...operatorKeys]),
      testCafKeys,
    };
  }
  return { provider: routed(emulator, emulator.siiProvider, 'here'), cafKeys: testCafKeys, testCafKeys };
}
