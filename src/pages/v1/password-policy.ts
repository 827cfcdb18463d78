import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import {
  passwordPolicyJson,
  readPasswordPolicy,
  savePasswordPolicyCommand,
} from '#lib/security-admin/password-policy.ts';

/**
 * GET /v1/password-policy → { minLength, historyCount, refuseCommon, refuseBreached, expiryDays,
 * lockoutThreshold, lockoutMinutes, mfaRoleIds, limits }.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor) => passwordPolicyJson(await readPasswordPolicy(tx, actor.tenantId)));

/** PUT /v1/password-policy { minLength, historyCount, expiryDays, lockoutThreshold, lockoutMinutes, refuseBreached, mfaRoleIds } → the policy. */
export const PUT: APIRoute = (context) =>
  commandEndpoint(apiContext(context), savePasswordPolicyCommand, {
    answer: (policy) => ({ status: 200, body: passwordPolicyJson(policy) }),
  });
