import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { QueryReader } from '#lib/http/query-params.ts';
import { listRuns, runJson, startRunCommand } from '#lib/data-quality/run.ts';

/** GET /v1/data-quality/runs?limit=10 → { items: [run] }, newest first. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url) => {
    const limit = new QueryReader(url.searchParams, ['limit']).int('limit', { min: 1, max: 20, fallback: 10 });
    return { items: (await listRuns(tx, limit)).map((r) => runJson(r)) };
  });

/**
 * POST /v1/data-quality/runs {} → 202 the run (queued: its job evaluates the rules); 200 the run
 * already queued or running when there is one.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), startRunCommand, {
    answer: ({ run, isNew }) => ({ status: isNew ? 202 : 200, body: runJson(run) }),
  });
