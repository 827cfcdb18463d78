import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { resumeEventSinkCommand } from '#lib/sinks/commands.ts';
import { sinkJson } from '#lib/sinks/store.ts';

/** POST /v1/event-sinks/{id}/resume → the sink, active: a run is queued at once. */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), resumeEventSinkCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (sink) => ({ status: 200, body: sinkJson(sink) }),
  });
};
