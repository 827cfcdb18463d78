import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { updateUserCommand } from '#lib/users/commands.ts';
import { getT } from '#lib/i18n/index.ts';
import { getUser } from '#lib/users/directory.ts';

/** GET /v1/users/{id} → the user with roles, data permissions, status and last sign-in. (/v1/users/me and /admin are their own files.) */
export const GET: APIRoute = (context) => {
  const ctx = apiContext(context);
  return query(ctx, async (tx) => getUser(tx, context.params.id ?? '', await getT(ctx.language ?? 'en')));
};

/**
 * PATCH /v1/users/{id} { displayName?, language?, roleIds?, dataPermissions?, disabled? } → the user.
 * `{ disabled: true }` disables (sessions end at once, the seat is freed); `false` enables.
 */
export const PATCH: APIRoute = (context) => {
  const userId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateUserCommand, {
    objectId: userId,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), userId }),
    answer: (user) => ({ status: 200, body: user }),
  });
};
