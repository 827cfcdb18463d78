// Plan limits and feature flags held on the server, on PGlite and Postgres: a
// Starter tenant creating API tokens and exports in parallel never passes its limit, revoking a token
// frees its place, and a feature the plan lacks is refused with the plan named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, revokeApiToken } from '#lib/auth/api-tokens.ts';
import type { Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import {
  assertFeatureEnabled,
  consumeUsage,
  currentPlan,
  DEMO_PLANS,
  featureAccess,
  setTenantPlan,
} from '#lib/plans/plans.ts';
import { A, B, ids, principal, seedAccessFixtures } from './access-fixtures.ts';

describe.each(testDbKinds())('plan limits on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const adminB = principal(B, ids(2).admin, 'administrator');
  const createToken = (name: string) =>
    db.tenant(B, (tx) => createApiToken(tx, { tenantId: B, createdBy: adminB, name, now: new Date() }));

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedAccessFixtures(db);
    await db.tenant(A, (tx) => setTenantPlan(tx, A, DEMO_PLANS.growth));
    await db.tenant(B, (tx) => setTenantPlan(tx, B, DEMO_PLANS.starter));
  });
  afterAll(() => drop?.());

  it('lets 12 parallel token creations on Starter (limit 2) make exactly 2, refusing the rest with 402 naming plan and limit', async () => {
    const attempts = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => createToken(`parallel ${i}`)));
    const made = attempts.filter((r) => r.status === 'fulfilled');
    const refused = attempts.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(made).toHaveLength(2);
    for (const r of refused) {
      expect(r.reason).toMatchObject({
        code: 'LIMIT_REACHED',
        status: 402,
        details: { reason: 'limit_reached', feature: 'api_tokens', plan: 'Starter', usage_limit: 2, usage: 2 },
      });
      expect(r.reason.message).toMatch(/Starter plan allows 2 tokens/);
    }
    const [{ count }] = await db.tenant(B, (tx) =>
      tx.query<{ count: number }>('select count(*)::int as count from api_tokens where revoked_at is null'),
    );
    expect(count).toBe(2);
    expect((await db.tenant(B, (tx) => currentPlan(tx, B))).find((f) => f.name === 'api_tokens')?.usage).toBe(2);
  });

  it('frees a place when a token is revoked or has expired', async () => {
    const [oldest] = await db.tenant(B, (tx) =>
      tx.query<{ id: string }>('select id from api_tokens where revoked_at is null order by created_at limit 1'),
    );
    await db.tenant(B, (tx) => revokeApiToken(tx, { tenantId: B, id: oldest.id, now: new Date() }));
    await createToken('after revoke');
    await expect(createToken('one too many')).rejects.toMatchObject({ code: 'LIMIT_REACHED' });
    await db.tenant(B, (tx) =>
      tx.query(
        `update api_tokens set expires_at = now() - interval '1 minute' where id = (select id from api_tokens where revoked_at is null order by created_at limit 1)`,
      ),
    );
    await createToken('after expiry');
  });

  it('counts exports atomically: 20 parallel consumers on a limit of 5 take exactly 5', async () => {
    await db.tenant(B, (tx) =>
      setTenantPlan(
        tx,
        B,
        DEMO_PLANS.starter.map((f) =>
          f.feature === 'exports' ? { ...f, plans: [{ ...f.plans[0], usageLimit: 5 }] } : f,
        ),
      ),
    );
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, () => db.tenant(B, (tx) => consumeUsage(tx, B, 'exports'))),
    );
    expect(attempts.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect((await db.tenant(B, (tx) => currentPlan(tx, B))).find((f) => f.name === 'exports')?.usage).toBe(5);
  });

  it('refuses a feature the plan lacks, naming the plan; allows it on a plan that has it; unknown-plan tenants are not restricted', async () => {
    await expect(db.tenant(B, (tx) => assertFeatureEnabled(tx, B, 'decision_engine'))).rejects.toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      details: { reason: 'not_in_plan', feature: 'decision_engine', plan: 'Starter' },
    });
    expect(await db.tenant(B, (tx) => featureAccess(tx, B, 'sso'))).toEqual({ isEnabled: false, plan: 'Starter' });
    expect(await db.tenant(B, (tx) => featureAccess(tx, B, 'no_such_feature'))).toMatchObject({ isEnabled: false });
    expect(await db.tenant(A, (tx) => featureAccess(tx, A, 'decision_engine'))).toEqual({
      isEnabled: true,
      plan: 'Growth',
    });
    await db.tenant(A, (tx) => tx.query('delete from pricing_features where tenant_id = $1', [A]));
    expect(await db.tenant(A, (tx) => featureAccess(tx, A, 'decision_engine'))).toEqual({
      isEnabled: true,
      plan: null,
    });
  });

  it('refuses to consume a metered feature that the plan disables', async () => {
    await db.tenant(B, (tx) =>
      setTenantPlan(
        tx,
        B,
        DEMO_PLANS.starter.map((f) =>
          f.feature === 'exports' ? { ...f, plans: [{ ...f.plans[0], enabled: false }] } : f,
        ),
      ),
    );
    await expect(db.tenant(B, (tx) => consumeUsage(tx, B, 'exports'))).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'not_in_plan' },
    });
  });
});
