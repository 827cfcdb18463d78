import { z } from 'zod';
import { need } from '../auth/permissions.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { getDb } from '../db/index.ts';
import { defineCommand, runCommand } from '../http/command.ts';
import { errorResponse, json } from '../http/respond.ts';
import { actorFromPrincipal } from '../lending/actor.ts';
import type { ApiContext } from '../lending/api.ts';
import { assertUuid } from '../lending/loans.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { assertLiveStrategy, originate } from './origination.ts';

/**
 * On-demand origination of one live strategy (the "Generate offers now" button of the strategy page).
 * The command checks the permission and that the strategy is live (404 unknown, 409 not live) and
 * reads the business date; the origination itself then runs page by page, each page committed on its
 * own, not in one transaction over the whole tenant.
 */
export const originateStrategyCommand = defineCommand({
  action: 'strategy.originate',
  objectType: 'strategy',
  permission: need('strategies.strategies.implement'),
  input: z.object({ strategyId: z.string() }).strict(),
  run: async (tx, actor, input) => {
    assertUuid(input.strategyId, 'strategyId');
    await assertLiveStrategy(tx, input.strategyId);
    return { strategyId: input.strategyId, businessDate: await businessDate(tx, actor.tenantId) };
  },
});

/** POST /v1/strategies/{id}/originations → 200 { created, refused, skipped, forced, businessDate }. */
export async function originationEndpoint(ctx: ApiContext, strategyId: string): Promise<Response> {
  try {
    const principal = requirePrincipal(ctx.principal);
    const actor = actorFromPrincipal(principal, { ip: ctx.ip, requestId: ctx.requestId });
    const db = ctx.db ?? (await getDb());
    const checked = await runCommand(
      { db, actor, permissionSubject: principal, objectId: strategyId, language: ctx.language },
      originateStrategyCommand,
      () => ({ strategyId }),
    );
    const result = await originate(db, actor, checked);
    return json({
      created: result.created,
      refused: result.refused,
      skipped: result.skipped,
      forced: result.forced,
      businessDate: checked.businessDate,
    });
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}
