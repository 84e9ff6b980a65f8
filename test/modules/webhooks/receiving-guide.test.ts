import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecret, signatureHeaders } from '../../../src/modules/webhooks/signing.ts';
import { freePort } from '../../support/processes.ts';

/**
 * The verification snippets of docs/webhooks.md, run as written (only the port of the Node.js
 * server is changed) against deliveries signed by the service's own signing code: a genuine
 * delivery passes, a tampered body or a wrong secret fails.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const guide = fs.readFileSync(path.join(ROOT, 'docs/webhooks.md'), 'utf8');
const blocks = (lang: string) => [...guide.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

const secret = generateSecret();
const body = JSON.stringify({
  event: 'folio.low',
  timestamp: new Date().toISOString(),
  data: { tenantId: 'x', tipoDte: 33, disponibles: 9, lowThreshold: 10 },
});
const id = '3f0c2f5e-5d1b-4c84-9a4e-0b4c7c2d8e11';
const ts = Math.floor(Date.now() / 1000);
const contract = signatureHeaders('hmac-sha256-body', [secret], id, ts, body);
const standard = signatureHeaders('standard-webhooks', [secret], id, ts, body);

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-guide-'));
  fs.writeFileSync(path.join(dir, 'body.json'), body);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('receiving guide snippets', () => {
  it('Node.js: the example server accepts a genuine delivery and refuses a tampered one', async () => {
    const server = blocks('js')[0]!;
    expect(server).toContain('.listen(8080)');
    const port = await freePort();
    const file = path.join(dir, 'receiver.mjs');
    fs.writeFileSync(file, server.replace('.listen(8080)', `.listen(${port}, () => console.log('ready'))`));
    const proc = spawn(process.execPath, [file], { env: { ...process.env, WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => proc.stdout!.once('data', () => resolve()));
      const post = (b: string, h: Record<string, string>) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: h, body: b });
      expect((await post(body, contract)).status).toBe(204);
      expect((await post(body, contract)).status).toBe(204); // a duplicate is acknowledged too
      expect((await post(body.replace('9', '8'), contract)).status).toBe(400);
      expect((await post(body, { ...contract, 'webhook-timestamp': String(ts - 3600) })).status).toBe(400);
    } finally {
      proc.kill();
    }
  });

  it('Python: verify() accepts a genuine delivery and refuses a tampered one', () => {
    const snippet = blocks('python')[0]!;
    const run = (b: string, headers: Record<string, string>) =>
      execFileSync(
        'python3',
        [
          '-c',
          `${snippet}\nimport json, sys\nprint(verify(sys.argv[1], open(sys.argv[2], 'rb').read(), json.loads(sys.argv[3])))`,
          secret,
          path.join(dir, b),
          JSON.stringify(headers),
        ],
        {
          encoding: 'utf8',
        },
      ).trim();
    fs.writeFileSync(path.join(dir, 'tampered.json'), body.replace('9', '8'));
    expect(run('body.json', contract)).toBe('True');
    expect(run('tampered.json', contract)).toBe('False');
  });

  it('shell: both openssl pipelines reproduce the header', () => {
    const sh = blocks('sh')[0]!;
    const commands = sh.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
    // First pipeline: one line. Second: the KEY_HEX line and the two-line pipeline after it.
    const first = commands[0]!;
    const second = commands.slice(1).join('\n');
    const env = { ...process.env, WEBHOOK_SECRET: secret, WEBHOOK_ID: id, WEBHOOK_TIMESTAMP: String(ts) };
    expect(execFileSync('bash', ['-c', first], { cwd: dir, env, encoding: 'utf8' }).trim()).toBe(contract['webhook-signature']);
    expect(execFileSync('bash', ['-c', second], { cwd: dir, env, encoding: 'utf8' }).trim()).toBe(standard['webhook-signature']);
  });

  it('TypeScript SDK: the verifyWebhook snippet accepts a genuine delivery of its scheme and refuses a tampered one', () => {
    const snippet = blocks('ts')[0]!;
    expect(snippet).toContain("from '@dte-service/sdk'");
    // The snippet's free names (rawBody, req) given values; inside the repository so the package resolves.
    const file = path.join(ROOT, '.tmp', `verify-snippet-${process.pid}.ts`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      `const rawBody = process.env.BODY!;\nconst req = { headers: JSON.parse(process.env.HEADERS!) };\n${snippet}\nconsole.log(event.event);\n`,
    );
    const run = (b: string, h: Record<string, string>) =>
      execFileSync(process.execPath, [file], {
        env: { ...process.env, WEBHOOK_SECRET: secret, BODY: b, HEADERS: JSON.stringify(h) },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }).trim();
    try {
      expect(run(body, contract)).toBe('folio.low');
      expect(() => run(body.replace('9', '8'), contract)).toThrow(/WebhookVerificationError|signature mismatch/);
      // The snippet pins the default scheme: a standard-webhooks delivery is refused by it.
      expect(() => run(body, standard)).toThrow(/signature mismatch/);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
