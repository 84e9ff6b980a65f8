import { describe, expect, it } from 'vitest';
import { CURRENT_PARAMS, hashPassword, needsRehash, passwordProblem, verifyPassword } from './password.ts';

describe('password hashing (scrypt)', () => {
  it('verifies the right password only, with a fresh salt each time', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$1\$32768,8,3\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('treats the NFC and NFD spellings of a password as the same password', async () => {
    const h = await hashPassword('contraseña segura');
    expect(await verifyPassword('contrasen\u0303a segura', h)).toBe(true);
  });

  it('never matches a malformed or tampered stored value, and refuses absurd parameters', async () => {
    const h = await hashPassword('correct horse battery');
    for (const bad of [
      '',
      'plain',
      h.replace('scrypt$1', 'scrypt$2'),
      h.replace('32768', '1048576000'),
      h.replace('32768', '1000'),
      h.slice(0, -10),
    ])
      expect(await verifyPassword('correct horse battery', bad)).toBe(false);
  });

  it('asks for a re-hash when the parameters are not the current ones', async () => {
    expect(needsRehash(await hashPassword('correct horse battery'))).toBe(false);
    const weaker = await hashPassword('correct horse battery', { N: 2 ** 10, r: 8, p: 1 });
    expect(needsRehash(weaker)).toBe(true);
    expect(await verifyPassword('correct horse battery', weaker)).toBe(true);
    expect(CURRENT_PARAMS).toEqual({ N: 32768, r: 8, p: 3 });
  });

  it('asks for length only (10 to 256 characters)', () => {
    expect(passwordProblem('123456789')).toBe('too_short');
    expect(passwordProblem('1234567890')).toBeUndefined();
    expect(passwordProblem('ñ'.repeat(256))).toBeUndefined();
    expect(passwordProblem('x'.repeat(257))).toBe('too_long');
  });
});
