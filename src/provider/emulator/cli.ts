import { parseArgs } from 'node:util';
import { loadConfig, parseDuration } from '../../config.ts';
import { parseRateLimits, type RateLimits } from '../simpleapi/protocol.ts';
import { startStandaloneEmulator } from './standalone.ts';

/**
 * `npx dte emulator --port P [--host H] [--data-dir D] [--delay 2s] [--slow 3s] [--rate-limits R]
 * [--folios-delay 0] [--caf-layout indented|sii] [--tls] [--json]`: the SimpleAPI + SII emulator as its own
 * server (docs/emulator.md). Runs until SIGINT/SIGTERM. Defaults come from the same settings as the
 * service (EMULATOR_DATA_DIR, EMULATOR_DELAY, EMULATOR_SLOW, EMULATOR_SCHEMA_DIR,
 * SIMPLEAPI_RATE_LIMITS — production unless set); flags win.
 */
export const EMULATOR_USAGE =
  '  emulator --port P [--host H] [--data-dir D] [--delay 2s] [--slow 3s] [--rate-limits production|off|<rules>]\n' +
  '           [--folios-delay 0] [--caf-layout indented|sii] [--tls] [--json]\n' +
  '                                                       run the SimpleAPI + SII emulator as a server (docs/emulator.md)';

export async function runEmulatorCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      delay: { type: 'string' },
      slow: { type: 'string' },
      'rate-limits': { type: 'string' },
      'folios-delay': { type: 'string' },
      'caf-layout': { type: 'string' },
      tls: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const config = loadConfig();
  const port = values.port === undefined ? 4010 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, got '${values.port}'`);
    return 2;
  }
  const duration = (flag: string, v: string | undefined, def: number) => {
    if (v === undefined) return def;
    const d = parseDuration(v);
    if (d === undefined) throw new Error(`--${flag} expects a duration like 2s or 1500 (ms), got '${v}'`);
    return d;
  };
  let rateLimits: RateLimits | null = config.simpleapi.rateLimits;
  if (values['rate-limits'] !== undefined) {
    try {
      rateLimits = parseRateLimits(values['rate-limits']);
    } catch (e) {
      console.error(`--rate-limits: ${(e as Error).message}; expected production, off, or e.g. api=3/1s,40/1m;servicios=1/1s,5/1m,100/1h`);
      return 2;
    }
  }
  const cafLayout = values['caf-layout'] ?? 'indented';
  if (cafLayout !== 'indented' && cafLayout !== 'sii') {
    console.error(`--caf-layout must be indented or sii, got '${cafLayout}'`);
    return 2;
  }
  const emu = await startStandaloneEmulator({
    port,
    host: values.host ?? '127.0.0.1',
    dataDir: values['data-dir'] ?? config.emulator.dataDir,
    processingDelayMs: duration('delay', values.delay, config.emulator.processingDelayMs),
    slowMs: duration('slow', values.slow, config.emulator.slowMs),
    schemaDir: config.emulator.schemaDir,
    rateLimits,
    serviciosDelayMs: duration('folios-delay', values['folios-delay'], 0),
    cafLayout,
    tls: values.tls,
  });
  const info = {
    url: emu.url,
    port: emu.port,
    siiPublicKey: emu.siiKey.publicKeyPath,
    siiPublicKeyUrl: `${emu.url}/emulator/sii-public-key.pem`,
    statsUrl: `${emu.url}/emulator/stats`,
    rateLimits,
    tlsCertificate: emu.tlsCertPath ?? null,
  };
  if (values.json) console.log(JSON.stringify(info));
  else {
    console.log(`SimpleAPI + SII emulator listening on ${emu.url}`);
    console.log(`CAFs are signed with its SII key (IDK 666): ${info.siiPublicKey ?? info.siiPublicKeyUrl}`);
    console.log(
      rateLimits
        ? `Rate limits per key: ${(['api', 'servicios'] as const).map((h) => `${h} ${rateLimits[h].map((r) => `${r.limit}/${r.label}`).join(', ') || 'none'}`).join('; ')}`
        : 'Rate limits: off',
    );
    console.log(`Calls answered: ${info.statsUrl}`);
    if (emu.tlsCertPath) {
      console.log(`HTTPS with a self-signed certificate; trust it with NODE_EXTRA_CA_CERTS=${emu.tlsCertPath}`);
      console.log("The SII's CAF forms ask for the caller's certificate (mTLS) at /cgi_AUT2000/CAutInicio.cgi");
    }
    console.log('Point the service at it with:');
    console.log(
      `  PROVIDER=simpleapi SIMPLEAPI_BASE_URL=${emu.url} SIMPLEAPI_SERVICIOS_URL=${emu.url} SII_BASE_URL=${emu.url}${info.siiPublicKey ? ` EMULATOR_SII_PUBLIC_KEY=${info.siiPublicKey}` : ''}${emu.tlsCertPath ? ` NODE_EXTRA_CA_CERTS=${emu.tlsCertPath}` : ''}`,
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await emu.close();
  return 0;
}
