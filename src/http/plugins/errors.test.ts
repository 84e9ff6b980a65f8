import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { DteEngineError } from '../../dte/errors.ts';
import errorsPlugin, { knownError } from './errors.ts';

/**
 * The net under the text policy (issue 30, A): a refusal of the document engine that reaches the
 * edge unmapped is a 400 with the engine's code, message and field, never a 500 internal_error.
 */
describe('the errors plugin and engine refusals', () => {
  it('answers an engine refusal that escaped a service as a 400 naming the field', async () => {
    const app = Fastify({ logger: false });
    await app.register(errorsPlugin);
    app.get('/escape', async () => {
      throw new DteEngineError('invalid_field', 'documentos[0].glosa has control characters', 'documentos[0].glosa');
    });
    app.get('/bug', async () => {
      throw new Error('secret internals');
    });
    const r = await app.inject({ method: 'GET', url: '/escape' });
    expect(r.statusCode).toBe(400);
    expect(r.json().error).toMatchObject({
      code: 'invalid_field',
      message: 'documentos[0].glosa has control characters',
      param: 'documentos[0].glosa',
    });
    // Anything else is still a generic 500 that says nothing of its cause.
    const bug = await app.inject({ method: 'GET', url: '/bug' });
    expect(bug.statusCode).toBeGreaterThanOrEqual(500);
    expect(bug.json().error.code).toBe('internal_error');
    expect(bug.body).not.toContain('secret');
    await app.close();
  });

  it('is the mapping the pages use too', () => {
    const e = knownError(new DteEngineError('unsupported_character', 'x', 'recinto', { codePoint: 0x1f4e6 }));
    expect(e).toMatchObject({ kind: 'invalid_request', code: 'unsupported_character', param: 'recinto', details: { codePoint: 0x1f4e6 } });
    expect(knownError(new Error('x'))).toBeUndefined();
  });
});
