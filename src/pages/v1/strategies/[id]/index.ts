import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { detailJson, strategyDetail } from '#lib/strategies/strategies.ts';

/** GET /v1/strategies/{id} → the strategy, its open draft and live version, the last simulation and the lifecycle's dry run for the caller. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor) =>
    detailJson(await strategyDetail(tx, context.params.id ?? '', actor.userId)),
  );
