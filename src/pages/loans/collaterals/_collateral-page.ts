/** Page glue of /loans/collaterals/**: the caller's scope, tenant currency and business date, and the form posts. */
import type { AstroGlobal } from 'astro';
import { getDb, type Db } from '../../../lib/db/index.ts';
import { AppError } from '../../../lib/errors/app-error.ts';
import { formErrorOf } from '../../../lib/errors/messages.ts';
import { allowedActions, type ActionsOf } from '../../../lib/auth/allowed-actions.ts';
import type { Principal } from '../../../lib/auth/principal.ts';
import { actorFromPrincipal, type Actor } from '../../../lib/lending/actor.ts';
import { resolveScopeNodes } from '../../../lib/tenancy/scope.ts';

export type CollateralPageContext = { db: Db; principal: Principal; actor: Actor; scopeNodes: string[] | null; currency: string; businessDate: string };

export async function collateralContext(Astro: AstroGlobal): Promise<CollateralPageContext | null> {
  const principal = Astro.locals.principal;
  if (!principal) return null;
  const db = await getDb();
  return db.tenant(principal.tenantId, async (tx) => {
    const [tenant] = await tx.query<{ currency: string; business_date: string }>(
      `select currency, to_char(business_date, 'YYYY-MM-DD') as business_date from tenants where id = $1`, [principal.tenantId]);
    return {
      db, principal, actor: actorFromPrincipal(principal, { requestId: Astro.locals.requestId }),
      scopeNodes: await resolveScopeNodes(tx, principal, null), currency: tenant.currency.trim(), businessDate: tenant.business_date,
    };
  });
}

/** What a collateral's page can offer (src/lib/auth/allowed-actions.ts). */
export type CollateralAction = keyof ActionsOf<'collateral'>;

export function can(ctx: CollateralPageContext | null, action: CollateralAction): boolean {
  return Boolean(ctx && allowedActions(ctx.principal, 'collateral')[action]);
}

export function need(ctx: CollateralPageContext, action: CollateralAction): void {
  if (!can(ctx, action)) throw new AppError('FORBIDDEN', 'You do not have permission to do this');
}

/** A refused form post: the status, and the field and message in the user's language (messages.ts). */
export function formError(Astro: AstroGlobal, error: unknown): { field?: string; message: string } {
  const refusal = formErrorOf(error, Astro.locals.language);
  if (!refusal) throw error;
  Astro.response.status = refusal.status;
  return { field: refusal.field, message: refusal.message };
}
