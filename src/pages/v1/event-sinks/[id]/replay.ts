import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { replayEventSinkCommand } from '#lib/sinks/commands.ts';
import { sinkJson } from '#lib/sinks/store.ts';

/**
 * POST /v1/event-sinks/{id}/replay { since: "2026-03-01T00:00:00Z" } → { sink, since }: delivery starts
 * again from the first event at or after `since`, with a fresh snapshot; the sink becomes active.
 */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), replayEventSinkCommand, {
    objectId: id,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id }),
    answer: (out) => ({ status: 200, body: { sink: sinkJson(out.sink), since: out.since } }),
  });
};
