import { describe, expect, it } from 'vitest';
import { ProviderError } from '../port.ts';
import { parseAcceptance } from './simpleapi.ts';

/** parseAcceptance: the SII's codResp decides (protocol.ts, REGISTRO_*); the recorded shapes are in contract.test.ts. */
describe('parseAcceptance', () => {
  const answer = (codRespuesta: number, descripcion = 'x') => ({
    response: `<codResp>${codRespuesta}</codResp><descResp>${descripcion}</descResp>`,
    codRespuesta,
    descripcion,
    fechaRecepcion: '0001-01-01T00:00:00',
    detalles: [],
  });

  it('0 and 7 (registered before) are registered; every other code is a refusal with the SII words', () => {
    expect(parseAcceptance(answer(0))).toMatchObject({ outcome: 'registered', codigo: 0 });
    expect(parseAcceptance(answer(7, 'Evento registrado previamente'))).toMatchObject({ outcome: 'registered', codigo: 7 });
    for (const c of [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19])
      expect(parseAcceptance(answer(c, `c${c}`))).toEqual({ outcome: 'refused', codigo: c, descripcion: `c${c}` });
  });

  it('-1 (the SII says to retry later) and an answer without a code are transient failures', () => {
    for (const a of [answer(-1, 'Error Interno'), { ...answer(0), codRespuesta: 'x' as unknown as number }]) {
      let e: unknown;
      try {
        parseAcceptance(a);
      } catch (x) {
        e = x;
      }
      expect(e).toBeInstanceOf(ProviderError);
      expect((e as ProviderError).transient).toBe(true);
    }
  });

  it('reads the words from the SOAP text when the JSON copy is empty', () => {
    expect(parseAcceptance({ ...answer(8, 'Pasados 8 dias'), descripcion: '' }).descripcion).toBe('Pasados 8 dias');
  });
});
