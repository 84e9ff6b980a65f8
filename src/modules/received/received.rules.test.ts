import { describe, expect, it } from 'vitest';
import { registrationRetryDelayMs } from './received.registration.ts';
import { checkAcceptance, statusOf } from './received.rules.ts';

const DEADLINE = new Date('2026-11-29T15:04:05.000Z');
const doc = (acciones: { accion: string; state: 'pending' | 'registered' | 'refused' | 'failed' }[], tipo_dte = 33) => ({
  tipo_dte,
  acceptance_deadline: DEADLINE,
  status: statusOf(acciones),
  acciones,
});
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'ok';
};

describe('the registro rules as the service applies them', () => {
  it('counts only answers the SII did not refuse', () => {
    expect(statusOf([])).toBe('received');
    expect(statusOf([{ accion: 'ACD', state: 'pending' }])).toBe('accepted');
    expect(statusOf([{ accion: 'RCD', state: 'refused' }])).toBe('received');
    expect(
      statusOf([
        { accion: 'ERM', state: 'registered' },
        { accion: 'RFT', state: 'refused' },
      ]),
    ).toBe('accepted');
    expect(statusOf([{ accion: 'RFP', state: 'failed' }])).toBe('claimed');
  });

  it('answers a repeat as recorded (even after the deadline), then the window, then the conflicts', () => {
    const acd = { accion: 'ACD', state: 'registered' as const };
    const late = new Date(DEADLINE.getTime() + 1);
    expect(checkAcceptance(doc([acd]), 'ACD', late)).toBe(acd);
    expect(code(() => checkAcceptance(doc([acd]), 'ERM', late))).toBe('acceptance_window_closed');
    expect(code(() => checkAcceptance(doc([]), 'ACD', DEADLINE))).toBe('ok');
    expect(code(() => checkAcceptance(doc([acd]), 'RCD', DEADLINE))).toBe('document_already_accepted');
    expect(code(() => checkAcceptance(doc([{ accion: 'RFP', state: 'pending' }]), 'ACD', DEADLINE))).toBe('document_already_claimed');
    expect(code(() => checkAcceptance(doc([{ accion: 'RFP', state: 'refused' }]), 'ACD', DEADLINE))).toBe('ok');
    expect(code(() => checkAcceptance(doc([{ accion: 'RFP', state: 'pending' }]), 'RCD', DEADLINE))).toBe('ok');
    expect(code(() => checkAcceptance(doc([], 61), 'ACD', DEADLINE))).toBe('acceptance_not_applicable');
  });

  it('waits 1 min after a failed attempt, doubling to 2 h', () => {
    expect([1, 2, 3, 7, 8, 30].map(registrationRetryDelayMs)).toEqual([60_000, 120_000, 240_000, 3_840_000, 7_200_000, 7_200_000]);
  });
});
