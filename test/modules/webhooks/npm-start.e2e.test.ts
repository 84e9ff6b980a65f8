import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccountViaCli, startServer, type ServerProc } from '../../support/processes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';

/** `npm start` (one process: API + workers, embedded database) delivers webhooks with no extra setup. */
let server: ServerProc;
let r: WebhookReceiver;
let key: string;

beforeAll(async () => {
  r = await startWebhookReceiver();
  // A first start, as `npm start` on a new machine (not a copy of one: test/support/server-data.ts).
  server = await startServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, [], { fresh: true });
  key = await createAccountViaCli(server.env);
});
afterAll(async () => {
  await server?.stop();
  await r?.close();
});

it('registers an endpoint, sends a test event and logs the successful attempt', async () => {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const ep = (await (
    await fetch(`${server.url}/api/v1/webhooks/endpoints`, { method: 'POST', headers, body: JSON.stringify({ url: r.url }) })
  ).json()) as { id: string; secret: string };
  r.secret = ep.secret;
  const msg = (await (
    await fetch(`${server.url}/api/v1/webhooks/endpoints/${ep.id}/test`, { method: 'POST', headers, body: '{}' })
  ).json()) as { id: string };
  await r.waitFor((all) => all.some((d) => d.webhookId === msg.id), 30_000);
  expect(r.deliveries[0]).toMatchObject({ verified: true, webhookId: msg.id });
  let logged: { status: string; attempts: unknown[] } = { status: 'pending', attempts: [] };
  for (let i = 0; i < 100 && logged.status !== 'succeeded'; i++) {
    logged = (await (await fetch(`${server.url}/api/v1/webhooks/messages/${msg.id}`, { headers })).json()) as typeof logged;
    await new Promise((res) => setTimeout(res, 50));
  }
  expect(logged.status).toBe('succeeded');
  expect(logged.attempts).toHaveLength(1);
});
