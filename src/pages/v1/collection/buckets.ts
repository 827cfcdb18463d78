import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { listBuckets, saveBucketsCommand } from '#lib/collection/admin.ts';

/** GET /v1/collection/buckets → { items }: the tenant's collection buckets in order. */
export const GET: APIRoute = (context) => query(apiContext(context), async (tx) => ({ items: await listBuckets(tx) }));

/**
 * PUT /v1/collection/buckets { buckets: [{ id?, name, minDays, maxDays|null }] } → { items }: replaces the
 * list (contiguous ranges from day 1, only the last open-ended, unique names; a bucket a workflow uses
 * cannot be removed: 409).
 */
export const PUT: APIRoute = (context) =>
  commandEndpoint(apiContext(context), saveBucketsCommand, { answer: (items) => ({ status: 200, body: { items } }) });
