/**
 * Test mode's scopes (docs/design.md "Test mode"). Each account has two scopes: its live one (the
 * account's own id) and its test one (the id of its test twin, a second `accounts` row made on
 * first use). Every other module stores and reads by scope id, so the two modes never meet.
 */
export type Mode = 'live' | 'test';

export interface Scope {
  /** What stores scope by (`account_id`): the account's id in live mode, its twin's in test mode. */
  id: string;
  /** The account itself (its live id), whatever the mode: members, sessions and the account's settings. */
  accountId: string;
  livemode: boolean;
}

export const modeOf = (livemode: boolean): Mode => (livemode ? 'live' : 'test');

export const isMode = (v: unknown): v is Mode => v === 'live' || v === 'test';
