import type { TestModeMessages } from './testmode.es.ts';

/** English texts of test mode; typed against the Spanish ones. */
export const testModeEn: TestModeMessages = {
  banner: 'Test mode — you are viewing test data; nothing reaches the SII.',
  bannerLive: 'Back to live data',
  switchLabel: 'Test data',
  switchOn: 'View test data',
  switchOff: 'View live data',
  keysTest: 'These are the test keys (sk_test_…): their companies use the built-in emulator and nothing reaches the SII.',
  keysLive: 'These are the live keys (sk_live_…). Test keys are in test mode.',
  keysHelp: 'Send a key as Authorization: Bearer sk_test_… on every API call.',
  provider: 'Built-in emulator (test mode: nothing reaches the SII)',
  providerHint: 'In test mode documents always go to the built-in emulator, whatever this option says.',
  onlyInTest: 'in test mode only',
  policyNote: 'Test mode widens what each role may do: a developer may do with test data what an operator does with live data.',
  forbiddenTryTest: 'Your role may do this with test data: switch to test mode.',
};
