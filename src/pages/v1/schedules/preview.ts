import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { handle, json } from '#lib/http/respond.ts';
import { previewSchedule } from '#lib/schedule/index.ts';

/**
 * POST /v1/schedules/preview — the same terms JSON as `npm run schedule`, answered with the same
 * schedule JSON. Bad terms are a 400 naming the field. Pure computation: nothing is stored; any
 * signed-in caller may use it (the middleware guards /v1; the principal check is defence in depth).
 */
export const POST: APIRoute = ({ request, locals }) =>
  handle(
    locals.requestId,
    async () => {
      requirePrincipal(locals.principal);
      let body: unknown;
      try {
        body = await request.json();
      } catch {
        throw new AppError('BAD_REQUEST', 'The request body must be valid JSON terms.', { field: 'body' });
      }
      return json(previewSchedule(body));
    },
    locals.language,
  );
