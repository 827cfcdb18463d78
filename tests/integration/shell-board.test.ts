import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '#lib/auth/principal.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { createErrorReport } from '#lib/errors/reports.ts';
import { loadBoard } from '#lib/home/board.ts';

// Fixed ids: tenant A (EUR) with two branches and customers in each; tenant B (USD) with one customer.
const A = 'alpha-t1';
const B = 'beta-t1';
const BRANCH_1 = '10000000-0000-4000-8000-000000000001';
const BRANCH_2 = '10000000-0000-4000-8000-000000000002';
const ADMIN = '00000000-0000-4000-8000-0000000000a1';
const OFFICER = '00000000-0000-4000-8000-0000000000a2';
const ANALYST = '00000000-0000-4000-8000-0000000000a3';

function principal(userId: string, over: Partial<Principal>): Principal {
  return {
    tenantId: A,
    userId,
    displayName: 'x',
    email: 'x@alpha.test',
    isAdmin: false,
    authorities: [],
    dataPermissions: [],
    language: 'en-US',
    via: 'session',
    sessionId: null,
    passwordChangeRequired: false,
    sessionTimeout: 60,
    idleTimeout: 60,
    ...over,
  };
}

describe.each(testDbKinds())('home board on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner(async (tx) => {
      await tx.query(`insert into tenants (id, slug, name, currency, business_date) values
        ('${A}', 'alpha', 'Alpha', 'EUR', '2026-01-15'), ('${B}', 'beta', 'Beta', 'USD', '2026-01-15')`);
      await tx.query(`insert into hierarchy_nodes (tenant_id, id, level, code, name) values
        ('${A}', '${BRANCH_1}', 'branch', 'PAR-01', 'Paris'), ('${A}', '${BRANCH_2}', 'branch', 'LYO-01', 'Lyon')`);
      await tx.query(`insert into users (tenant_id, id, email, display_name) values
        ('${A}', '${ADMIN}', 'admin@alpha.test', 'Admin'), ('${A}', '${OFFICER}', 'officer@alpha.test', 'Officer'),
        ('${A}', '${ANALYST}', 'analyst@alpha.test', 'Analyst')`);
      await tx.query(`insert into customers (tenant_id, first_name, last_name, branch_id) values
        ('${A}', 'Ann', 'One', '${BRANCH_1}'), ('${A}', 'Bea', 'Two', '${BRANCH_1}'), ('${A}', 'Cid', 'Three', '${BRANCH_2}'),
        ('${B}', 'Dan', 'Four', null)`);
    });
    await createErrorReport(db, {
      tenantId: A,
      userId: OFFICER,
      report: { message: 'HTTP 500 - Internal Server Error', report_type: 'auto' },
    });
  });
  afterAll(() => drop?.());

  const keys = (cards: { key: string; value: number }[]) => Object.fromEntries(cards.map((c) => [c.key, c.value]));

  it('an administrator sees users, open error reports, all customers and loans of their tenant only', async () => {
    const cards = await loadBoard(db, principal(ADMIN, { isAdmin: true }), {
      downloadsHref: '/admin/user/downloads-list',
    });
    expect(keys(cards)).toEqual({
      users: 3,
      openErrorReports: 1,
      customers: 3,
      activeLoans: 0,
      overdueLoans: 0,
      myDownloads: 0,
    });
  });

  it('an officer limited to one branch counts only that branch’s customers, and sees no admin card', async () => {
    const officer = principal(OFFICER, {
      authorities: ['loans.customers.view'],
      dataPermissions: [{ field: 'branch', value: 'PAR-01' }],
    });
    expect(keys(await loadBoard(db, officer, { downloadsHref: '/loans/user/downloads-list' }))).toEqual({
      customers: 2,
      myDownloads: 0,
    });
  });

  it('a role without lending or admin keys gets no invented numbers, only its own downloads', async () => {
    const analyst = principal(ANALYST, { authorities: ['analytics.overview.view'] });
    expect(await loadBoard(db, analyst, { downloadsHref: '/analytics/user/downloads-list' })).toEqual([
      { key: 'myDownloads', value: 0, href: '/analytics/user/downloads-list' },
    ]);
  });

  // Own profile edits (the profile page's form).
  it('changes only name and language, with one audit row', async () => {
    const { updateOwnProfile } = await import('#lib/home/profile.ts');
    await updateOwnProfile(db, {
      tenantId: A,
      userId: OFFICER,
      input: { display_name: '  Odile Officer ', language: 'fr-FR', email: 'evil@x.test', tenant_id: 'beta-t1' },
    });
    const [row] = await db.tenant(A, (tx) =>
      tx.query<{ display_name: string; language: string; email: string }>(
        'select display_name, language, email from users where id = $1',
        [OFFICER],
      ),
    );
    expect(row).toEqual({ display_name: 'Odile Officer', language: 'fr-FR', email: 'officer@alpha.test' });
    const audit = await db.tenant(A, (tx) =>
      tx.query<{ action: string; before: unknown; after: unknown }>('select action, before, after from audit_log'),
    );
    expect(audit).toEqual([
      {
        action: 'user.update_profile',
        before: { display_name: 'Officer', language: 'en-US' },
        after: { display_name: 'Odile Officer', language: 'fr-FR' },
      },
    ]);
  });

  it('refuses an unknown language and an empty name, naming the field', async () => {
    const { updateOwnProfile } = await import('#lib/home/profile.ts');
    await expect(
      updateOwnProfile(db, { tenantId: A, userId: OFFICER, input: { display_name: 'x', language: 'de-DE' } }),
    ).rejects.toThrow(/language/);
    await expect(
      updateOwnProfile(db, { tenantId: A, userId: OFFICER, input: { display_name: ' ', language: 'en-US' } }),
    ).rejects.toThrow(/display_name|name/);
  });
});
