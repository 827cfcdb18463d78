import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { QueryReader } from '#lib/http/query-params.ts';
import { getRun, runJson, runResults } from '#lib/data-quality/run.ts';

/**
 * GET /v1/data-quality/runs/{id} → the run (status, rulesDone/rulesTotal for progress, score) with
 * `results`: per rule { rule, entity, checked, failing, score }. 404 for an unknown id.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url) => {
    new QueryReader(url.searchParams, []);
    const run = await getRun(tx, context.params.id ?? '');
    return runJson(run, await runResults(tx, run.id));
  });
