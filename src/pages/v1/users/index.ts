import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { inviteUserCommand } from '#lib/users/commands.ts';
import { listUsers, readUserListQuery } from '#lib/users/directory.ts';
import { publicOrigin } from '../../../server/session.ts';

/**
 * GET /v1/users?q=&role=<role id>&branch=<branch code>&status=active|invited|disabled&page= → a page
 * of the tenant's users ({ items, total, page, pages, page_size }).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, _actor, url) => {
    const { page, ...filters } = readUserListQuery(url.searchParams);
    return listUsers(tx, filters, page);
  });

/**
 * POST /v1/users { email, displayName, language, roleIds, dataPermissions: [{ field, value }], ssoOnly? }
 * → 201 with the user: invites them (a seat of the plan; the e-mail carries the link to choose a password).
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), inviteUserCommand, {
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), origin: publicOrigin(context.url) }),
    answer: (user) => ({ status: 201, body: user }),
  });
