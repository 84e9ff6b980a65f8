import type { SiiKeys } from '../dte/index.ts';

/**
 * The keys a tenant's CAFs must verify with: a test tenant's may be the built-in emulator's, a live
 * tenant's never, unless the emulator is the installation's provider (docs/design.md "Test mode").
 */
export interface CafTrustByMode {
  cafKeys: SiiKeys;
  /** Absent: test tenants trust what live ones do. */
  testCafKeys?: SiiKeys | undefined;
}

export const cafKeysFor = (trust: CafTrustByMode, tenant: { livemode: boolean }): SiiKeys =>
  tenant.livemode ? trust.cafKeys : (trust.testCafKeys ?? trust.cafKeys);
