import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { pauseEventSinkCommand } from '#lib/sinks/commands.ts';
import { sinkJson } from '#lib/sinks/store.ts';

/** POST /v1/event-sinks/{id}/pause → the sink, paused: no run starts until it is resumed. */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), pauseEventSinkCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (sink) => ({ status: 200, body: sinkJson(sink) }),
  });
};
