import type { APIRoute } from 'astro';
import { databaseHealth } from '#lib/observability/health.ts';
import { pageDb } from '../server/db.ts';

/** Liveness and database reachability, for load balancers. Public. */
export const GET: APIRoute = async () => {
  try {
    const { kind, ms } = await databaseHealth(await pageDb());
    return Response.json({ status: 'ok', database: { kind, reachable: true, ms } });
  } catch {
    return Response.json(
      { status: 'degraded', database: { reachable: false } },
      { status: 503, headers: { 'retry-after': '5' } },
    );
  }
};
