import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { resetMfaCommand } from '#lib/users/commands.ts';

/** DELETE /v1/users/{id}/mfa → the user: removes their authenticator enrolment (they enrol again). */
export const DELETE: APIRoute = (context) => {
  const userId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), resetMfaCommand, {
    objectId: userId,
    input: () => ({ userId }),
    answer: (user) => ({ status: 200, body: user }),
  });
};
