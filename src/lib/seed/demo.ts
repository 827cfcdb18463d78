import type { Db, Tx } from '../db/index.ts';
import { seedE2eDecisionModel } from './e2e-decision-model.ts';
import { seedE2eAmountRulesModel } from './e2e-decisioning.ts';
import { seedE2eSubmissions } from './e2e-submissions.ts';
import { DEMO_ROLES, type DemoRole } from '../auth/permissions.ts';
import { assertPasswordAllowed, DEFAULT_PASSWORD_POLICY, hashPassword } from '../auth/passwords.ts';
import { DEMO_PLANS, seedDemoPlans, setTenantPlan } from '../plans/plans.ts';
import { seedDemoHistory } from '../simulator/demo-history.ts';
import { seedDemoTeamWork } from './demo-team-work.ts';
import { refreshCollectionCases } from '../collection/cases.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { seedDemoOffers } from './demo-offers.ts';
import { seedDemoTemplates } from './demo-templates.ts';
import { seedDemoCustomFields } from './demo-custom-fields.ts';
import { seedDemoStrategies } from './demo-strategies.ts';
// Issue 13, public application page: the demo's published application form.
import { seedDemoApplicationForm } from './demo-application-form.ts';
import { seedDemoCollectionWorkflows } from './demo-collection-workflows.ts';
import type { HierarchyNodesRow, RolesRow, UsersRow } from '../db/schema.generated.ts';

export type DemoOptions = { password: string };

/** Fixed ids so tests, docs and bookmarks can name demo rows. */
export const DEMO_TENANTS = { demo: 'demo-eu1', acme: 'acme-us1' } as const;

type DemoUser = {
  email: string;
  displayName: string;
  language: string;
  roles: DemoRole[];
  dataPermissions?: { field: string; value: string }[];
  /** Officer node (hierarchy) this user is, under the given branch code. */
  officerOfBranch?: string;
};

type DemoHierarchy = {
  regions: {
    code: string;
    name: string;
    branches: { code: string; name: string; officers: { code: string; name: string; email?: string }[] }[];
  }[];
};

const DEMO_HIERARCHY: DemoHierarchy = {
  regions: [
    {
      code: 'IDF',
      name: 'Île-de-France',
      branches: [
        {
          code: 'PAR-01',
          name: 'Paris Centre',
          officers: [
            { code: 'OFF-PAR-01', name: 'Olivia Officer', email: 'officer@demo.test' },
            { code: 'OFF-PAR-02', name: 'Antoine Agent', email: 'agent.fr@demo.test' },
          ],
        },
        { code: 'PAR-02', name: 'Paris Nord', officers: [{ code: 'OFF-PAR-03', name: 'Nadia Benali' }] },
      ],
    },
    {
      code: 'ARA',
      name: 'Auvergne-Rhône-Alpes',
      branches: [{ code: 'LYO-01', name: 'Lyon Part-Dieu', officers: [{ code: 'OFF-LYO-01', name: 'Louis Martin' }] }],
    },
  ],
};

const ACME_HIERARCHY: DemoHierarchy = {
  regions: [
    {
      code: 'NE',
      name: 'Northeast',
      branches: [
        { code: 'NYC-01', name: 'New York Midtown', officers: [{ code: 'OFF-NYC-01', name: 'Maria Lopez' }] },
        { code: 'BOS-01', name: 'Boston', officers: [{ code: 'OFF-BOS-01', name: 'James Carter' }] },
      ],
    },
    {
      code: 'SO',
      name: 'South',
      branches: [{ code: 'ATL-01', name: 'Atlanta', officers: [{ code: 'OFF-ATL-01', name: 'Grace Kim' }] }],
    },
  ],
};

const DEMO_USERS: DemoUser[] = [
  { email: 'admin@demo.test', displayName: 'Alice Admin', language: 'en-US', roles: ['administrator'] },
  {
    email: 'officer@demo.test',
    displayName: 'Olivia Officer',
    language: 'en-US',
    roles: ['loan_officer'],
    dataPermissions: [{ field: 'branch', value: 'PAR-01' }],
  },
  { email: 'analyst@demo.test', displayName: 'Arthur Analyst', language: 'en-US', roles: ['analyst'] },
  { email: 'collector@demo.test', displayName: 'Chloé Collector', language: 'en-US', roles: ['collector'] },
  { email: 'strategist@demo.test', displayName: 'Sam Strategist', language: 'en-US', roles: ['strategist'] },
  { email: 'provider@demo.test', displayName: 'Priya Provider', language: 'en-US', roles: ['strategy_provider'] },
  {
    email: 'agent.fr@demo.test',
    displayName: 'Antoine Agent',
    language: 'fr-FR',
    roles: ['loan_officer'],
    dataPermissions: [{ field: 'branch', value: 'PAR-01' }],
  },
];

const ACME_USERS: DemoUser[] = [
  { email: 'admin@acme.test', displayName: 'Adam Acme', language: 'en-US', roles: ['administrator'] },
];

/**
 * Idle auto-logout for the demo tenants (auto_logout.timeout; admins use their own
 * session_timeout). Longer than the 60-second default so a visitor can read a page; tests that
 * exercise idle logout configure a short one themselves.
 */
const DEMO_IDLE_SECONDS = 1800;

async function seedTenantPeople(
  tx: Tx,
  tenantId: string,
  hierarchy: DemoHierarchy,
  users: DemoUser[],
  passwordHash: string,
): Promise<void> {
  const roleIds = new Map<DemoRole, string>();
  for (const [key, role] of Object.entries(DEMO_ROLES) as [DemoRole, (typeof DEMO_ROLES)[DemoRole]][]) {
    const [row] = await tx.query<Pick<RolesRow, 'id'>>(
      'insert into roles (tenant_id, name, description, is_admin, authorities) values ($1, $2, $3, $4, $5) returning id',
      [tenantId, role.name, role.description, role.isAdmin, [...role.authorities]],
    );
    roleIds.set(key, row.id);
  }
  const userIds = new Map<string, string>();
  for (const user of users) {
    const [row] = await tx.query<Pick<UsersRow, 'id'>>(
      `insert into users (tenant_id, email, display_name, language, password_hash, session_timeout) values ($1, $2, $3, $4, $5, $6) returning id`,
      [tenantId, user.email, user.displayName, user.language, passwordHash, DEMO_IDLE_SECONDS],
    );
    userIds.set(user.email, row.id);
    for (const role of user.roles) {
      await tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
        tenantId,
        row.id,
        roleIds.get(role),
      ]);
    }
    for (const permission of user.dataPermissions ?? []) {
      await tx.query('insert into user_data_permissions (tenant_id, user_id, field, value) values ($1, $2, $3, $4)', [
        tenantId,
        row.id,
        permission.field,
        permission.value,
      ]);
    }
  }
  for (const region of hierarchy.regions) {
    const [regionRow] = await tx.query<Pick<HierarchyNodesRow, 'id'>>(
      `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'region', $2, $3) returning id`,
      [tenantId, region.code, region.name],
    );
    for (const branch of region.branches) {
      const [branchRow] = await tx.query<Pick<HierarchyNodesRow, 'id'>>(
        `insert into hierarchy_nodes (tenant_id, level, parent_id, code, name) values ($1, 'branch', $2, $3, $4) returning id`,
        [tenantId, regionRow.id, branch.code, branch.name],
      );
      for (const officer of branch.officers) {
        await tx.query(
          `insert into hierarchy_nodes (tenant_id, level, parent_id, code, name, user_id) values ($1, 'officer', $2, $3, $4, $5)`,
          [
            tenantId,
            branchRow.id,
            officer.code,
            officer.name,
            officer.email ? (userIds.get(officer.email) ?? null) : null,
          ],
        );
      }
    }
  }
}

/**
 * Seeds the two demo tenants on an empty database; a database that already has tenants is left
 * alone. Returns whether it seeded. Tenant `demo` (EUR, French and English, fr-FR) and tenant
 * `acme` (USD, English), their regions → branches → officers, the demo roles of
 * src/lib/auth/permissions.ts and the accounts listed in the README, all with `options.password`
 * (hashed once with Argon2id and reused, so seeding stays fast).
 */
export async function seedDemo(db: Db, options: DemoOptions): Promise<boolean> {
  const [{ count }] = await db.system((tx) =>
    tx.query<{ count: number }>('select count(*)::int as count from tenants'),
  );
  if (count > 0) return false;
  // The demo accounts obey the same password rule as everyone (a weak DEMO_PASSWORD stops the seed).
  assertPasswordAllowed(options.password, DEFAULT_PASSWORD_POLICY, 'DEMO_PASSWORD', {
    email: 'admin@demo.test',
    tenantName: 'Demo Lending',
    tenantSlug: 'demo',
  });
  const passwordHash = await hashPassword(options.password);
  await db.owner(async (tx) => {
    const config = JSON.stringify({ auto_logout: { timeout: DEMO_IDLE_SECONDS } });
    await tx.query(
      `insert into tenants (id, slug, name, currency, locale, time_zone, languages, default_language, business_date, config) values
       ($1, 'demo', 'Demo Lending', 'EUR', 'fr-FR', 'Europe/Paris', array['en','fr'], 'en', current_date, $3::jsonb),
       ($2, 'acme', 'Acme Credit', 'USD', 'en-US', 'America/New_York', array['en'], 'en', current_date, $3::jsonb)`,
      [DEMO_TENANTS.demo, DEMO_TENANTS.acme, config],
    );
    await seedTenantPeople(tx, DEMO_TENANTS.demo, DEMO_HIERARCHY, DEMO_USERS, passwordHash);
    await seedTenantPeople(tx, DEMO_TENANTS.acme, ACME_HIERARCHY, ACME_USERS, passwordHash);
    await seedDemoPlans(tx, { growth: [DEMO_TENANTS.demo], starter: [DEMO_TENANTS.acme] });
    if (process.env.E2E === '1') {
      await seedE2eFixtures(tx, passwordHash);
      await seedE2eDecisionModel(tx, DEMO_TENANTS.demo);
      await seedE2eAmountRulesModel(tx, DEMO_TENANTS.demo);
      // Issue 13, submissions: a published form with submissions and a file.
      await seedE2eSubmissions(tx, DEMO_TENANTS.demo);
    }
  });
  // Issue 14: message templates first, the collection workflows of the history send them.
  await seedDemoTemplates(db, [DEMO_TENANTS.demo, DEMO_TENANTS.acme]);
  // Issue 14, collection workflows: seeded before the history so its closes run them.
  await seedDemoCollectionWorkflows(db, [DEMO_TENANTS.demo, DEMO_TENANTS.acme]);
  await seedDemoHistory(db, [DEMO_TENANTS.demo, DEMO_TENANTS.acme]);
  // Issue 14: the collection worklist of the history's overdue loans (the daily close keeps it afterwards).
  for (const id of [DEMO_TENANTS.demo, DEMO_TENANTS.acme])
    await db.tenant(id, async (tx) => refreshCollectionCases(tx, id, await businessDate(tx, id)));
  // Offers for officer@demo.test (branch PAR-01) to notify: the history notifies all of its own.
  await seedDemoOffers(db, DEMO_TENANTS.demo, { branchCode: 'PAR-01', count: 3 });
  // The demo credit policy, a live strategy (and its first offers, with their why) and a draft strategy.
  await seedDemoStrategies(db, DEMO_TENANTS.demo);
  // Customized fields (issue 13): a few fields with values on some demo rows.
  await seedDemoCustomFields(db, DEMO_TENANTS.demo);
  // Issue 13, public application page: /application/demo-personal-loan (EN/FR), the demo's personal loan.
  await seedDemoApplicationForm(db, DEMO_TENANTS.demo, 'demo-personal-loan');
  // Issue 14: promises, tasks, conversations, and the one-branch officer's applications and collaterals.
  await seedDemoTeamWork(db, DEMO_TENANTS.demo, { branchCode: 'PAR-01' });
  await seedDemoTeamWork(db, DEMO_TENANTS.acme, { branchCode: 'NYC-01' });
  return true;
}

/** The lender that the browser tests sign in to through single sign-on (only with E2E=1). */
export const E2E_SSO_TENANT = { id: 'e2esso-t1', slug: 'sso', name: 'SSO Test Lender' } as const;

/** The lender with a short idle timeout for the idle-logout browser test (only with E2E=1). */
export const E2E_IDLE_TENANT = { id: 'e2eidle-t1', slug: 'idle', name: 'Idle Test Lender', idleSeconds: 4 } as const;

/**
 * The lender of the security browser tests (only with E2E=1): a Starter plan without exports and
 * analytics reports (so a disabled feature has pages and an API to refuse), and its own accounts for
 * the redirect and password probes, so those tests change nothing other tests rely on.
 */
export const E2E_PLANS_TENANT = {
  id: 'e2eplans-t1',
  slug: 'plans',
  name: 'Plans Test Lender',
  admin: 'admin@plans.test',
  analystFr: 'analyste@plans.test',
  redirect: 'redirect@plans.test',
  passwords: 'passwords@plans.test',
  passwordsFr: 'mots-de-passe@plans.test',
} as const;

async function seedE2ePlansTenant(tx: Tx, passwordHash: string): Promise<void> {
  const t = E2E_PLANS_TENANT;
  await tx.query(
    `insert into tenants (id, slug, name, currency, locale, time_zone, languages, default_language, business_date, config)
     values ($1, $2, $3, 'EUR', 'en-GB', 'Europe/London', array['en','fr'], 'en', current_date, $4::jsonb)`,
    [t.id, t.slug, t.name, JSON.stringify({ auto_logout: { timeout: DEMO_IDLE_SECONDS } })],
  );
  await seedTenantPeople(
    tx,
    t.id,
    { regions: [] },
    [
      { email: t.admin, displayName: 'Pat Plans', language: 'en-US', roles: ['administrator'] },
      { email: t.analystFr, displayName: 'Paule Plans', language: 'fr-FR', roles: ['analyst'] },
      { email: t.redirect, displayName: 'Rex Redirect', language: 'en-US', roles: ['analyst'] },
      { email: t.passwords, displayName: 'Petra Passwords', language: 'en-US', roles: ['analyst'] },
      { email: t.passwordsFr, displayName: 'Marcel Motdepasse', language: 'fr-FR', roles: ['analyst'] },
    ],
    passwordHash,
  );
  const off = new Set(['exports', 'analytics_reports']);
  await setTenantPlan(
    tx,
    t.id,
    DEMO_PLANS.starter.map((f) =>
      off.has(f.feature) ? { ...f, plans: f.plans.map((p) => ({ ...p, enabled: false })) } : f,
    ),
  );
}

/**
 * Browser-test fixtures, seeded only when the server runs with E2E=1 (playwright.config.ts): accounts
 * whose state the identity tests change (forced password change, MFA enrolment, reset), so they never
 * disturb the demo accounts other tests sign in with, and a third lender whose single sign-on points at
 * the OpenID provider the SSO test starts on E2E_OIDC_ISSUER. Same password as the demo accounts.
 */
async function seedE2eFixtures(tx: Tx, passwordHash: string): Promise<void> {
  const [analyst] = await tx.query<Pick<RolesRow, 'id'>>(`select id from roles where tenant_id = $1 and name = $2`, [
    DEMO_TENANTS.demo,
    DEMO_ROLES.analyst.name,
  ]);
  const accounts = [
    { email: 'e2e.forced@demo.test', forced: true },
    { email: 'e2e.mfa@demo.test', forced: false },
    { email: 'e2e.reset@demo.test', forced: false },
    { email: 'e2e.logout@demo.test', forced: false },
    // Locked on purpose by tests/e2e/security-throttle.spec.ts (TOTP guessing).
    { email: 'e2e.throttle@demo.test', forced: false },
  ];
  for (const account of accounts) {
    const [user] = await tx.query<Pick<UsersRow, 'id'>>(
      `insert into users (tenant_id, email, display_name, password_hash, password_change_required, session_timeout) values ($1, $2, $3, $4, $5, $6) returning id`,
      [DEMO_TENANTS.demo, account.email, account.email.split('@')[0], passwordHash, account.forced, DEMO_IDLE_SECONDS],
    );
    await tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
      DEMO_TENANTS.demo,
      user.id,
      analyst.id,
    ]);
  }
  // A lender whose staff are signed out after a few idle seconds, so the idle-logout test runs on a
  // short configured timeout in real time, browser and server alike.
  await tx.query(
    `insert into tenants (id, slug, name, currency, locale, time_zone, languages, default_language, business_date, config)
     values ($1, $2, $3, 'EUR', 'en-GB', 'Europe/London', array['en'], 'en', current_date, $4::jsonb)`,
    [
      E2E_IDLE_TENANT.id,
      E2E_IDLE_TENANT.slug,
      E2E_IDLE_TENANT.name,
      JSON.stringify({ auto_logout: { timeout: E2E_IDLE_TENANT.idleSeconds } }),
    ],
  );
  await seedTenantPeople(
    tx,
    E2E_IDLE_TENANT.id,
    { regions: [] },
    [{ email: 'idle.user@idle.test', displayName: 'Ida Idle', language: 'en-US', roles: ['analyst'] }],
    passwordHash,
  );
  await seedDemoPlans(tx, { growth: [], starter: [E2E_IDLE_TENANT.id] });
  await seedE2ePlansTenant(tx, passwordHash);
  const issuer = process.env.E2E_OIDC_ISSUER;
  if (!issuer) return;
  const config = {
    auto_logout: { timeout: DEMO_IDLE_SECONDS },
    login: {
      sso: {
        issuer,
        client_id: 'lending-e2e',
        client_secret: 'e2e-client-secret-0123456789abcdef',
        label: 'Sign in with Test IdP',
      },
    },
  };
  await tx.query(
    `insert into tenants (id, slug, name, currency, locale, time_zone, languages, default_language, business_date, config)
     values ($1, $2, $3, 'EUR', 'en-GB', 'Europe/London', array['en'], 'en', current_date, $4::jsonb)`,
    [E2E_SSO_TENANT.id, E2E_SSO_TENANT.slug, E2E_SSO_TENANT.name, JSON.stringify(config)],
  );
  await seedTenantPeople(
    tx,
    E2E_SSO_TENANT.id,
    { regions: [] },
    [{ email: 'sso.user@sso.test', displayName: 'Sasha SSO', language: 'en-US', roles: ['analyst'] }],
    passwordHash,
  );
  // Growth: single sign-on is a plan feature, not in Starter.
  await seedDemoPlans(tx, { growth: [E2E_SSO_TENANT.id], starter: [] });
}
