import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { endSessionsCommand } from '#lib/users/commands.ts';

/** DELETE /v1/users/{id}/sessions → { ended }: ends every session of the user; their next request is refused. */
export const DELETE: APIRoute = (context) => {
  const userId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), endSessionsCommand, {
    objectId: userId,
    input: () => ({ userId }),
    answer: ({ ended }) => ({ status: 200, body: { ended } }),
  });
};
