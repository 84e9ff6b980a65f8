import { expect, it } from 'vitest';
import { envelopeStage } from './emulator.ts';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 22, 12, 0, 0) + ms);
const envio = (estado: string) => ({ estado, received_at: at(0), ready_at: at(5000) });
const walk = (estado: string) =>
  [0, 999, 1000, 2500, 3999, 4000, 4999, 5000].map((ms) => envelopeStage(envio(estado), at(ms))?.estado ?? estado);

it('walks REC, SOK, CRT, FOK, PDR (the collection spelling), one fifth of the delay each, then shows the verdict', () => {
  expect(walk('EPR')).toEqual(['REC', 'REC', 'SOK', 'CRT', 'FOK', 'PDR', 'PDR', 'EPR']);
  expect(envelopeStage(envio('EPR'), at(4500))).toEqual({ estado: 'PDR', glosa: 'Envío en Proceso' });
});

it('shows a rejection at the stage that failed instead of passing it', () => {
  expect(walk('RSC')).toEqual(['REC', 'REC', 'RSC', 'RSC', 'RSC', 'RSC', 'RSC', 'RSC']);
  expect(walk('RCT')).toEqual(['REC', 'REC', 'SOK', 'RCT', 'RCT', 'RCT', 'RCT', 'RCT']);
  expect(walk('RFR')).toEqual(['REC', 'REC', 'SOK', 'CRT', 'RFR', 'RFR', 'RFR', 'RFR']);
});

it('has no stages without a processing delay', () => {
  expect(envelopeStage({ estado: 'EPR', received_at: at(0), ready_at: at(0) }, at(0))).toBeUndefined();
});
