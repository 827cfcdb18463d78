import type { APIRoute } from 'astro';
import { getDb } from '../lib/db/index.ts';

/** Liveness and database reachability, for load balancers. Public. */
export const GET: APIRoute = async () => {
  const started = Date.now();
  try {
    const db = await getDb();
    await db.system((tx) => tx.query('select 1'));
    return Response.json({ status: 'ok', database: { kind: db.kind, reachable: true, ms: Date.now() - started } });
  } catch {
    return Response.json({ status: 'degraded', database: { reachable: false } }, { status: 503, headers: { 'retry-after': '5' } });
  }
};
