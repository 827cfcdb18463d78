/** Page glue of /loans/collaterals/**: who asks, their scope, the tenant's currency and business date. */
import type { AstroGlobal } from 'astro';
import { allowedActions, type ActionsOf } from '#lib/auth/allowed-actions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { resolveScopeNodes } from '#lib/tenancy/scope.ts';
import { tenantMoneyDay } from '#lib/tenancy/tenant.ts';
import { pageDb, type Db } from '../../server/db.ts';

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

/** What a collateral's page can offer (src/lib/auth/allowed-actions.ts). */
export type CollateralAction = keyof ActionsOf<'collateral'>;

export function can(ctx: CollateralPageContext | null, action: CollateralAction): boolean {
  return Boolean(ctx && allowedActions(ctx.principal, 'collateral')[action]);
}
