import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSecret, safeEqual, signatureHeaders, signBody, signStandard } from './signing.ts';

describe('webhook secrets', () => {
  it('are whsec_ + standard base64 of 32 bytes, which the standardwebhooks library accepts', () => {
    const s = generateSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
    expect(() => new Webhook(s)).not.toThrow();
    expect(generateSecret()).not.toBe(s);
  });
});

describe('hmac-sha256-body (the contract scheme)', () => {
  it('is base64(HMAC-SHA256(UTF-8 bytes of the secret as shown, raw body))', () => {
    // A fixed vector computed independently: printf '%s' '{"a":1}' | openssl dgst -sha256 -hmac 'whsec_test' -binary | base64
    expect(signBody('whsec_test', '{"a":1}')).toBe(crypto.createHmac('sha256', 'whsec_test').update('{"a":1}').digest('base64'));
    expect(signBody('whsec_test', '{"a":1}')).toBe('UUJq9QpB3X/yzT8RZZRzR2bUAY0V1vsHFpruXSlZrfU=');
  });
  it('changes with any byte of the body', () => {
    expect(signBody('whsec_x', '{"a":1}')).not.toBe(signBody('whsec_x', '{"a":2}'));
  });
  it('produces the four delivery headers', () => {
    const h = signatureHeaders('hmac-sha256-body', ['whsec_k'], 'msg-1', 1_800_000_000, '{}');
    expect(h).toEqual({
      'content-type': 'application/json',
      'webhook-id': 'msg-1',
      'webhook-timestamp': '1800000000',
      'webhook-signature': signBody('whsec_k', '{}'),
    });
  });
});

describe('standard-webhooks scheme', () => {
  it('is verified by the standardwebhooks library', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ event: 'folio.low', timestamp: new Date().toISOString(), data: { tipoDte: 33 } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders('standard-webhooks', [secret], 'a1b2', ts, body);
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // and it is what the library itself computes
    expect(signStandard(secret, 'a1b2', ts, body)).toBe(new Webhook(secret).sign('a1b2', new Date(ts * 1000), body));
  });
  it('carries both signatures during a rotation, each verifying with its own secret', () => {
    const [now, old] = [generateSecret(), generateSecret()];
    const ts = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders('standard-webhooks', [now, old], 'id', ts, '{"x":1}');
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(now).verify('{"x":1}', headers)).not.toThrow();
    expect(() => new Webhook(old).verify('{"x":1}', headers)).not.toThrow();
    expect(() => new Webhook(generateSecret()).verify('{"x":1}', headers)).toThrow();
  });
  it('refuses a tampered body', () => {
    const secret = generateSecret();
    const ts = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders('standard-webhooks', [secret], 'id', ts, '{"x":1}');
    expect(() => new Webhook(secret).verify('{"x":2}', headers)).toThrow();
  });
});

describe('safeEqual', () => {
  it('compares exactly', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
