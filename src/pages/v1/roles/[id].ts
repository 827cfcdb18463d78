import type { APIRoute } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { getT } from '#lib/i18n/index.ts';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { deleteRoleCommand, updateRoleCommand } from '#lib/roles/commands.ts';
import { findRole, roleJson } from '#lib/roles/roles.ts';

const bodyObject = (body: unknown) => (body && typeof body === 'object' && !Array.isArray(body) ? body : {});

/** GET /v1/roles/{id} → the role. */
export const GET: APIRoute = (context) => {
  const ctx = apiContext(context);
  return query(ctx, async (tx) => {
    const role = await findRole(tx, context.params.id ?? '');
    if (!role) throw new AppError('NOT_FOUND', (await getT(ctx.language ?? 'en'))('roles:errors.notFound'));
    return roleJson(role);
  });
};

/** PATCH /v1/roles/{id} { name?, description?, permissions? } → the role (the Administrator role: 403). */
export const PATCH: APIRoute = (context) => {
  const roleId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateRoleCommand, {
    objectId: roleId,
    input: (body) => ({ ...bodyObject(body), roleId }),
    answer: (role) => ({ status: 200, body: roleJson(role) }),
  });
};

/**
 * DELETE /v1/roles/{id}?reassignTo={roleId} (or `{ reassignTo }` in the body) → { id, name,
 * reassignedTo, movedUsers }. A role that users hold answers 409 naming how many until `reassignTo`
 * says which role they move to; the Administrator role answers 403.
 */
export const DELETE: APIRoute = (context) => {
  const roleId = context.params.id ?? '';
  const reassignTo = context.url.searchParams.get('reassignTo');
  return commandEndpoint(apiContext(context), deleteRoleCommand, {
    objectId: roleId,
    input: (body) => ({ ...bodyObject(body), ...(reassignTo ? { reassignTo } : {}), roleId }),
    answer: (deleted) => ({ status: 200, body: deleted }),
  });
};
