import type { APIRoute } from 'astro';
import { apiContext } from '#lib/lending/api.ts';
import { testSinkEndpoint } from '#lib/sinks/api.ts';

/** POST /v1/event-sinks/{id}/test → { ok, message, at }: reaches the target with the saved settings. */
export const POST: APIRoute = (context) => testSinkEndpoint(apiContext(context), context.params.id ?? '');
