import type { APIRoute } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createEventSinkCommand } from '#lib/sinks/commands.ts';
import { isSinkType } from '#lib/sinks/settings.ts';
import { listSinkViews, sinkJson } from '#lib/sinks/store.ts';

/**
 * GET /v1/event-sinks[?type=postgres|bigquery|fineract] → { items: [sink] }: each with its masked
 * settings hint, status, figures (lag, throughput) and last error; never the connection settings.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url) => {
    const type = url.searchParams.get('type');
    if (type !== null && !isSinkType(type))
      throw new AppError('BAD_REQUEST', 'type must be postgres, bigquery or fineract', { field: 'type' });
    return { items: await listSinkViews(tx, type ?? undefined) };
  });

/**
 * POST /v1/event-sinks { type, name, events?: ["loan.*", …], …settings } → 201 the sink (settings
 * masked). Settings per type: postgres { connectionString, schema? }; bigquery { projectId, dataset,
 * credentials (the JSON key as text), apiEndpoint? (only with ALLOW_PRIVATE_TARGETS) }; fineract
 * { baseUrl, tenantIdentifier?, username, password, officeId?, loanProductId }. A private or loopback
 * host is a 400 naming the field. The first delivery run is queued at once.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createEventSinkCommand, {
    answer: (sink) => ({ status: 201, body: sinkJson(sink) }),
  });
