import { afterAll, beforeAll, expect, it } from 'vitest';
import { endpointsStore } from '../../../src/modules/webhooks/endpoints.store.ts';
import { encryptSecret } from '../../../src/modules/webhooks/secret-store.ts';
import { generateSecret } from '../../../src/modules/webhooks/signing.ts';
import { systemResolver, type Resolver } from '../../../src/modules/webhooks/delivery/url-policy.ts';
import { newId } from '../../../src/lib/tokens.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { webhookHarness, type WebhookHarness } from '../../support/webhooks.ts';

/**
 * The SSRF corpus (docs/design.md §8): URL forms that reach loopback, private, link-local, metadata
 * and other internal addresses, refused at registration and again at delivery, with
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS=false. A receiver listens on every loopback address at the port
 * these URLs name, so a guard that let anything through would show up as a request it received.
 */
const PORT = '{port}';
const LOOPBACK_FORMS = [
  `http://127.0.0.1:${PORT}/h`,
  `http://127.0.0.2:${PORT}/h`,
  `http://127.1:${PORT}/h`,
  `http://localhost:${PORT}/h`,
  `http://LOCALHOST:${PORT}/h`,
  `http://localhost.:${PORT}/h`,
  `http://hooks.localhost:${PORT}/h`,
  `http://[::1]:${PORT}/h`,
  `http://[::ffff:127.0.0.1]:${PORT}/h`,
  `http://[0:0:0:0:0:ffff:7f00:1]:${PORT}/h`,
  `http://[::127.0.0.1]:${PORT}/h`,
  `http://[64:ff9b::7f00:1]:${PORT}/h`,
  `http://[2002:7f00:1::]:${PORT}/h`,
  `http://2130706433:${PORT}/h`,
  `http://0177.0.0.1:${PORT}/h`,
  `http://017700000001:${PORT}/h`,
  `http://0x7f.0.0.1:${PORT}/h`,
  `http://0x7f000001:${PORT}/h`,
  `http://0.0.0.0:${PORT}/h`,
  `http://0:${PORT}/h`,
  `http://[::]:${PORT}/h`,
  `http://rebind.example.test:${PORT}/h`, // a name whose DNS answer is 127.0.0.1
];
const INTERNAL_FORMS = [
  'http://10.0.0.1/h',
  'http://172.16.0.1/h',
  'http://192.168.1.1/h',
  'http://100.64.0.1/h',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://100.100.100.200/latest/meta-data/',
  'http://169.254.1.1/h',
  'http://[fd00::1]/h',
  'http://[fe80::1]/h',
  'http://224.0.0.1/h',
  'http://[ff02::1]/h',
  'http://255.255.255.255/h',
];
const NOT_HTTP = [
  'http://user:pass@93.184.215.14/h',
  'https://user@93.184.215.14/h',
  'ftp://93.184.215.14/h',
  'file:///etc/passwd',
  'gopher://127.0.0.1:70/_',
  'javascript:alert(1)',
  'data:text/plain,hi',
  'ws://93.184.215.14/h',
];

/** Test DNS: the rebinding name answers 127.0.0.1; everything else goes to the system resolver. */
const resolver: Resolver = async (host) => (host === 'rebind.example.test' ? [{ address: '127.0.0.1', family: 4 }] : systemResolver(host));

describeEachDb('SSRF guard', (backend) => {
  let t: TestApp;
  let h: WebhookHarness;
  let r: WebhookReceiver;
  let key: string;
  let corpus: string[];

  beforeAll(async () => {
    r = await startWebhookReceiver({ host: '::' }); // dual stack: 127.0.0.0/8 and ::1
    corpus = LOOPBACK_FORMS.map((u) => u.replace(PORT, String(r.port)));
    t = await startTestApp(backend, { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } });
    key = (await t.account()).key;
    h = await webhookHarness(backend, { allowPrivateNetworks: false, resolver });
  });
  afterAll(async () => {
    await h?.close();
    await t?.close();
    await r?.close();
  });

  it(`has a corpus of ${LOOPBACK_FORMS.length + INTERNAL_FORMS.length + NOT_HTTP.length} URL forms`, () => {
    expect(LOOPBACK_FORMS.length + INTERNAL_FORMS.length + NOT_HTTP.length).toBeGreaterThanOrEqual(20);
  });

  it('refuses every form at registration through the API, naming the url field', async () => {
    for (const url of [...corpus, ...INTERNAL_FORMS, ...NOT_HTTP]) {
      const res = await t.call(key, { method: 'POST', url: '/api/v1/webhooks/endpoints', payload: { url } });
      expect([400, 422], url).toContain(res.statusCode);
      const err = res.json().error;
      expect(err.param, url).toBe('url');
      expect(
        [
          'webhook_url_forbidden_address',
          'webhook_url_unresolvable',
          'webhook_url_scheme_not_allowed',
          'webhook_url_credentials_not_allowed',
          'invalid_webhook_url',
        ],
        url,
      ).toContain(err.code);
    }
  });

  it('refuses loopback and internal forms at registration as forbidden addresses, even the rebinding name', async () => {
    const acct = await h.account();
    for (const url of [...corpus, ...INTERNAL_FORMS]) {
      const e = await h.service.createEndpoint(acct, { url }).then(
        () => undefined,
        (x: { code: string; param: string }) => x,
      );
      expect(e, url).toMatchObject({ code: 'webhook_url_forbidden_address', param: 'url' });
    }
  });

  it('names WEBHOOK_ALLOW_PRIVATE_NETWORKS when the setting would allow the address, and only then', async () => {
    const acct = await h.account();
    const refusal = (url: string) =>
      h.service.createEndpoint(acct, { url }).then(
        () => '',
        (x: { message: string }) => x.message,
      );
    expect(await refusal('http://127.0.0.1:8080/hook')).toMatch(/WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/);
    expect(await refusal('http://localhost/hook')).toMatch(/WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/);
    expect(await refusal('http://10.1.2.3/hook')).toMatch(/WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/);
    expect(await refusal('http://169.254.169.254/latest/meta-data')).not.toMatch(/WEBHOOK_ALLOW_PRIVATE_NETWORKS/);
  });

  it('refuses every form again at delivery: all attempts fail with forbidden_address and the receiver sees nothing', async () => {
    // Endpoints as they would exist had they been registered before the policy or the DNS changed.
    const acct = await h.account();
    const urls = [...corpus, ...INTERNAL_FORMS];
    await h.db.transaction(async (tx) => {
      for (const url of urls) {
        const id = newId();
        await endpointsStore.insert(tx, {
          id,
          accountId: acct,
          url: new URL(url).href,
          description: null,
          filterTypes: [],
          scheme: 'hmac-sha256-body',
          secretEnc: encryptSecret(h.cipher, acct, id, generateSecret()),
          now: h.clock.now(),
        });
      }
    });
    const msg = await h.emit(acct, 'folio.low', { tenantId: newId(), tipoDte: 33, disponibles: 1, lowThreshold: 10 });
    const w = h.worker({ allowPrivateNetworks: false, retryScheduleMs: [0, 20, 20], concurrency: 64 }, { resolver });
    w.start();
    const m = await h.waitForMessage(acct, msg, (x) => x.status === 'failed', 30_000);
    // Stopped here, not at the end of the file: a worker refusing private addresses that was still
    // polling would claim the next test's deliveries and fail them.
    await w.stop();
    expect(m.attempts).toHaveLength(urls.length * 3);
    for (const a of m.attempts) {
      expect(a.status).toBe('failed');
      expect(a.responseStatusCode).toBeNull();
      expect(a.error).toMatch(/^forbidden_address: /);
    }
    expect(r.deliveries).toHaveLength(0);
  });

  it('control: the same receiver is reachable through the loopback forms when private networks are allowed', async () => {
    const acct = await h.account();
    const allowed = [
      `http://127.0.0.1:${r.port}/h`,
      `http://localhost:${r.port}/h`,
      `http://[::1]:${r.port}/h`,
      `http://2130706433:${r.port}/h`,
      `http://0177.0.0.1:${r.port}/h`,
      `http://[::ffff:127.0.0.1]:${r.port}/h`,
      `http://rebind.example.test:${r.port}/h`,
    ];
    const secrets = new Set<string>();
    await h.db.transaction(async (tx) => {
      for (const url of allowed) {
        const id = newId();
        const secret = generateSecret();
        secrets.add(secret);
        await endpointsStore.insert(tx, {
          id,
          accountId: acct,
          url: new URL(url).href,
          description: null,
          filterTypes: [],
          scheme: 'hmac-sha256-body',
          secretEnc: encryptSecret(h.cipher, acct, id, secret),
          now: h.clock.now(),
        });
      }
    });
    const msg = await h.emit(acct, 'folio.low', { tenantId: newId(), tipoDte: 33, disponibles: 1, lowThreshold: 10 });
    const w = h.worker({ allowPrivateNetworks: true }, { resolver });
    w.start();
    const m = await h.waitForMessage(acct, msg, (x) => x.status !== 'pending', 30_000);
    await w.stop();
    expect(m.status).toBe('succeeded');
    expect(r.deliveries).toHaveLength(allowed.length);
  });
});
