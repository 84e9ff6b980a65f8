import { describe, expect, it } from 'vitest';
import { landingAfterSwitch } from './mode.routes.ts';

describe('where switching modes lands', () => {
  it('lands on the section of the page, never on an object of the other mode', () => {
    expect(landingAfterSwitch('/tenants/5b1b6c1e-0000-4000-8000-000000000000/documents?status=accepted')).toBe('/tenants');
    expect(landingAfterSwitch('/tenants')).toBe('/tenants');
    expect(landingAfterSwitch('/logs/webhooks/abc')).toBe('/logs/webhooks');
    expect(landingAfterSwitch('/webhooks/abc')).toBe('/webhooks');
    expect(landingAfterSwitch('/settings/api-keys?done=created#new-key')).toBe('/settings/api-keys');
    expect(landingAfterSwitch('/settings/members')).toBe('/settings/members');
    expect(landingAfterSwitch('/mailbox/x/raw')).toBe('/mailbox');
  });

  it('lands on the overview for anything else, and never off the site', () => {
    for (const bad of [
      undefined,
      '',
      'https://evil.example/',
      '//evil.example/tenants',
      '/\\evil',
      '/tenantsX',
      '/logout',
      42,
      ['/tenants'],
    ])
      expect(landingAfterSwitch(bad), String(bad)).toBe('/');
  });
});
