import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { listIpRestrictions } from '#lib/tenancy/ip-allowlist.ts';
import { addIpRestrictionCommand, ipRestrictionJson } from '#lib/security-admin/ip-restrictions.ts';

/** GET /v1/ip-restrictions → { items: [{ id, network, label, appliesTo, roleIds, roles, createdAt }] }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listIpRestrictions(tx)).map(ipRestrictionJson) }));

/**
 * POST /v1/ip-restrictions { network: "203.0.113.0/24", label, roleIds?: [] } → 201 the rule. No roles:
 * the rule applies to everyone. 409 on `network` for a duplicate, or when the rule would refuse the
 * caller's own address.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), addIpRestrictionCommand, {
    answer: (rule) => ({ status: 201, body: ipRestrictionJson(rule) }),
  });
