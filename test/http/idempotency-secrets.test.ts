import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loggerOptions } from '../../src/http/log.ts';
import { dumpTables, forms, walk } from '../support/secret-scan.ts';
import { describeEachDb } from '../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../support/app.ts';

/**
 * Every route that answers a secret shown once, called with an Idempotency-Key and replayed: the
 * replay returns the same secret (the stored response is encrypted, src/http/plugins/idempotency.ts),
 * and afterwards no secret is found in plain text (raw, base64, base64url, hex) in any table of
 * either store, in the PGlite files on disk (WAL included) or a pg_dump of both PostgreSQL schemas,
 * or in the logs at trace level.
 */
describeEachDb('secrets returned under an Idempotency-Key', (backend) => {
  let t: TestApp;
  let dataDir: string;
  const logs: Buffer[] = [];
  const secrets: Record<string, string> = {};
  let haystacks: { where: string; data: Buffer }[] = [];

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'idem-canary-'));
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logs.push(Buffer.from(chunk));
        cb();
      },
    });
    t = await startTestApp(backend, { dataDir, env: { LOG_LEVEL: 'trace' }, logger: { ...loggerOptions('trace'), stream } });
    const { key } = await t.account();
    const tenantId = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    const twice = async (name: string, url: string, payload: object, pick: (body: Record<string, string>) => string) => {
      const headers = { 'idempotency-key': `idem-${name}-${crypto.randomUUID()}` };
      const first = await t.call(key, { method: 'POST', url, payload, headers });
      const replay = await t.call(key, { method: 'POST', url, payload, headers });
      expect(first.statusCode, name).toBeLessThan(300);
      expect(replay.statusCode, name).toBe(first.statusCode);
      expect(replay.headers['idempotent-replayed'], name).toBe('true');
      expect(pick(replay.json()), name).toBe(pick(first.json()));
      secrets[name] = pick(first.json());
      return first.json();
    };
    await twice('apiKey', '/api/v1/api-keys', { name: 'ci' }, (b) => b.key!);
    await twice('activationToken', `/api/v1/tenants/${tenantId}/activation-link`, {}, (b) => b.token!);
    const endpoint = await twice('webhookSecret', '/api/v1/webhooks/endpoints', { url: 'https://93.184.215.14/hook' }, (b) => b.secret!);
    await twice('rotatedSecret', `/api/v1/webhooks/endpoints/${endpoint.id}/secret/rotate`, {}, (b) => b.secret!);
    expect(secrets.apiKey).toMatch(/^sk_live_/);
    expect(secrets.activationToken).toMatch(/^act_/);
    expect(secrets.webhookSecret).toMatch(/^whsec_/);

    haystacks = [
      { where: 'main tables', data: await dumpTables(t.tdb.db) },
      { where: 'secrets-store tables', data: await dumpTables(t.sdb.db) },
    ];
    if (backend === 'postgres')
      for (const db of [t.tdb, t.sdb])
        haystacks.push({
          where: `pg_dump ${db.schema}`,
          data: execFileSync('pg_dump', ['--no-owner', '-n', db.schema!, db.url!], { maxBuffer: 256 * 1024 * 1024 }),
        });
    await t.close();
    if (backend === 'pglite') for (const f of walk(dataDir)) haystacks.push({ where: path.relative(dataDir, f), data: fs.readFileSync(f) });
    haystacks.push({ where: 'logs', data: Buffer.concat(logs) });
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('finds no secret in plain text anywhere', () => {
    expect(Object.keys(secrets)).toHaveLength(4);
    if (backend === 'pglite') expect(haystacks.length).toBeGreaterThan(100);
    // One line per request (src/http/log.ts): the tenant and the eight idempotent calls at least.
    expect(
      Buffer.concat(logs)
        .toString('utf8')
        .match(/"msg":"request completed"/g)?.length ?? 0,
    ).toBeGreaterThanOrEqual(9);
    const found: string[] = [];
    for (const [name, value] of Object.entries(secrets))
      for (const needle of [value, value.replace(/^(sk_live_|act_|whsec_)/, '')])
        for (const f of forms(Buffer.from(needle))) for (const h of haystacks) if (h.data.includes(f)) found.push(`${name} in ${h.where}`);
    expect(found).toEqual([]);
  });
});
