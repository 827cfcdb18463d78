import type { APIRoute } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { getT } from '#lib/i18n/index.ts';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { getIpRestriction } from '#lib/tenancy/ip-allowlist.ts';
import {
  deleteIpRestrictionCommand,
  ipRestrictionJson,
  updateIpRestrictionCommand,
} from '#lib/security-admin/ip-restrictions.ts';

/** GET /v1/ip-restrictions/{id} → the rule (404 when unknown). */
export const GET: APIRoute = (context) => {
  const ctx = apiContext(context);
  return query(ctx, async (tx) => {
    const rule = await getIpRestriction(tx, context.params.id ?? '');
    if (!rule) throw new AppError('NOT_FOUND', (await getT(ctx.language ?? 'en'))('security:ip.notFound'));
    return ipRestrictionJson(rule);
  });
};

/** PATCH /v1/ip-restrictions/{id} { network?, label?, roleIds? } → the rule; refused (409) if it would lock the caller out. */
export const PATCH: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateIpRestrictionCommand, {
    objectId: id,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id }),
    answer: (rule) => ({ status: 200, body: ipRestrictionJson(rule) }),
  });
};

/** DELETE /v1/ip-restrictions/{id} → 200 the deleted rule; refused (409) if the remaining rules would lock the caller out. */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteIpRestrictionCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (rule) => ({ status: 200, body: { ...ipRestrictionJson(rule), deleted: true } }),
  });
};
