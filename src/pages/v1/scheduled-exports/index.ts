import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createExportCommand } from '#lib/scheduled-exports/commands.ts';
import { nextRuns } from '#lib/scheduled-exports/cron.ts';
import { exportJson, latestRuns, listScheduledExports, tenantTimeZone } from '#lib/scheduled-exports/model.ts';

/** GET /v1/scheduled-exports → { items: [export with nextRuns (3, ISO) and lastRun] }; no secret is ever answered. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor) => {
    const zone = await tenantTimeZone(tx, actor.tenantId);
    const last = await latestRuns(tx);
    return {
      timeZone: zone,
      items: (await listScheduledExports(tx)).map((e) =>
        exportJson(e, e.isEnabled ? nextRuns(e.cron, zone, 3) : [], last.get(e.id) ?? null),
      ),
    };
  });

/**
 * POST /v1/scheduled-exports { name, source: { kind: "list", list, viewId?, tab?, filters? } | { kind: "query",
 * queryId }, format: "csv"|"xlsx", cron, isEnabled?, targets: { downloads?, email?: { recipients },
 * sftp?: { host, port?, username, password? | privateKey?, directory? }, http?: { url, method?, headerName?,
 * headerValue? } }, alertUserIds?, alertEmails? } → 201 the export. 400 naming the field (a private
 * SFTP host or HTTP URL is refused), 403 when the caller may not export the source.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createExportCommand, {
    answer: (e) => ({ status: 201, body: exportJson(e, []) }),
  });
