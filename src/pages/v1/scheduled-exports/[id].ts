import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { deleteExportCommand, updateExportCommand } from '#lib/scheduled-exports/commands.ts';
import { nextRuns } from '#lib/scheduled-exports/cron.ts';
import { exportJson, getScheduledExport, listRuns, tenantTimeZone } from '#lib/scheduled-exports/model.ts';

/** GET /v1/scheduled-exports/{id} → the export with its next 3 runs and last run (404 when unknown). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor) => {
    const e = await getScheduledExport(tx, context.params.id ?? '');
    const zone = await tenantTimeZone(tx, actor.tenantId);
    const [last] = await listRuns(tx, e.id, 1);
    return exportJson(e, e.isEnabled ? nextRuns(e.cron, zone, 3) : [], last ?? null);
  });

/**
 * PATCH /v1/scheduled-exports/{id} { …any field of POST, revision? } → the export. Fields left out stay
 * as stored, secrets too; with `revision`, a stale one is 409. The caller becomes the owner.
 */
export const PATCH: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateExportCommand, {
    objectId: id,
    input: (body) => ({
      id,
      revision:
        body && typeof body === 'object' && 'revision' in body ? (body as { revision: unknown }).revision : null,
      body,
    }),
    answer: (e) => ({ status: 200, body: exportJson(e, []) }),
  });
};

/** DELETE /v1/scheduled-exports/{id}[?revision=n] → 200 the deleted export, with its history. */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  const revision = new URL(context.request.url).searchParams.get('revision');
  return commandEndpoint(apiContext(context), deleteExportCommand, {
    objectId: id,
    input: () => ({ id, revision }),
    answer: (e) => ({ status: 200, body: { ...exportJson(e, []), deleted: true } }),
  });
};
