import { describe, expect, it } from 'vitest';
import { isDeliverableAddress, messageDomain } from './exchange.message.ts';

describe('the Message-ID', () => {
  it('takes the Message-ID domain from the From address', () => {
    expect(messageDomain('dte@Example.CL')).toBe('example.cl');
    expect(messageDomain('DTE <dte@localhost>')).toBe('localhost');
    expect(messageDomain('nobody')).toBe('localhost');
  });
});

describe('which addresses a delivery is attempted to', () => {
  it('accepts ordinary mailboxes and refuses the rest', () => {
    for (const ok of ['dte@receptor.cl', 'facturacion.intercambio+33@sub.empresa.com', 'a_b@x-y.cl'])
      expect(isDeliverableAddress(ok)).toBe(true);
    for (const bad of [
      null,
      undefined,
      '',
      'sin arroba',
      'a@b',
      'a b@c.cl',
      'x@y.cl, z@w.cl',
      'Nombre <x@y.cl>',
      `${'a'.repeat(250)}@b.cl`,
    ])
      expect(isDeliverableAddress(bad)).toBe(false);
  });
});
