import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { resendInvitationCommand } from '#lib/users/commands.ts';
import { publicOrigin } from '../../../../server/session.ts';

/** POST /v1/users/{id}/invitation → 202 with the user: sends the invitation again; the previous link stops working. */
export const POST: APIRoute = (context) => {
  const userId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), resendInvitationCommand, {
    objectId: userId,
    input: () => ({ userId, origin: publicOrigin(context.url) }),
    answer: (user) => ({ status: 202, body: user }),
  });
};
