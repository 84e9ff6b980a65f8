import crypto from 'node:crypto';
import { Webhook, WebhookVerificationError as StdError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../src/index.ts';
import { signatureHeaders } from '../../../src/modules/webhooks/signing.ts';

/**
 * verifyWebhook against signatures made independently of it: node:crypto with the documented
 * formula and a fixed vector (default scheme), the `standardwebhooks` library's own signer
 * (standard scheme), and the service's own signer (both schemes).
 */
const secret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;
const body = JSON.stringify({
  event: 'folio.low',
  timestamp: '2026-11-27T19:00:00.000Z',
  data: { tenantId: '6f1c2f4e-0000-4000-8000-000000000001', tipoDte: 33, disponibles: 9, lowThreshold: 10 },
});
const NOW = 1_800_000_000_000;
const nowSeconds = NOW / 1000;

const rejects = (fn: () => unknown, reason: WebhookVerificationError['reason']) => {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(WebhookVerificationError);
  expect((caught as WebhookVerificationError).reason).toBe(reason);
};

describe('verifyWebhook — hmac-sha256-body (the default scheme)', () => {
  const sign = (s: string, b: string) => crypto.createHmac('sha256', Buffer.from(s, 'utf8')).update(b, 'utf8').digest('base64');
  const headers = (sig: string) => ({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(nowSeconds), 'webhook-signature': sig });

  it('accepts the fixed vector: key = the whole secret string, message = the raw body', () => {
    const parsed = verifyWebhook<{ a: number }>('{"a":1}', headers('UUJq9QpB3X/yzT8RZZRzR2bUAY0V1vsHFpruXSlZrfU='), 'whsec_test');
    expect(parsed).toEqual({ a: 1 });
  });

  it('returns the typed event for a real signature, from a string or from bytes, with any header casing', () => {
    const s = secret();
    const event = verifyWebhook(body, headers(sign(s, body)), s);
    expect(event.event).toBe('folio.low');
    if (event.event === 'folio.low') expect(event.data.disponibles).toBe(9);
    const h = new Headers({ 'Webhook-Signature': sign(s, body) });
    expect(verifyWebhook(new TextEncoder().encode(body), h, s, { scheme: 'hmac-sha256-body' })).toEqual(JSON.parse(body));
  });

  it('refuses a tampered body, a wrong secret, a decoded-secret key (the Svix mistake) and a missing header', () => {
    const s = secret();
    const sig = sign(s, body);
    rejects(() => verifyWebhook(body.replace('"disponibles":9', '"disponibles":90'), headers(sig), s), 'invalid_signature');
    rejects(() => verifyWebhook(body, headers(sig), secret()), 'invalid_signature');
    const svixStyle = crypto
      .createHmac('sha256', Buffer.from(s.slice(6), 'base64'))
      .update(body)
      .digest('base64');
    rejects(() => verifyWebhook(body, headers(svixStyle), s), 'invalid_signature');
    rejects(() => verifyWebhook(body, { 'webhook-id': 'x' }, s), 'missing_header');
    rejects(() => verifyWebhook(body, headers(sig.slice(0, -4)), s), 'invalid_signature');
  });

  it('accepts the previous secret during a rotation when both are given', () => {
    const [old, current] = [secret(), secret()];
    expect(verifyWebhook(body, headers(sign(old, body)), [current, old]).event).toBe('folio.low');
    rejects(() => verifyWebhook(body, headers(sign(old, body)), [current]), 'invalid_signature');
  });

  it('does not look at the timestamp (it is not signed in this scheme)', () => {
    const s = secret();
    const h = { ...headers(sign(s, body)), 'webhook-timestamp': '1' };
    expect(verifyWebhook(body, h, s, { now: NOW }).event).toBe('folio.low');
  });

  it('refuses parsed JSON instead of the raw body, and a signed body that is not JSON', () => {
    const s = secret();
    expect(() => verifyWebhook(JSON.parse(body) as never, headers(sign(s, body)), s)).toThrow(TypeError);
    rejects(() => verifyWebhook('not json', headers(sign(s, 'not json')), s), 'invalid_payload');
  });
});

describe('verifyWebhook — standard-webhooks', () => {
  const stdHeaders = (s: string, id = 'msg_2', at = new Date(NOW), b = body) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(s).sign(id, at, b),
  });

  it('accepts what the standardwebhooks library signs, and the library accepts what verifyWebhook accepts', () => {
    const s = secret();
    const h = stdHeaders(s, 'msg_2', new Date());
    expect(verifyWebhook<WebhookEvent>(body, h, s).event).toBe('folio.low');
    expect(verifyWebhook(body, h, s, { scheme: 'standard-webhooks' }).event).toBe('folio.low');
    expect(new Webhook(s).verify(body, h)).toEqual(JSON.parse(body));
  });

  it('accepts any of several signatures (a rotation signs with the new and the previous secret)', () => {
    const [old, current] = [secret(), secret()];
    const a = stdHeaders(current);
    const b = stdHeaders(old);
    const both = { ...a, 'webhook-signature': `${a['webhook-signature']} ${b['webhook-signature']}` };
    expect(verifyWebhook(body, both, old, { now: NOW }).event).toBe('folio.low');
    expect(verifyWebhook(body, both, current, { now: NOW }).event).toBe('folio.low');
    rejects(() => verifyWebhook(body, both, secret(), { now: NOW }), 'invalid_signature');
  });

  it('refuses a tampered body, id or timestamp, and a wrong secret', () => {
    const s = secret();
    const h = stdHeaders(s);
    rejects(() => verifyWebhook(`${body} `, h, s, { now: NOW }), 'invalid_signature');
    rejects(() => verifyWebhook(body, { ...h, 'webhook-id': 'msg_other' }, s, { now: NOW }), 'invalid_signature');
    rejects(() => verifyWebhook(body, { ...h, 'webhook-timestamp': String(nowSeconds + 1) }, s, { now: NOW }), 'invalid_signature');
    rejects(() => verifyWebhook(body, h, secret(), { now: NOW }), 'invalid_signature');
    // The library agrees on the tampered body.
    expect(() => new Webhook(s).verify(`${body} `, { ...h, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) })).toThrow(StdError);
  });

  it('refuses a timestamp outside the tolerance (default 5 minutes, either way), and one that is not a number', () => {
    const s = secret();
    const h = stdHeaders(s);
    expect(verifyWebhook(body, h, s, { now: NOW + 299_000 }).event).toBe('folio.low');
    rejects(() => verifyWebhook(body, h, s, { now: NOW + 301_000 }), 'timestamp_out_of_tolerance');
    rejects(() => verifyWebhook(body, h, s, { now: NOW - 301_000 }), 'timestamp_out_of_tolerance');
    expect(verifyWebhook(body, h, s, { now: NOW + 3_000_000, toleranceSeconds: 3600 }).event).toBe('folio.low');
    rejects(() => verifyWebhook(body, { ...h, 'webhook-timestamp': 'soon' }, s, { now: NOW }), 'timestamp_out_of_tolerance');
    rejects(() => verifyWebhook(body, { ...h, 'webhook-timestamp': undefined }, s, { now: NOW }), 'missing_header');
  });

  it('a pinned scheme refuses the other scheme’s signature', () => {
    const s = secret();
    rejects(() => verifyWebhook(body, stdHeaders(s), s, { scheme: 'hmac-sha256-body', now: NOW }), 'invalid_signature');
    const bodySig = crypto.createHmac('sha256', s).update(body).digest('base64');
    const h = { 'webhook-id': 'm', 'webhook-timestamp': String(nowSeconds), 'webhook-signature': bodySig };
    rejects(() => verifyWebhook(body, h, s, { scheme: 'standard-webhooks', now: NOW }), 'invalid_signature');
  });
});

describe('verifyWebhook against the service’s own signer', () => {
  it('verifies both schemes as the delivery worker signs them, including a rotation', () => {
    const [current, previous] = [secret(), secret()];
    const at = Math.floor(Date.now() / 1000);
    const plain = signatureHeaders('hmac-sha256-body', [current, previous], 'msg_3', at, body);
    expect(verifyWebhook(body, plain, current, { scheme: 'hmac-sha256-body' }).event).toBe('folio.low');
    const std = signatureHeaders('standard-webhooks', [current, previous], 'msg_3', at, body);
    expect(verifyWebhook(body, std, previous, { scheme: 'standard-webhooks' }).event).toBe('folio.low');
    expect(verifyWebhook(body, std, current).event).toBe('folio.low');
  });
});
