/**
 * All settings, parsed once at boot from the environment into a frozen typed object
 * (docs/design.md §10). An invalid value stops the process with a message naming the variable.
 * Nothing else in src/ reads process.env.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EMULATOR_IDK, parseRateLimits, SII_CAF_IDK, type RateLimits } from './provider/index.ts';

export type Provider = 'emulator' | 'simpleapi';
export type Role = 'all' | 'api' | 'worker';

export interface Config {
  readonly env: 'development' | 'production' | 'test';
  readonly role: Role;
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly appUrl: string;
  readonly databaseUrl: string | undefined;
  /** PostgreSQL: named prepared statements (DATABASE_PREPARED_STATEMENTS, default true; README "Configuration", docs/performance.md). */
  readonly databasePreparedStatements: boolean;
  readonly dataDir: string;
  readonly keysDir: string;
  /** Key-encryption keys for the main store, `id:base64` comma-separated, first = current. */
  readonly dataEncryptionKeys: string | undefined;
  /** The separate secrets store: its own database and its own key-encryption keys. */
  readonly secretsDatabaseUrl: string | undefined;
  /** PostgreSQL schema of the secrets store (used when it shares a server with the main store). */
  readonly secretsDatabaseSchema: string | undefined;
  readonly secretsEncryptionKeys: string | undefined;
  readonly provider: Provider;
  readonly simpleapi: {
    readonly apiBaseUrl: string;
    readonly serviciosBaseUrl: string;
    readonly timeoutMs: number;
    readonly retries: number;
    /**
     * The provider's rate limits per key (SIMPLEAPI_RATE_LIMITS: `production`, `off` or rules such as
     * `api=3/1s,40/1m;servicios=1/1s,5/1m,100/1h`). The adapter paces its calls to them; the
     * emulator enforces them. null = off.
     */
    readonly rateLimits: RateLimits | null;
    /** Longest a call waits for its pacing slot before a job is rescheduled or the API answers 503. */
    readonly maxPaceWaitMs: number;
  };
  readonly emulator: {
    readonly dataDir: string | undefined;
    readonly processingDelayMs: number;
    /** Extra latency of the emulator's `slow` sandbox API keys. */
    readonly slowMs: number;
    /** Folder with the SII XSDs the emulator validates uploads with (default: bundled). */
    readonly schemaDir: string | undefined;
    /** PEM of a standalone emulator's SII key, trusted for CAFs when PROVIDER=simpleapi. */
    readonly siiPublicKeyFile: string | undefined;
  };
  /**
   * SII_CAF_KEYS: extra keys a CAF's FRMA may verify with, beside the SII's own 100 and 300 (always
   * trusted) and the emulator's (src/provider/setup/index.ts). Each file is read and checked here, so a
   * missing or unreadable one stops the start. `publicKeyPem` is SPKI PEM.
   */
  readonly siiCafKeys: readonly { readonly idk: number; readonly file: string; readonly publicKeyPem: string }[];
  /** The SII's own services, for direct tenants (provider `sii`; docs/credentials.md "A provider per tenant"). */
  readonly sii: {
    /**
     * SII_BASE_URL: one origin that replaces every SII host (certification and production, SOAP,
     * upload, boleta REST, claims, CAF forms), as the standalone emulator and the tests serve them;
     * unset: the SII's own hosts for the tenant's `ambiente` (src/provider/sii/context.ts).
     */
    readonly baseUrl: string | undefined;
  };
  readonly webhooks: {
    readonly allowPrivateNetworks: boolean;
    readonly retryScheduleMs: readonly number[];
    readonly timeoutMs: number;
    readonly retentionDays: number;
    /** An endpoint whose deliveries have all failed for this long is disabled. */
    readonly disableAfterMs: number;
    /** Attempts in flight per worker process, and per endpoint within it. */
    readonly concurrency: number;
    readonly endpointConcurrency: number;
  };
  /** Outbound exchange e-mail (docs/exchange.md). */
  readonly smtp: {
    /** SMTP_URL (smtp:// or smtps://, credentials inside); unset: the local mailbox. Never logged (describeSmtp). */
    readonly url: string | undefined;
    /** SMTP_FROM: the From of every delivery. */
    readonly from: string;
    /** EXCHANGE_RETRY_SCHEDULE: delay before each attempt of a delivery; its length is the number of attempts. */
    readonly retryScheduleMs: readonly number[];
  };
  /** AUDIT_RETENTION_DAYS: audit events older than this are deleted (docs/audit.md). */
  readonly auditRetentionDays: number;
  readonly activationLinkTtlMs: number;
  readonly folioRequestWaitMs: number;
  /** A folio reserved by a DTE create that never finished (process died) is voided after this. */
  readonly folioReservationTimeoutMs: number;
  /** How long POST …/dte/send waits for the upload to get a trackId before answering 202. */
  readonly dteSendWaitMs: number;
  /** First status question after an upload (DTE_POLL_INITIAL); each later one waits twice as long, up to 5 min. */
  readonly dtePollInitialMs: number;
  readonly rateLimit: { readonly perSecond: number; readonly burst: number };
  readonly accountRateLimit: { readonly perSecond: number; readonly burst: number };
  readonly authFailureRateLimit: { readonly perSecond: number; readonly burst: number };
  /** Per-IP limit of the hosted pages (activation page, later the dashboard). */
  readonly pageRateLimit: { readonly perSecond: number; readonly burst: number };
  readonly signupEnabled: boolean;
  /** Dashboard sessions and login throttling (src/web/dashboard). */
  readonly dashboard: {
    readonly sessionIdleMs: number;
    readonly sessionMaxMs: number;
    /** Per client IP, shared by the login and sign-up forms' POSTs (separate buckets). */
    readonly loginRateLimit: { readonly perSecond: number; readonly burst: number };
  };
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly bodyLimitBytes: number;
  readonly certificateLimitBytes: number;
  /** Prometheus /metrics (docs/operations.md): served when enabled; with a token, only to `Bearer <token>`. */
  readonly metrics: { readonly enabled: boolean; readonly token: string | undefined };
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid setting ${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const str = (env: Env, name: string, def?: string): string | undefined => {
  const v = env[name];
  return v === undefined || v === '' ? def : v;
};

const int = (env: Env, name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
  const v = str(env, name);
  if (v === undefined) return def;
  if (!/^\d+$/.test(v)) throw new ConfigError(name, `expected a whole number, got '${v}'`);
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
};

const bool = (env: Env, name: string, def: boolean): boolean => {
  const v = str(env, name);
  if (v === undefined) return def;
  if (/^(true|1|yes)$/i.test(v)) return true;
  if (/^(false|0|no)$/i.test(v)) return false;
  throw new ConfigError(name, `expected true or false, got '${v}'`);
};

const oneOf = <T extends string>(env: Env, name: string, values: readonly T[], def: T): T => {
  const v = str(env, name, def) as T;
  if (!values.includes(v)) throw new ConfigError(name, `expected one of ${values.join(', ')}, got '${v}'`);
  return v;
};

const url = (env: Env, name: string, def: string): string => {
  const v = str(env, name, def)!;
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigError(name, `expected an http(s) URL, got '${v}'`);
  }
  return v.replace(/\/+$/, '');
};

/** An http(s) URL checked like `url`, or undefined when the variable is unset or empty. */
const optionalUrl = (env: Env, name: string): string | undefined => (str(env, name) === undefined ? undefined : url(env, name, ''));

/** Durations: plain milliseconds, or a number with s/m/h/d (`7d`, `30s`). */
export const parseDuration = (v: string): number | undefined => {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 'ms'] ?? 1;
  return n * unit;
};

const duration = (env: Env, name: string, def: number): number => {
  const v = str(env, name);
  if (v === undefined) return def;
  const d = parseDuration(v);
  if (d === undefined) throw new ConfigError(name, `expected a duration like 7d, 30s or 1500 (ms), got '${v}'`);
  return d;
};

const schedule = (env: Env, name: string, def: number[]): number[] => {
  const v = str(env, name);
  if (v === undefined) return def;
  const parts = v.split(',').map((p) => parseDuration(p));
  if (parts.length < 1 || parts.some((p) => p === undefined))
    throw new ConfigError(name, `expected a comma-separated list of durations like 0,30s,5m,30m,2h, got '${v}'`);
  return parts as number[];
};

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = str(env, 'HOST', '127.0.0.1')!;
  const baseUrl = url(env, 'BASE_URL', `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`);
  const dataDir = path.resolve(str(env, 'DATA_DIR', './data')!);
  const databaseUrl = str(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new ConfigError('DATABASE_URL', 'expected a postgres:// or postgresql:// connection string');
  const secretsDatabaseUrl = str(env, 'SECRETS_DATABASE_URL');
  if (secretsDatabaseUrl && !/^postgres(ql)?:\/\//.test(secretsDatabaseUrl))
    throw new ConfigError('SECRETS_DATABASE_URL', 'expected a postgres:// or postgresql:// connection string');
  const config: Config = {
    env: nodeEnv,
    role: oneOf(env, 'ROLE', ['all', 'api', 'worker'] as const, 'all'),
    port,
    host,
    baseUrl,
    appUrl: url(env, 'APP_URL', baseUrl),
    databaseUrl,
    databasePreparedStatements: bool(env, 'DATABASE_PREPARED_STATEMENTS', true),
    dataDir,
    keysDir: path.resolve(str(env, 'KEYS_DIR', './keys')!),
    dataEncryptionKeys: str(env, 'DATA_ENCRYPTION_KEY'),
    secretsDatabaseUrl,
    secretsDatabaseSchema: schemaName(env, 'SECRETS_DATABASE_SCHEMA'),
    secretsEncryptionKeys: str(env, 'SECRETS_ENCRYPTION_KEY'),
    provider: oneOf(env, 'PROVIDER', ['emulator', 'simpleapi'] as const, 'emulator'),
    simpleapi: {
      apiBaseUrl: url(env, 'SIMPLEAPI_BASE_URL', 'https://api.simpleapi.cl'),
      serviciosBaseUrl: url(env, 'SIMPLEAPI_SERVICIOS_URL', str(env, 'SIMPLEAPI_BASE_URL') ?? 'https://servicios.simpleapi.cl'),
      timeoutMs: duration(env, 'SIMPLEAPI_TIMEOUT', 120_000),
      retries: int(env, 'SIMPLEAPI_RETRIES', 3, 0, 10),
      rateLimits: rateLimits(env, 'SIMPLEAPI_RATE_LIMITS'),
      maxPaceWaitMs: duration(env, 'SIMPLEAPI_MAX_PACE_WAIT', 15_000),
    },
    emulator: {
      dataDir: str(env, 'EMULATOR_DATA_DIR'),
      processingDelayMs: duration(env, 'EMULATOR_DELAY', 2_000),
      slowMs: duration(env, 'EMULATOR_SLOW', 3_000),
      schemaDir: str(env, 'EMULATOR_SCHEMA_DIR'),
      siiPublicKeyFile: str(env, 'EMULATOR_SII_PUBLIC_KEY'),
    },
    siiCafKeys: siiCafKeys(env, 'SII_CAF_KEYS'),
    sii: { baseUrl: optionalUrl(env, 'SII_BASE_URL') },
    webhooks: {
      allowPrivateNetworks: bool(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
      retryScheduleMs: schedule(env, 'WEBHOOK_RETRY_SCHEDULE', [0, 30_000, 300_000, 1_800_000, 7_200_000]),
      timeoutMs: duration(env, 'WEBHOOK_TIMEOUT_MS', 30_000),
      retentionDays: int(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
      disableAfterMs: duration(env, 'WEBHOOK_DISABLE_AFTER', 5 * 86_400_000),
      concurrency: int(env, 'WEBHOOK_CONCURRENCY', 64, 1, 1000),
      endpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 100),
    },
    smtp: {
      url: smtpUrl(env, 'SMTP_URL'),
      from: mailbox(env, 'SMTP_FROM', 'DTE <dte@localhost>'),
      retryScheduleMs: schedule(env, 'EXCHANGE_RETRY_SCHEDULE', [0, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000]),
    },
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36500),
    activationLinkTtlMs: duration(env, 'ACTIVATION_LINK_TTL', 7 * 86_400_000),
    folioRequestWaitMs: duration(env, 'FOLIO_REQUEST_WAIT', 25_000),
    folioReservationTimeoutMs: duration(env, 'FOLIO_RESERVATION_TIMEOUT', 10 * 60_000),
    dteSendWaitMs: duration(env, 'DTE_SEND_WAIT', 5_000),
    dtePollInitialMs: duration(env, 'DTE_POLL_INITIAL', 3_000),
    rateLimit: {
      perSecond: int(env, 'RATE_LIMIT_PER_SECOND', 100, 1),
      burst: int(env, 'RATE_LIMIT_BURST', 200, 1),
    },
    // All the keys of one account together: more keys must not mean more capacity.
    accountRateLimit: {
      perSecond: int(env, 'ACCOUNT_RATE_LIMIT_PER_SECOND', 300, 1),
      burst: int(env, 'ACCOUNT_RATE_LIMIT_BURST', 600, 1),
    },
    // Requests whose API key is missing, malformed, unknown or revoked, per client address.
    authFailureRateLimit: {
      perSecond: int(env, 'AUTH_FAILURE_RATE_LIMIT_PER_SECOND', 2, 1),
      burst: int(env, 'AUTH_FAILURE_RATE_LIMIT_BURST', 60, 1),
    },
    pageRateLimit: {
      perSecond: int(env, 'PAGE_RATE_LIMIT_PER_SECOND', 1, 1),
      burst: int(env, 'PAGE_RATE_LIMIT_BURST', 30, 1),
    },
    signupEnabled: bool(env, 'SIGNUP_ENABLED', true),
    dashboard: {
      sessionIdleMs: duration(env, 'DASHBOARD_SESSION_IDLE', 30 * 60_000),
      sessionMaxMs: duration(env, 'DASHBOARD_SESSION_MAX', 12 * 3_600_000),
      // LOGIN_RATE_LIMIT_BURST attempts, refilled evenly over LOGIN_RATE_LIMIT_WINDOW.
      loginRateLimit: (() => {
        const burst = int(env, 'LOGIN_RATE_LIMIT_BURST', 10, 1, 10_000);
        const windowMs = duration(env, 'LOGIN_RATE_LIMIT_WINDOW', 15 * 60_000);
        if (windowMs < 1000) throw new ConfigError('LOGIN_RATE_LIMIT_WINDOW', 'must be at least 1s');
        return { perSecond: burst / (windowMs / 1000), burst };
      })(),
    },
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    certificateLimitBytes: int(env, 'CERTIFICATE_LIMIT_BYTES', 256 * 1024, 1024),
    metrics: metricsSettings(env, nodeEnv),
  };
  // The emulator's CAFs carry its IDK: another key under that number would make them unverifiable.
  // The built-in emulator is always in use: it serves test mode whatever PROVIDER says (docs/design.md "Test mode").
  if (config.siiCafKeys.some((k) => k.idk === EMULATOR_IDK)) {
    const why =
      config.provider === 'emulator' ? 'PROVIDER=emulator' : config.emulator.siiPublicKeyFile ? 'EMULATOR_SII_PUBLIC_KEY' : 'test mode';
    throw new ConfigError('SII_CAF_KEYS', `IDK ${EMULATOR_IDK} is the emulator's key (${why}); give your key another IDK`);
  }
  if (config.databaseUrl && !config.dataEncryptionKeys)
    throw new ConfigError('DATA_ENCRYPTION_KEY', 'required when DATABASE_URL is set (the embedded default creates its own)');
  if (config.databaseUrl && !config.secretsEncryptionKeys)
    throw new ConfigError('SECRETS_ENCRYPTION_KEY', 'required when DATABASE_URL is set (the embedded default creates its own)');
  if (config.secretsDatabaseUrl && !config.secretsEncryptionKeys)
    throw new ConfigError('SECRETS_ENCRYPTION_KEY', 'required when SECRETS_DATABASE_URL is set');
  return deepFreeze(config);
}

/**
 * METRICS_ENABLED defaults to on, except in production mode where it is on only once a
 * METRICS_TOKEN is set: a public deployment does not publish its tenants' ids and volumes by default.
 */
const metricsSettings = (env: Env, nodeEnv: Config['env']): Config['metrics'] => {
  const token = str(env, 'METRICS_TOKEN');
  if (token !== undefined && !/^[\x21-\x7e]{16,200}$/.test(token))
    throw new ConfigError('METRICS_TOKEN', 'expected 16 to 200 printable characters without spaces (e.g. openssl rand -hex 32)');
  return { enabled: bool(env, 'METRICS_ENABLED', nodeEnv !== 'production' || token !== undefined), token };
};

/**
 * `IDK:path,IDK:path` — each file a public key (PEM) or an X.509 certificate (PEM or DER, like the
 * SII's own 100.cer). The SII's 100 and 300 are always trusted and cannot be replaced; an IDK
 * appears once; a file holding a private key is refused (only the public half is needed).
 */
const siiCafKeys = (env: Env, name: string): Config['siiCafKeys'] => {
  const v = str(env, name);
  if (v === undefined) return [];
  const out: { idk: number; file: string; publicKeyPem: string }[] = [];
  for (const entry of v.split(',').map((e) => e.trim())) {
    const m = /^(\d{1,9}):(.+)$/.exec(entry);
    if (!m)
      throw new ConfigError(name, `expected IDK:path.pem entries separated by commas (e.g. 777:/etc/dte/caf-777.pem), got '${entry}'`);
    const idk = Number(m[1]);
    const file = path.resolve(m[2]!.trim());
    if (idk === SII_CAF_IDK.certificacion || idk === SII_CAF_IDK.produccion)
      throw new ConfigError(name, `IDK ${idk} is the SII's own key, always trusted; it cannot be replaced`);
    if (out.some((k) => k.idk === idk)) throw new ConfigError(name, `IDK ${idk} appears more than once`);
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch (e) {
      throw new ConfigError(name, `cannot read the key file of IDK ${idk} at ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    out.push({ idk, file, publicKeyPem: publicKeyPemOf(bytes, name, idk, file) });
  }
  return out;
};

const publicKeyPemOf = (bytes: Buffer, name: string, idk: number, file: string): string => {
  if (/PRIVATE KEY-----/.test(bytes.toString('latin1')))
    throw new ConfigError(name, `the file of IDK ${idk} at ${file} holds a private key; give the public key (PEM) or a certificate`);
  let key: crypto.KeyObject;
  try {
    key = /-----BEGIN /.test(bytes.toString('latin1')) ? crypto.createPublicKey(bytes) : new crypto.X509Certificate(bytes).publicKey;
  } catch {
    throw new ConfigError(name, `the file of IDK ${idk} at ${file} is neither a PEM public key nor an X.509 certificate`);
  }
  if (key.asymmetricKeyType !== 'rsa')
    throw new ConfigError(name, `the key of IDK ${idk} at ${file} is not an RSA key (CAFs are signed with RSA)`);
  return key.export({ type: 'spki', format: 'pem' }).toString();
};

const rateLimits = (env: Env, name: string): RateLimits | null => {
  try {
    return parseRateLimits(str(env, name));
  } catch (e) {
    throw new ConfigError(name, `${(e as Error).message}; expected production, off, or e.g. api=3/1s,40/1m;servicios=1/1s,5/1m,100/1h`);
  }
};

/** smtp:// or smtps:// with a host. The value is never echoed: it may hold the password. */
const smtpUrl = (env: Env, name: string): string | undefined => {
  const v = str(env, name);
  if (v === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(name, 'expected smtp://user:password@host:port or smtps://…, got something that is not a URL');
  }
  if ((u.protocol !== 'smtp:' && u.protocol !== 'smtps:') || !u.hostname)
    throw new ConfigError(name, `expected smtp://user:password@host:port or smtps://…, got a ${u.protocol} URL`);
  return v;
};

/** An address, optionally with a display name: `dte@example.cl` or `Facturación <dte@example.cl>`. */
const mailbox = (env: Env, name: string, def: string): string => {
  const v = str(env, name, def)!.trim();
  if (!/^(?:[^<>@\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(v))
    throw new ConfigError(name, `expected an address like dte@example.cl or "Name <dte@example.cl>", got '${v}'`);
  return v;
};

/** The SMTP setting as it may be shown: scheme, host and port, the user name masked, never the password. */
export function describeSmtp(url: string | undefined): string {
  if (!url) return 'local mailbox (no SMTP_URL; the dashboard shows the messages)';
  const u = new URL(url);
  return `${u.protocol}//${u.username ? '***@' : ''}${u.hostname}${u.port ? `:${u.port}` : ''}`;
}

const schemaName = (env: Env, name: string): string | undefined => {
  const v = str(env, name);
  if (v !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(v))
    throw new ConfigError(name, `expected a lower-case SQL identifier like dte_secrets, got '${v}'`);
  return v;
};

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
