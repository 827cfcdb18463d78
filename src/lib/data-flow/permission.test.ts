import { describe, expect, it } from 'vitest';
import { DEMO_ROLES, allows } from '../auth/permissions.ts';
import { matchRoute } from '../auth/route-manifest.ts';

describe('/data-flow: any integrations or data view permission opens it', () => {
  const rule = matchRoute('/data-flow')!.entry.rule;
  it.each([
    'admin.webhooks.view',
    'admin.events.view',
    'admin.scheduled_exports.view',
    'admin.data_upload.view',
    'admin.data_availability.view',
  ])('%s alone is enough', (key) => {
    expect(allows({ isAdmin: false, authorities: [key] }, rule)).toBe(true);
  });
  it('administrators yes; the other demo roles and unrelated admin keys no', () => {
    expect(allows({ isAdmin: true, authorities: [] }, rule)).toBe(true);
    for (const role of ['loan_officer', 'analyst', 'collector', 'strategist', 'strategy_provider'] as const)
      expect(allows({ isAdmin: false, authorities: DEMO_ROLES[role].authorities }, rule), role).toBe(false);
    expect(allows({ isAdmin: false, authorities: ['admin.users.view', 'admin.resource_usage.view'] }, rule)).toBe(
      false,
    );
    expect(allows(null, rule)).toBe(false);
  });
});
