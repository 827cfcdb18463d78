import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { QueryReader } from '#lib/http/query-params.ts';
import { readFlow } from '#lib/data-flow/read.ts';

/**
 * GET /v1/data-flow → { at, nodes: [...], links: [{ id, from, to, status (ok|warning|error|idle), day
 * (items in 24 h), month (30 days), lastAt, detail, href }] }.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url) => {
    new QueryReader(url.searchParams, []);
    const flow = await readFlow(tx);
    return {
      at: flow.at,
      nodes: flow.nodes,
      links: flow.links.map((l) => ({
        id: l.id,
        from: l.from,
        to: l.to,
        status: l.status,
        day: l.day,
        month: l.month,
        lastAt: l.lastAt,
        detail: l.detail,
        href: l.href,
      })),
    };
  });
