import { expect, it } from 'vitest';
import { ConfigError, describeSmtp, loadConfig, parseDuration } from './config.ts';

it('parses defaults into a frozen object', () => {
  const c = loadConfig({});
  expect(c.port).toBe(3000);
  expect(c.provider).toBe('emulator');
  expect(c.activationLinkTtlMs).toBe(7 * 86_400_000);
  expect(c.databasePreparedStatements).toBe(true);
  expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements).toBe(false);
  expect(c.webhooks.retryScheduleMs).toEqual([0, 30_000, 300_000, 1_800_000, 7_200_000]);
  expect(Object.isFrozen(c)).toBe(true);
  expect(Object.isFrozen(c.webhooks.retryScheduleMs)).toBe(true);
});

it.each([
  [{ PORT: 'abc' }, /PORT/],
  [{ PORT: '70000' }, /PORT/],
  [{ PROVIDER: 'other' }, /PROVIDER: expected one of emulator, simpleapi/],
  [{ BASE_URL: 'ftp://x' }, /BASE_URL/],
  [{ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'maybe' }, /WEBHOOK_ALLOW_PRIVATE_NETWORKS/],
  [{ WEBHOOK_RETRY_SCHEDULE: '0,soon' }, /WEBHOOK_RETRY_SCHEDULE/],
  [{ ACTIVATION_LINK_TTL: 'forever' }, /ACTIVATION_LINK_TTL/],
  [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
  [{ DATABASE_PREPARED_STATEMENTS: 'sometimes' }, /DATABASE_PREPARED_STATEMENTS/],
  [{ DATABASE_URL: 'postgres://x/db' }, /DATA_ENCRYPTION_KEY: required when DATABASE_URL is set/],
  [{ SMTP_URL: 'http://mail.example.cl' }, /SMTP_URL: expected smtp:/],
  [{ SMTP_FROM: 'not an address' }, /SMTP_FROM/],
  [{ EXCHANGE_RETRY_SCHEDULE: '0,later' }, /EXCHANGE_RETRY_SCHEDULE/],
])('stops on an invalid setting and names it: %j', (env, message) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
  expect(() => loadConfig(env)).toThrow(message);
});

it('reads durations', () => {
  expect(parseDuration('7d')).toBe(604_800_000);
  expect(parseDuration('1500')).toBe(1500);
  expect(parseDuration('30s')).toBe(30_000);
  expect(parseDuration('x')).toBeUndefined();
});

it('a bad setting stops the process with the message', async () => {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('node_modules/.bin/node', ['src/main.ts'], { env: { ...process.env, PORT: 'nope' }, encoding: 'utf8' });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('Invalid setting PORT');
});

it('reads the outbound e-mail settings and never repeats the SMTP password', () => {
  expect(loadConfig({}).smtp).toEqual({
    url: undefined,
    from: 'DTE <dte@localhost>',
    retryScheduleMs: [0, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000],
  });
  const url = 'smtps://relay:S3cret-pass@smtp.example.cl:465';
  const c = loadConfig({ SMTP_URL: url, SMTP_FROM: 'Facturación <dte@example.cl>', EXCHANGE_RETRY_SCHEDULE: '0,30s' });
  expect(c.smtp).toEqual({ url, from: 'Facturación <dte@example.cl>', retryScheduleMs: [0, 30_000] });
  expect(describeSmtp(url)).toBe('smtps://***@smtp.example.cl:465');
  expect(describeSmtp(undefined)).toMatch(/^local mailbox/);
  // A malformed value may hold the password: the message never echoes it.
  expect(() => loadConfig({ SMTP_URL: 'smtp//relay:S3cret-pass@host' })).toThrow(/^(?!.*S3cret)/s);
  expect(() => loadConfig({ SMTP_URL: 'ftp://relay:S3cret-pass@host' })).toThrow(/^(?!.*S3cret)/s);
});

it('metrics: on by default, off by default in production unless a token is set; a short token is refused unechoed', () => {
  const base = { DATA_DIR: '/tmp/x' };
  expect(loadConfig(base).metrics).toEqual({ enabled: true, token: undefined });
  expect(loadConfig({ ...base, NODE_ENV: 'production' }).metrics.enabled).toBe(false);
  const token = 'a'.repeat(32);
  expect(loadConfig({ ...base, NODE_ENV: 'production', METRICS_TOKEN: token }).metrics).toEqual({ enabled: true, token });
  expect(loadConfig({ ...base, METRICS_ENABLED: 'false', METRICS_TOKEN: token }).metrics.enabled).toBe(false);
  expect(() => loadConfig({ ...base, METRICS_TOKEN: 'short-secret' })).toThrow(/METRICS_TOKEN/);
  try {
    loadConfig({ ...base, METRICS_TOKEN: 'short-secret' });
  } catch (e) {
    expect((e as Error).message).not.toContain('short-secret');
  }
});
