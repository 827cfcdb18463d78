import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { QueryReader } from '#lib/http/query-params.ts';
import { readAvailability } from '#lib/data-flow/read.ts';

/**
 * GET /v1/data-availability → { items: [{ id, from, to, lastAt, items, gaps: [{ from, to }], isStale,
 * staleAfterHours, error }] }: every data source of the registry (src/lib/data-flow/registry.ts).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url) => {
    new QueryReader(url.searchParams, []);
    const sources = await readAvailability(tx);
    return {
      items: sources.map((s) => ({
        id: s.id,
        from: s.coverage?.from ?? null,
        to: s.coverage?.to ?? null,
        lastAt: s.coverage?.lastAt ?? null,
        items: s.coverage?.items ?? 0,
        gaps: s.coverage?.gaps ?? [],
        isStale: s.isStale,
        staleAfterHours: s.staleAfterHours,
        error: s.error,
      })),
    };
  });
