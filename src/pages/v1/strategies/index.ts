import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { requestStrategyCommand } from '#lib/strategies/commands.ts';
import { STRATEGY_STATUSES, type StrategyStatus } from '#lib/strategies/lifecycle.ts';
import { detailJson, listStrategies, strategyJson } from '#lib/strategies/strategies.ts';

/** GET /v1/strategies?status=draft|live|inactive → { items: [{ id, name, status, liveVersion, openVersion, openStage, … }] }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url) => {
    const raw = url.searchParams.get('status');
    const status = STRATEGY_STATUSES.includes(raw as StrategyStatus) ? (raw as StrategyStatus) : null;
    const items = await listStrategies(tx, { status });
    return {
      items: items.map((s) => ({ ...strategyJson(s), openVersion: s.open_version, openStage: s.open_stage })),
    };
  });

/**
 * POST /v1/strategies { name, description?, note? } → 201 a new strategy (draft, version 1 requested);
 * { strategyId, note? } → 201 a new draft version of a live or inactive strategy (one open version at a time).
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), requestStrategyCommand, {
    answer: (detail) => ({ status: 201, body: detailJson(detail) }),
  });
