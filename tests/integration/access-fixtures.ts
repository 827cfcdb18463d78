// Shared fixtures of the access tests: two tenants in different currencies, each with a hierarchy,
// roles from the demo role map, users and data permissions. Fixed ids so assertions can name rows.
import { DEMO_ROLES, type DemoRole } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import type { Db } from '#lib/db/index.ts';

export const A = 'alpha-eu1';
export const B = 'beta-us1';

const uuid = (tenant: 1 | 2, kind: number, n: number) =>
  `${tenant}${kind}000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** ids[tenant]: region R1, branches B1 (under R1) and B2 (under R2), officers O1 (under B1), O2 (under B2). */
export function ids(tenant: 1 | 2) {
  return {
    r1: uuid(tenant, 1, 1),
    r2: uuid(tenant, 1, 2),
    b1: uuid(tenant, 2, 1),
    b2: uuid(tenant, 2, 2),
    o1: uuid(tenant, 3, 1),
    o2: uuid(tenant, 3, 2),
    admin: uuid(tenant, 4, 1),
    officer: uuid(tenant, 4, 2),
    analyst: uuid(tenant, 4, 3),
    disabledAdmin: uuid(tenant, 4, 4),
  };
}

export async function seedAccessFixtures(db: Db): Promise<void> {
  await db.owner(async (tx) => {
    await tx.query(
      `insert into tenants (id, slug, name, currency, locale, time_zone, languages, business_date, config) values
      ($1, 'alpha', 'Alpha Lending', 'EUR', 'fr-FR', 'Europe/Paris', array['en','fr'], '2026-01-15', '{"auto_logout":{"timeout":300}}'),
      ($2, 'beta', 'Beta Credit', 'USD', 'en-US', 'America/New_York', array['en'], '2026-01-15', '{}')`,
      [A, B],
    );
  });
  for (const [tenantId, t, prefix] of [
    [A, 1, 'A'],
    [B, 2, 'B'],
  ] as const) {
    const i = ids(t);
    await db.tenant(tenantId, async (tx) => {
      await tx.query(
        `insert into hierarchy_nodes (tenant_id, id, level, parent_id, code, name) values
        ($1, $2, 'region', null, $8 || '-R1', $8 || ' Region 1'), ($1, $3, 'region', null, $8 || '-R2', $8 || ' Region 2'),
        ($1, $4, 'branch', $2, $8 || '-B1', $8 || ' Branch 1'), ($1, $5, 'branch', $3, $8 || '-B2', $8 || ' Branch 2'),
        ($1, $6, 'officer', $4, $8 || '-O1', $8 || ' Officer 1'), ($1, $7, 'officer', $5, $8 || '-O2', $8 || ' Officer 2')`,
        [tenantId, i.r1, i.r2, i.b1, i.b2, i.o1, i.o2, prefix],
      );
      const roleId: Partial<Record<DemoRole, string>> = {};
      for (const key of ['administrator', 'loan_officer', 'analyst'] as DemoRole[]) {
        const r = DEMO_ROLES[key];
        const [row] = await tx.query<{ id: string }>(
          'insert into roles (tenant_id, name, is_admin, authorities) values ($1, $2, $3, $4) returning id::text as id',
          [tenantId, `${prefix} ${r.name}`, r.isAdmin, [...r.authorities]],
        );
        roleId[key] = row.id;
      }
      const users: [string, string, string, DemoRole, boolean][] = [
        [i.admin, `admin@${prefix.toLowerCase()}.test`, `${prefix} Admin`, 'administrator', true],
        [i.officer, `officer@${prefix.toLowerCase()}.test`, `${prefix} Officer`, 'loan_officer', true],
        [i.analyst, `analyst@${prefix.toLowerCase()}.test`, `${prefix} Analyst`, 'analyst', true],
        [i.disabledAdmin, `old-admin@${prefix.toLowerCase()}.test`, `${prefix} Former Admin`, 'administrator', false],
      ];
      for (const [id, email, name, role, isActive] of users) {
        await tx.query(
          'insert into users (tenant_id, id, email, display_name, language, is_active, session_timeout) values ($1, $2, $3, $4, $5, $6, 120)',
          [tenantId, id, email, name, t === 1 ? 'fr-FR' : 'en-US', isActive],
        );
        await tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
          tenantId,
          id,
          roleId[role],
        ]);
      }
      await tx.query(
        `insert into user_data_permissions (tenant_id, user_id, field, value) values ($1, $2, 'branch', $3 || '-B1')`,
        [tenantId, i.officer, prefix],
      );
    });
  }
}

export function principal(tenantId: string, userId: string, role: DemoRole, over: Partial<Principal> = {}): Principal {
  const r = DEMO_ROLES[role];
  return {
    tenantId,
    userId,
    displayName: role,
    email: `${role}@x.test`,
    isAdmin: r.isAdmin,
    authorities: r.authorities,
    dataPermissions: [],
    language: 'en-US',
    via: 'session',
    sessionId: 's-1',
    passwordChangeRequired: false,
    sessionTimeout: 60,
    idleTimeout: 60,
    ...over,
  } as Principal;
}
