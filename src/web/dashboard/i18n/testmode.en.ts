import type { TestModeMessages } from './testmode.es.ts';

/** English texts of test mode; typed against the Spanish ones. */
export const testModeEn: TestModeMessages = {
  banner: 'Test mode — you are viewing test data; nothing reaches the SII.',
  bannerLive: 'Back to live data',
  switchLabel: 'Test data',
  switchOn: 'View test data',
  switchOff: 'View live data',
  liveBadge: 'Live',
  testBadge: 'Test',
  switchedTest: 'You are now viewing your account’s test data. Nothing you do here reaches the SII.',
  switchedLive: 'You are now viewing your account’s live data.',
  keysTest: 'These are the test keys (sk_test_…): their companies use the built-in emulator and nothing reaches the SII.',
  keysLive: 'These are the live keys (sk_live_…). Test keys are in test mode.',
  onlyInTest: 'in test mode only',
  policyNote: 'Test mode widens what each role may do: a developer may do with test data what an operator does with live data.',
  forbiddenTryTest: 'Your role may do this with test data: switch to test mode.',
  forbiddenInTest: 'This is in test mode.',
};
