/** Page glue of /loans/collaterals/**: who asks, their scope, the tenant's currency and business date. */
import type { AstroGlobal } from 'astro';
import { allowedActions, type ActionsOf } from '#lib/auth/allowed-actions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { resolveScopeNodes } from '#lib/tenancy/scope.ts';
import { tenantMoneyDay } from '#lib/tenancy/tenant.ts';
import { pageDb, type Db } from '../../server/db.ts';
import type { Language } from '#lib/i18n/index.ts';
import { collateralTypeName, collateralWarningsOf, listCollateralTypes } from '#lib/lending/collateral-types.ts';

export type CollateralPageContext = {
  db: Db;
  principal: Principal;
  scopeNodes: string[] | null;
  currency: string;
  businessDate: string;
};

export async function collateralContext(Astro: AstroGlobal): Promise<CollateralPageContext | null> {
  const principal = Astro.locals.principal;
  if (!principal) return null;
  const db = await pageDb();
  return db.tenant(principal.tenantId, async (tx) => ({
    db,
    principal,
    scopeNodes: await resolveScopeNodes(tx, principal, null),
    ...(await tenantMoneyDay(tx, principal.tenantId)),
  }));
}

/** The type choices of a collateral form: the active types, and the collateral's own when editing. */
export async function collateralTypeChoices(
  ctx: CollateralPageContext,
  language: Language,
  keep?: string,
): Promise<{ code: string; name: string }[]> {
  const types = await ctx.db.tenant(ctx.principal.tenantId, (tx) => listCollateralTypes(tx));
  return types
    .filter((type) => type.isActive || type.code === keep)
    .map((type) => ({ code: type.code, name: collateralTypeName(type, language) }));
}

/** The LTV and revaluation warnings of one collateral on the business date. */
export async function collateralWarningsFor(ctx: CollateralPageContext, collateralId: string) {
  const map = await ctx.db.tenant(ctx.principal.tenantId, (tx) =>
    collateralWarningsOf(tx, [collateralId], ctx.businessDate),
  );
  return map.get(collateralId);
}

/** What a collateral's page can offer (src/lib/auth/allowed-actions.ts). */
export type CollateralAction = keyof ActionsOf<'collateral'>;

export function can(ctx: CollateralPageContext | null, action: CollateralAction): boolean {
  return Boolean(ctx && allowedActions(ctx.principal, 'collateral')[action]);
}
