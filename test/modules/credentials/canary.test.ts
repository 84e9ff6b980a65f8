import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { loggerOptions } from '../../../src/http/log.ts';
import { dumpTables, findings, walk } from '../../support/secret-scan.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { PageClient } from '../../support/page-client.ts';
import { certificateForm, makeCert, modernPfx, ymd } from '../../support/pfx.ts';

/**
 * The canary: recognisable secrets go through every path that handles them (API and hosted page,
 * success and failure), with logging at its most verbose. Then every table and column of both
 * stores, their files on disk (PGlite) or a pg_dump (PostgreSQL), and the captured logs are
 * searched for each value and its base64, base64url and hex forms. None may be found.
 */
const tag = crypto.randomBytes(6).toString('hex');
const CANARY = {
  pfxPassword: `CanaryPfxPw-${tag}`,
  apiKey: `CanaryApiKey-${tag}`,
  pageApiKey: `CanaryPageKey-${tag}`,
};

describeEachDb('canary: no secret in plain text in either store or the logs', (backend) => {
  let t: TestApp;
  let dataDir: string;
  const logs: Buffer[] = [];
  let consoleSpies: ReturnType<typeof vi.spyOn>[] = [];
  const cert = makeCert({ rut: '12345678-5' });
  const pfx = modernPfx(cert, CANARY.pfxPassword);
  let token = '';
  let tableText: Buffer[] = [];
  let traceEnabled = false;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canary-'));
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logs.push(Buffer.from(chunk));
        cb();
      },
    });
    consoleSpies = (['log', 'error', 'warn', 'info', 'debug'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void logs.push(Buffer.from(args.map(String).join(' ')))),
    );
    t = await startTestApp(backend, {
      dataDir,
      env: { LOG_LEVEL: 'trace', PAGE_RATE_LIMIT_BURST: '1000' },
      logger: { ...loggerOptions('trace'), stream },
    });
    traceEnabled = t.app.log.level === 'trace';
    const { key } = await t.account();

    // API path: the key, then the certificate (with an Idempotency-Key, replayed once), plus failures.
    const tenantId = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    expect(
      (await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/credentials/api-key`, payload: { apiKey: CANARY.apiKey } }))
        .statusCode,
    ).toBe(200);
    await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/api-key`,
      payload: { apiKey: `${CANARY.apiKey}-invalid` },
    });
    // A 502 is logged with its error object (warn): the key must not be in it either.
    await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/api-key`,
      payload: { apiKey: `${CANARY.apiKey}-unavailable` },
    });
    const form = certificateForm(
      { password: CANARY.pfxPassword, rutCertificado: '12345678-5', nombreTitular: 'Titular', fechaVencimiento: ymd(cert.notAfter) },
      { data: pfx },
    );
    for (let i = 0; i < 2; i++) {
      const r = await t.call(key, {
        method: 'POST',
        url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
        payload: form.payload,
        headers: { ...form.headers, 'idempotency-key': `canary-${tag}` },
      });
      expect(r.statusCode).toBe(201);
    }
    const wrongPw = certificateForm(
      { password: `${CANARY.pfxPassword}x`, rutCertificado: '12345678-5', nombreTitular: 'T', fechaVencimiento: ymd(cert.notAfter) },
      { data: pfx },
    );
    await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
      payload: wrongPw.payload,
      headers: wrongPw.headers,
    });
    const signing = await t.ctx.services.credentials.getSigningMaterial(
      t.ctx.db,
      (await t.ctx.db.query<{ account_id: string }>('select account_id from tenants where id = $1', [tenantId])).rows[0]!.account_id,
      tenantId,
    );
    expect(signing.pfxPassword).toBe(CANARY.pfxPassword);

    // Hosted page path, token in every URL.
    const tenant2 = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    token = (await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenant2}/activation-link` })).json().token;
    const c = new PageClient(t.app);
    await c.get(`/activate/${token}`);
    await c.postForm(`/activate/${token}/api-key`, { _csrf: c.csrf(), apiKey: `${CANARY.pageApiKey}-invalid` });
    await c.postForm(`/activate/${token}/api-key`, { _csrf: c.csrf(), apiKey: CANARY.pageApiKey });
    await c.get(`/activate/${token}`);
    await c.postMultipart(
      `/activate/${token}/certificate`,
      { _csrf: c.csrf(), password: 'wrong' },
      { name: 'file', filename: 'f.pfx', data: pfx },
    );
    await c.postMultipart(
      `/activate/${token}/certificate`,
      { _csrf: c.csrf(), password: CANARY.pfxPassword },
      { name: 'file', filename: 'f.pfx', data: pfx },
    );
    await c.get(`/activate/${token}`);
    expect((await c.postForm(`/activate/${token}/confirm`, { _csrf: c.csrf() })).statusCode).toBe(200);
    expect((await c.get(`/activate/${token}`)).statusCode).toBe(410);
    await c.get(`/activate/${token}/does-not-exist?token=${token}`);

    tableText = [await dumpTables(t.tdb.db), await dumpTables(t.sdb.db)];
    if (backend === 'postgres')
      for (const db of [t.tdb, t.sdb])
        tableText.push(execFileSync('pg_dump', ['--no-owner', '-n', db.schema!, db.url!], { maxBuffer: 256 * 1024 * 1024 }));
    await t.close();
  });
  afterAll(() => {
    for (const s of consoleSpies) s.mockRestore();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const needles = () => ({
    pfxPassword: Buffer.from(CANARY.pfxPassword),
    apiKey: Buffer.from(CANARY.apiKey),
    pageApiKey: Buffer.from(CANARY.pageApiKey),
    activationToken: Buffer.from(token),
    activationTokenBody: Buffer.from(token.slice(4)),
    pfx,
    // A slice of the .pfx from its middle: catches partial or re-encoded copies too.
    pfxSlice: pfx.subarray(Math.floor(pfx.length / 2), Math.floor(pfx.length / 2) + 48),
  });

  it('the logs were captured at trace level and mention the requests', () => {
    expect(traceEnabled).toBe(true);
    const text = Buffer.concat(logs).toString('utf8');
    expect(text).toContain('/activate/act_[redacted]');
    expect(text).toContain('"statusCode":502');
  });

  it('no table or column of either store holds a canary', () => {
    expect(tableText.length).toBeGreaterThanOrEqual(2);
    // The stores do hold the data, encrypted: the checks below are not vacuous.
    expect(tableText[0]!.toString()).toContain('tenant_certificates.pfx_ciphertext=\\x');
    expect(tableText[1]!.toString()).toContain('secrets.ciphertext=\\x');
    const found = tableText.flatMap((b, i) => findings(b, needles(), `tables/dump #${i}`));
    expect(found).toEqual([]);
  });

  it('no file of the embedded databases holds a canary', () => {
    if (backend !== 'pglite') return;
    const files = walk(dataDir);
    expect(files.length).toBeGreaterThan(10);
    const found = files.flatMap((f) => findings(fs.readFileSync(f), needles(), path.relative(dataDir, f)));
    expect(found).toEqual([]);
  });

  it('no log line holds a canary', () => {
    expect(findings(Buffer.concat(logs), needles(), 'logs')).toEqual([]);
  });
});
