/**
 * Pricing plans per tenant (spec §3 "Pricing feature", §6 feature flags and usage limits; tables of
 * migration 0011). GET /v1/pricing-plans/current serves `currentPlan`; the islands' $plan store
 * applies isFeatureEnabled / isUsageLimitReached from src/lib/auth/permissions.ts, and the server
 * applies the SAME rules through `assertWithinLimit` / `consumeUsage`, so a limit holds even for a
 * caller that skips the UI.
 */
import { type PricingFeature, isFeatureEnabled, isUsageLimitReached } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';

type TenantRef = string | { id: string };
const idOf = (tenant: TenantRef) => (typeof tenant === 'string' ? tenant : tenant.id);

/**
 * Features whose usage is a count of existing rows rather than a stored counter. The SQL runs in the
 * tenant's transaction (row-level security scopes it).
 */
const DERIVED_USAGE: Record<string, string> = {
  users: 'select count(*)::int as used from users where is_active',
};

type FeatureRow = { name: string; supports_usage_limit: boolean; usage_unit: string | null; used: bigint | null };
type PlanRow = { feature_name: string; plan_name: string; enabled: boolean; unlimited: boolean; usage_limit: bigint | null };

export type CurrentFeature = PricingFeature & { plans: { name: string; enabled: boolean; unlimited: boolean; usage_limit: number | null }[]; usage: number };

async function derivedUsage(tx: Tx, name: string): Promise<number | null> {
  const sql = DERIVED_USAGE[name];
  if (!sql) return null;
  const [row] = await tx.query<{ used: number }>(sql);
  return row?.used ?? 0;
}

/** The tenant's features with their plans (first = the one in force) and current usage. */
export async function currentPlan(tx: Tx, tenant: TenantRef): Promise<CurrentFeature[]> {
  const tenantId = idOf(tenant);
  const features = await tx.query<FeatureRow>(
    `select f.name, f.supports_usage_limit, f.usage_unit, u.used
       from pricing_features f left join pricing_usage u on u.tenant_id = f.tenant_id and u.feature_name = f.name
      where f.tenant_id = $1 order by f.name`,
    [tenantId],
  );
  const plans = await tx.query<PlanRow>(
    'select feature_name, plan_name, enabled, unlimited, usage_limit from pricing_plans where tenant_id = $1 order by feature_name, position',
    [tenantId],
  );
  const out: CurrentFeature[] = [];
  for (const f of features) {
    const usage = (await derivedUsage(tx, f.name)) ?? Number(f.used ?? 0n);
    out.push({
      name: f.name,
      supports_usage_limit: f.supports_usage_limit,
      usage_unit: f.usage_unit,
      usage,
      plans: plans
        .filter((p) => p.feature_name === f.name)
        .map((p) => ({ name: p.plan_name, enabled: p.enabled, unlimited: p.unlimited, usage_limit: p.usage_limit === null ? null : Number(p.usage_limit) })),
    });
  }
  return out;
}

/** Throws FORBIDDEN when the feature is not in the tenant's plan. */
export async function assertFeatureEnabled(tx: Tx, tenant: TenantRef, feature: string): Promise<void> {
  const features = await currentPlan(tx, tenant);
  if (!isFeatureEnabled(features, feature)) {
    throw new AppError('FORBIDDEN', `Your plan does not include ${feature}.`, { details: { feature } });
  }
}

/**
 * Throws LIMIT_REACHED (HTTP 402) when the feature's usage limit is reached (the §6 rule: supports
 * limits, first plan not unlimited, usage ≥ usage_limit, default 0). Unknown features are not limited.
 * Call it inside the transaction that creates the thing being counted.
 */
export async function assertWithinLimit(tx: Tx, tenant: TenantRef, feature: string): Promise<void> {
  const features = await currentPlan(tx, tenant);
  if (isUsageLimitReached(features, feature)) {
    const f = features.find((x) => x.name === feature);
    throw new AppError('LIMIT_REACHED', `Your plan's limit for ${feature} is reached.`, {
      details: { feature, usage: f?.usage ?? 0, usage_limit: f?.plans[0]?.usage_limit ?? 0 },
    });
  }
}

/**
 * Counts `amount` of a stored-counter feature after checking its limit, race-free: the usage row is
 * locked for the rest of the caller's transaction, so two concurrent consumers cannot both take the
 * last unit. A rollback of the caller's transaction gives the units back.
 */
export async function consumeUsage(tx: Tx, tenant: TenantRef, feature: string, amount = 1): Promise<void> {
  const tenantId = idOf(tenant);
  if (DERIVED_USAGE[feature]) throw new Error(`${feature} usage is derived from its rows; call assertWithinLimit`);
  const [known] = await tx.query('select 1 from pricing_features where tenant_id = $1 and name = $2', [tenantId, feature]);
  if (!known) return; // unknown features are not limited (§6) and not counted
  await tx.query('insert into pricing_usage (tenant_id, feature_name) values ($1, $2) on conflict do nothing', [tenantId, feature]);
  const [row] = await tx.query<{ used: bigint }>('select used from pricing_usage where tenant_id = $1 and feature_name = $2 for update', [tenantId, feature]);
  const features = await currentPlan(tx, tenantId);
  // Taking `amount` units is allowed when the last of them (usage + amount - 1) is still under the limit.
  if (isUsageLimitReached(features, feature, Number(row.used) + amount - 1)) {
    const f = features.find((x) => x.name === feature);
    throw new AppError('LIMIT_REACHED', `Your plan's limit for ${feature} is reached.`, {
      details: { feature, usage: Number(row.used), usage_limit: f?.plans[0]?.usage_limit ?? 0 },
    });
  }
  await tx.query('update pricing_usage set used = used + $3, updated_at = now() where tenant_id = $1 and feature_name = $2', [tenantId, feature, amount]);
}

export type PlanSeed = {
  feature: string;
  supportsUsageLimit: boolean;
  usageUnit: string | null;
  plans: { name: string; enabled: boolean; unlimited: boolean; usageLimit: number | null }[];
};

/** Demo plans: `demo` on a Growth plan, `acme` on a Starter plan with tighter limits and no decision engine. */
export const DEMO_PLANS: Record<'growth' | 'starter', PlanSeed[]> = {
  growth: [
    { feature: 'users', supportsUsageLimit: true, usageUnit: 'users', plans: [{ name: 'Growth', enabled: true, unlimited: false, usageLimit: 50 }, { name: 'Enterprise', enabled: true, unlimited: true, usageLimit: null }] },
    { feature: 'exports', supportsUsageLimit: true, usageUnit: 'exports', plans: [{ name: 'Growth', enabled: true, unlimited: false, usageLimit: 1000 }] },
    { feature: 'api_tokens', supportsUsageLimit: true, usageUnit: 'tokens', plans: [{ name: 'Growth', enabled: true, unlimited: false, usageLimit: 20 }] },
    { feature: 'strategies', supportsUsageLimit: false, usageUnit: null, plans: [{ name: 'Growth', enabled: true, unlimited: true, usageLimit: null }] },
    { feature: 'decision_engine', supportsUsageLimit: false, usageUnit: null, plans: [{ name: 'Growth', enabled: true, unlimited: true, usageLimit: null }] },
    { feature: 'analytics_reports', supportsUsageLimit: false, usageUnit: null, plans: [{ name: 'Growth', enabled: true, unlimited: true, usageLimit: null }] },
    { feature: 'sso', supportsUsageLimit: false, usageUnit: null, plans: [{ name: 'Growth', enabled: true, unlimited: true, usageLimit: null }] },
  ],
  starter: [
    { feature: 'users', supportsUsageLimit: true, usageUnit: 'users', plans: [{ name: 'Starter', enabled: true, unlimited: false, usageLimit: 5 }] },
    { feature: 'exports', supportsUsageLimit: true, usageUnit: 'exports', plans: [{ name: 'Starter', enabled: true, unlimited: false, usageLimit: 100 }] },
    { feature: 'api_tokens', supportsUsageLimit: true, usageUnit: 'tokens', plans: [{ name: 'Starter', enabled: true, unlimited: false, usageLimit: 2 }] },
    { feature: 'strategies', supportsUsageLimit: false, usageUnit: null, plans: [{ name: 'Starter', enabled: true, unlimited: true, usageLimit: null }] },
    { feature: 'decision_engine', supportsUsageLimit: false, usageUnit: null, plans: [{ name: 'Starter', enabled: false, unlimited: false, usageLimit: null }] },
    { feature: 'analytics_reports', supportsUsageLimit: false, usageUnit: null, plans: [{ name: 'Starter', enabled: true, unlimited: true, usageLimit: null }] },
    { feature: 'sso', supportsUsageLimit: false, usageUnit: null, plans: [{ name: 'Starter', enabled: false, unlimited: false, usageLimit: null }] },
  ],
};

/** Replaces a tenant's plan with `seeds` (usage counters are kept). */
export async function setTenantPlan(tx: Tx, tenant: TenantRef, seeds: readonly PlanSeed[]): Promise<void> {
  const tenantId = idOf(tenant);
  await tx.query('delete from pricing_plans where tenant_id = $1', [tenantId]);
  for (const seed of seeds) {
    await tx.query(
      `insert into pricing_features (tenant_id, name, supports_usage_limit, usage_unit) values ($1, $2, $3, $4)
       on conflict (tenant_id, name) do update set supports_usage_limit = excluded.supports_usage_limit, usage_unit = excluded.usage_unit`,
      [tenantId, seed.feature, seed.supportsUsageLimit, seed.usageUnit],
    );
    for (const [position, plan] of seed.plans.entries()) {
      await tx.query(
        'insert into pricing_plans (tenant_id, feature_name, position, plan_name, enabled, unlimited, usage_limit) values ($1, $2, $3, $4, $5, $6, $7)',
        [tenantId, seed.feature, position, plan.name, plan.enabled, plan.unlimited, plan.usageLimit === null ? null : BigInt(plan.usageLimit)],
      );
    }
  }
}

/** Called at the end of seedDemo: the two demo tenants' plans. */
export async function seedDemoPlans(tx: Tx, tenants: { growth: string[]; starter: string[] }): Promise<void> {
  for (const id of tenants.growth) await setTenantPlan(tx, id, DEMO_PLANS.growth);
  for (const id of tenants.starter) await setTenantPlan(tx, id, DEMO_PLANS.starter);
}
