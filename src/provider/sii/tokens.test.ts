import { describe, expect, it } from 'vitest';
import { ProviderError } from '../port.ts';
import type { SiiCredentials } from './context.ts';
import { siiHosts } from './context.ts';
import { createSiiTokens } from './tokens.ts';

const creds = (pfx: string): SiiCredentials => ({ pfx: Buffer.from(pfx), pfxPassword: 'x', rutCertificado: '12345678-5' });
const http = { hosts: siiHosts('http://sii.invalid'), fetch: globalThis.fetch, timeoutMs: 1000 };

describe('the SII token cache', () => {
  it('keys by certificate bytes, environment and kind; concurrent callers share one fetch', async () => {
    let n = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tokens = createSiiTokens({
      http,
      fetchToken: async (_h, kind, c, amb) => {
        n++;
        await gate;
        return `${kind}-${amb}-${c.pfx.toString()}-${n}`;
      },
    });
    const a = creds('A');
    const many = Promise.all([
      tokens.get('soap', a, 'produccion'),
      tokens.get('soap', creds('A'), 'produccion'),
      tokens.get('soap', a, 'produccion'),
    ]);
    release();
    expect(new Set(await many).size).toBe(1);
    expect(n).toBe(1);
    await tokens.get('soap', creds('B'), 'produccion');
    await tokens.get('rest', a, 'produccion');
    await tokens.get('soap', a, 'certificacion');
    expect(n).toBe(4);
    expect(tokens.fetched()).toEqual({ soap: 3, rest: 1 });
  });

  it('does not cache a failed fetch, and forgets only the token that was refused', async () => {
    let fail = true;
    let n = 0;
    const tokens = createSiiTokens({
      http,
      fetchToken: async () => {
        n++;
        if (fail) throw new ProviderError('unavailable', 'down');
        return `T${n}`;
      },
    });
    await expect(tokens.get('soap', creds('A'), 'produccion')).rejects.toThrow('down');
    fail = false;
    expect(await tokens.get('soap', creds('A'), 'produccion')).toBe('T2');
    tokens.invalidate('soap', creds('A'), 'produccion', 'T1');
    expect(await tokens.get('soap', creds('A'), 'produccion')).toBe('T2');
    tokens.invalidate('soap', creds('A'), 'produccion', 'T2');
    expect(await tokens.get('soap', creds('A'), 'produccion')).toBe('T3');
    expect(tokens.fetched().soap).toBe(2);
  });
});
