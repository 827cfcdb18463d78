import type { APIRoute } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { deleteEventSinkCommand, updateEventSinkCommand } from '#lib/sinks/commands.ts';
import { getSinkRow, sinkJson, sinkView } from '#lib/sinks/store.ts';

/** GET /v1/event-sinks/{id} → the sink with its figures (404 when unknown). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => {
    const sink = await getSinkRow(tx, context.params.id ?? '');
    if (!sink) throw new AppError('NOT_FOUND', 'This event sink does not exist.');
    return sinkView(tx, sink);
  });

/**
 * PATCH /v1/event-sinks/{id} { name?, events?, expectedRevision?, …settings } → the sink. Secret
 * settings left out (or empty) are kept; a stale expectedRevision is a 409.
 */
export const PATCH: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateEventSinkCommand, {
    objectId: id,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id }),
    answer: (sink) => ({ status: 200, body: sinkJson(sink) }),
  });
};

/** DELETE /v1/event-sinks/{id} → 200 { id, deleted: true }. What it wrote to its target stays there. */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteEventSinkCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (sink) => ({ status: 200, body: { id: sink.id, deleted: true } }),
  });
};
