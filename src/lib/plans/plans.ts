/**
 * Pricing plans per tenant (feature flags and usage limits; tables of
 * migration 0011). GET /v1/pricing-plans/current serves `currentPlan`; the islands' $plan store
 * applies isFeatureEnabled / isUsageLimitReached from src/lib/auth/permissions.ts, and the server
 * applies the SAME rules through `assertWithinLimit` / `consumeUsage`, so a limit holds even for a
 * caller that skips the UI.
 */
import { type PricingFeature, isUsageLimitReached } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import type { PricingUsageRow } from '../db/schema.generated.ts';

type TenantRef = string | { id: string };
const idOf = (tenant: TenantRef) => (typeof tenant === 'string' ? tenant : tenant.id);

/**
 * Features whose usage is a count of existing rows rather than a stored counter. The SQL runs in the
 * tenant's transaction (row-level security scopes it).
 */
const DERIVED_USAGE: Record<string, string> = {
  users: 'select count(*)::int as used from users where is_active',
  // Tokens in force: revoking or letting one expire frees its place.
  api_tokens:
    'select count(*)::int as used from api_tokens where revoked_at is null and (expires_at is null or expires_at > now())',
};

type FeatureRow = { name: string; supports_usage_limit: boolean; usage_unit: string | null; used: bigint | null };
type PlanRow = {
  feature_name: string;
  plan_name: string;
  enabled: boolean;
  unlimited: boolean;
  usage_limit: bigint | null;
};

export type CurrentFeature = PricingFeature & {
  plans: { name: string; enabled: boolean; unlimited: boolean; usage_limit: number | null }[];
  usage: number;
};

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
        .map((p) => ({
          name: p.plan_name,
          enabled: p.enabled,
          unlimited: p.unlimited,
          usage_limit: p.usage_limit === null ? null : Number(p.usage_limit),
        })),
    });
  }
  return out;
}

export type FeatureAccess = { isEnabled: boolean; plan: string | null };

/**
 * Whether the tenant's plan includes a feature, and the plan's name. A tenant with a plan that does
 * not list the feature does not have it (fail closed). A tenant with no plan at all
 * (created by an operator script without one) is not restricted: plans are a commercial layer, and
 * such a tenant has nothing to be held to.
 */
export async function featureAccess(tx: Tx, tenant: TenantRef, feature: string): Promise<FeatureAccess> {
  const [row] = await tx.query<{ has_plan: boolean; enabled: boolean | null; plan_name: string | null }>(
    `select exists (select 1 from pricing_features where tenant_id = $1) as has_plan,
            (select p.enabled from pricing_plans p where p.tenant_id = $1 and p.feature_name = $2 order by p.position limit 1) as enabled,
            coalesce((select p.plan_name from pricing_plans p where p.tenant_id = $1 and p.feature_name = $2 order by p.position limit 1),
                     (select p.plan_name from pricing_plans p where p.tenant_id = $1 order by p.position, p.feature_name limit 1)) as plan_name`,
    [idOf(tenant), feature],
  );
  if (!row?.has_plan) return { isEnabled: true, plan: null };
  return { isEnabled: row.enabled === true, plan: row.plan_name };
}

/** Throws FORBIDDEN (details: feature, plan, reason 'not_in_plan') when the feature is not in the tenant's plan. */
export async function assertFeatureEnabled(tx: Tx, tenant: TenantRef, feature: string): Promise<void> {
  const access = await featureAccess(tx, tenant, feature);
  if (!access.isEnabled) {
    throw new AppError(
      'FORBIDDEN',
      `Your ${access.plan ?? 'current'} plan does not include ${feature.replaceAll('_', ' ')}.`,
      {
        details: { reason: 'not_in_plan', feature, plan: access.plan },
      },
    );
  }
}

function limitReached(feature: string, usage: number, features: CurrentFeature[]): AppError {
  const f = features.find((x) => x.name === feature);
  const plan = f?.plans[0]?.name ?? null;
  const limit = f?.plans[0]?.usage_limit ?? 0;
  return new AppError(
    'LIMIT_REACHED',
    `Your ${plan ?? 'current'} plan allows ${limit} ${f?.usage_unit ?? feature.replaceAll('_', ' ')}; ${usage} in use.`,
    {
      details: { reason: 'limit_reached', feature, usage, usage_limit: limit, plan },
    },
  );
}

/**
 * Throws LIMIT_REACHED (HTTP 402) when the feature's usage limit is reached (the rule: supports
 * limits, first plan not unlimited, usage ≥ usage_limit, default 0). Unknown features are not limited.
 * Call it inside the transaction that creates the thing being counted.
 */
export async function assertWithinLimit(tx: Tx, tenant: TenantRef, feature: string): Promise<void> {
  const features = await currentPlan(tx, tenant);
  if (isUsageLimitReached(features, feature))
    throw limitReached(feature, features.find((x) => x.name === feature)?.usage ?? 0, features);
}

/**
 * Takes `amount` units of a metered feature after checking its limit, race-free: the feature's usage
 * row is locked (`for update`) for the rest of the caller's transaction, so concurrent consumers of
 * the same tenant and feature queue there and each counts after the previous one committed (read
 * committed: every statement sees what committed before it). Call it in the transaction that creates
 * the thing being counted, before creating it:
 *  - a stored counter (exports) is incremented here; a rollback gives the units back;
 *  - a derived count (users, api_tokens: rows in force) is counted after taking the lock, and the
 *    caller's insert is what uses the unit.
 * Unknown features are not limited and not counted.
 */
export async function consumeUsage(tx: Tx, tenant: TenantRef, feature: string, amount = 1): Promise<void> {
  const tenantId = idOf(tenant);
  const [known] = await tx.query('select 1 from pricing_features where tenant_id = $1 and name = $2', [
    tenantId,
    feature,
  ]);
  if (!known) return;
  await tx.query('insert into pricing_usage (tenant_id, feature_name) values ($1, $2) on conflict do nothing', [
    tenantId,
    feature,
  ]);
  const [row] = await tx.query<Pick<PricingUsageRow, 'used'>>(
    'select used from pricing_usage where tenant_id = $1 and feature_name = $2 for update',
    [tenantId, feature],
  );
  const derived = await derivedUsage(tx, feature);
  const usage = derived ?? Number(row.used);
  const features = await currentPlan(tx, tenantId);
  const first = features.find((x) => x.name === feature)?.plans[0];
  if (first && !first.enabled) await assertFeatureEnabled(tx, tenantId, feature);
  // Taking `amount` units is allowed when the last of them (usage + amount - 1) is still under the limit.
  if (isUsageLimitReached(features, feature, usage + amount - 1)) throw limitReached(feature, usage, features);
  if (derived === null) {
    await tx.query(
      'update pricing_usage set used = used + $3, updated_at = now() where tenant_id = $1 and feature_name = $2',
      [tenantId, feature, amount],
    );
  }
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
    {
      feature: 'users',
      supportsUsageLimit: true,
      usageUnit: 'users',
      plans: [
        { name: 'Growth', enabled: true, unlimited: false, usageLimit: 50 },
        { name: 'Enterprise', enabled: true, unlimited: true, usageLimit: null },
      ],
    },
    {
      feature: 'exports',
      supportsUsageLimit: true,
      usageUnit: 'exports',
      plans: [{ name: 'Growth', enabled: true, unlimited: false, usageLimit: 1000 }],
    },
    {
      feature: 'api_tokens',
      supportsUsageLimit: true,
      usageUnit: 'tokens',
      plans: [{ name: 'Growth', enabled: true, unlimited: false, usageLimit: 20 }],
    },
    {
      feature: 'strategies',
      supportsUsageLimit: false,
      usageUnit: null,
      plans: [{ name: 'Growth', enabled: true, unlimited: true, usageLimit: null }],
    },
    {
      feature: 'decision_engine',
      supportsUsageLimit: false,
      usageUnit: null,
      plans: [{ name: 'Growth', enabled: true, unlimited: true, usageLimit: null }],
    },
    {
      feature: 'analytics_reports',
      supportsUsageLimit: false,
      usageUnit: null,
      plans: [{ name: 'Growth', enabled: true, unlimited: true, usageLimit: null }],
    },
    {
      feature: 'sso',
      supportsUsageLimit: false,
      usageUnit: null,
      plans: [{ name: 'Growth', enabled: true, unlimited: true, usageLimit: null }],
    },
  ],
  starter: [
    {
      feature: 'users',
      supportsUsageLimit: true,
      usageUnit: 'users',
      plans: [{ name: 'Starter', enabled: true, unlimited: false, usageLimit: 5 }],
    },
    {
      feature: 'exports',
      supportsUsageLimit: true,
      usageUnit: 'exports',
      plans: [{ name: 'Starter', enabled: true, unlimited: false, usageLimit: 100 }],
    },
    {
      feature: 'api_tokens',
      supportsUsageLimit: true,
      usageUnit: 'tokens',
      plans: [{ name: 'Starter', enabled: true, unlimited: false, usageLimit: 2 }],
    },
    {
      feature: 'strategies',
      supportsUsageLimit: false,
      usageUnit: null,
      plans: [{ name: 'Starter', enabled: true, unlimited: true, usageLimit: null }],
    },
    {
      feature: 'decision_engine',
      supportsUsageLimit: false,
      usageUnit: null,
      plans: [{ name: 'Starter', enabled: false, unlimited: false, usageLimit: null }],
    },
    {
      feature: 'analytics_reports',
      supportsUsageLimit: false,
      usageUnit: null,
      plans: [{ name: 'Starter', enabled: true, unlimited: true, usageLimit: null }],
    },
    {
      feature: 'sso',
      supportsUsageLimit: false,
      usageUnit: null,
      plans: [{ name: 'Starter', enabled: false, unlimited: false, usageLimit: null }],
    },
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
        [
          tenantId,
          seed.feature,
          position,
          plan.name,
          plan.enabled,
          plan.unlimited,
          plan.usageLimit === null ? null : BigInt(plan.usageLimit),
        ],
      );
    }
  }
}

/** Called at the end of seedDemo: the two demo tenants' plans. */
export async function seedDemoPlans(tx: Tx, tenants: { growth: string[]; starter: string[] }): Promise<void> {
  for (const id of tenants.growth) await setTenantPlan(tx, id, DEMO_PLANS.growth);
  for (const id of tenants.starter) await setTenantPlan(tx, id, DEMO_PLANS.starter);
}
