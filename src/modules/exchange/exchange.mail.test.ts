import { describe, expect, it } from 'vitest';
import { classifySmtpError, recipientHash, scrubAddresses } from './exchange.mail.ts';

describe('SMTP failures as delivery errors', () => {
  const smtp = (code: string | undefined, responseCode: number | undefined, response = '') =>
    Object.assign(new Error(response || 'failed'), { code, responseCode, response });

  it('takes a 5yz reply as permanent, except 503', () => {
    expect(classifySmtpError(smtp('EENVELOPE', 550, '550 5.1.1 <x@y.cl>: Recipient address rejected'))).toMatchObject({
      code: 'smtp_rejected',
      permanent: true,
    });
    expect(classifySmtpError(smtp('EMESSAGE', 552, '552 Message too large'))).toMatchObject({ code: 'smtp_rejected', permanent: true });
    expect(classifySmtpError(smtp('EPROTOCOL', 503, '503 Bad sequence of commands'))).toMatchObject({ permanent: false });
  });

  it('retries 4yz replies, connection trouble and authentication failures', () => {
    expect(classifySmtpError(smtp('EENVELOPE', 451, '451 Greylisted'))).toMatchObject({ code: 'smtp_deferred', permanent: false });
    expect(classifySmtpError(smtp('EENVELOPE', 421, '421 Too busy'))).toMatchObject({ code: 'smtp_deferred', permanent: false });
    for (const code of ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED'])
      expect(classifySmtpError(smtp(code, undefined))).toMatchObject({ code: 'smtp_unavailable', permanent: false });
    expect(classifySmtpError(smtp('EAUTH', 535, '535 Authentication failed'))).toMatchObject({
      code: 'smtp_auth_failed',
      permanent: false,
    });
    expect(classifySmtpError(new Error('something else'))).toMatchObject({ code: 'smtp_error', permanent: false });
    expect(classifySmtpError('not even an error')).toMatchObject({ code: 'smtp_error', permanent: false });
  });

  it('never keeps an address from the server reply', () => {
    const e = classifySmtpError(smtp('EENVELOPE', 550, '550 5.1.1 <juan.perez@empresa.cl>: unknown user juan.perez@empresa.cl'));
    expect(e.message).toContain('550');
    expect(e.message).not.toContain('empresa.cl');
    expect(e.message).toContain('<[address]>');
  });
});

describe('what a log may say about a recipient', () => {
  it('scrubs every address in a text', () => {
    expect(scrubAddresses('to a@b.cl, "X" <c.d+e@f.example.com>; ok')).toBe('to [address], "X" <[address]>; ok');
    expect(scrubAddresses('250 2.0.0 Ok: queued as 4B2D')).toBe('250 2.0.0 Ok: queued as 4B2D');
  });

  it('hashes an address to a short stable id, case-insensitively, that does not contain it', () => {
    const h = recipientHash('Dte@Receptor.cl');
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(recipientHash(' dte@receptor.cl ')).toBe(h);
    expect(recipientHash('otro@receptor.cl')).not.toBe(h);
  });
});
