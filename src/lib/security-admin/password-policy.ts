/**
 * The password policy's administration (/admin/platform/password-policy, PUT /v1/password-policy):
 * one command that replaces the whole policy, audited with before and after. What each setting does
 * and where it is applied:
 *  - min length, history, common/breached check: at the next password change (setUserPassword);
 *    a password set before stays valid until then;
 *  - expiry: at sign-in (sign-in.ts flags password_change_required for an older password);
 *  - lockout threshold and duration: the account lock of the sign-in throttle (throttle.ts);
 *  - MFA roles: users holding one must enrol in TOTP before using the app (the guard sends them to
 *    /user/mfa; sessions.ts computes it per request).
 */
import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import {
  getPasswordPolicy,
  PASSWORD_POLICY_LIMITS,
  savePasswordPolicy,
  type PasswordPolicy,
} from '../auth/passwords.ts';
import type { Tx } from '../db/index.ts';
import { validationError } from '../errors/messages.ts';
import { defineCommand } from '../http/command.ts';

const bounded = (name: keyof typeof PASSWORD_POLICY_LIMITS) =>
  z.number().int().min(PASSWORD_POLICY_LIMITS[name].min).max(PASSWORD_POLICY_LIMITS[name].max);

export const passwordPolicyInput = z
  .object({
    minLength: bounded('minLength'),
    historyCount: bounded('historyCount'),
    expiryDays: bounded('expiryDays'),
    lockoutThreshold: bounded('lockoutThreshold'),
    lockoutMinutes: bounded('lockoutMinutes'),
    refuseBreached: z.boolean(),
    /** Defaults to refuseBreached: both turn on the same estimator (passwords.ts). */
    refuseCommon: z.boolean().optional(),
    mfaRoleIds: z.array(z.uuid()).max(100).default([]),
  })
  .strict();

export type PasswordPolicyInput = z.infer<typeof passwordPolicyInput>;

/** The JSON shape of the policy in /v1. */
export function passwordPolicyJson(policy: PasswordPolicy) {
  return { ...policy, limits: PASSWORD_POLICY_LIMITS };
}

export async function readPasswordPolicy(tx: Tx, tenantId: string): Promise<PasswordPolicy> {
  return getPasswordPolicy(tx, tenantId);
}

export const savePasswordPolicyCommand = defineCommand({
  action: 'password_policy.update',
  objectType: 'password_policy',
  permission: need('admin.password_policy.edit'),
  input: passwordPolicyInput,
  run: async (tx, actor, input) => {
    const mfaRoleIds = [...new Set(input.mfaRoleIds)];
    if (mfaRoleIds.length) {
      const [row] = await tx.query<{ found: number }>(
        'select count(*)::int as found from roles where id = any($1::uuid[])',
        [mfaRoleIds],
      );
      if (row.found !== mfaRoleIds.length) throw validationError('mfaRoleIds', 'security.roleUnknown');
    }
    const before = await getPasswordPolicy(tx, actor.tenantId);
    const policy: PasswordPolicy = {
      minLength: input.minLength,
      historyCount: input.historyCount,
      refuseBreached: input.refuseBreached,
      refuseCommon: input.refuseCommon ?? input.refuseBreached,
      expiryDays: input.expiryDays,
      lockoutThreshold: input.lockoutThreshold,
      lockoutMinutes: input.lockoutMinutes,
      mfaRoleIds: mfaRoleIds.sort(),
    };
    await savePasswordPolicy(tx, actor.tenantId, policy);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'password_policy.update',
      objectType: 'password_policy',
      objectId: actor.tenantId,
      before,
      after: policy,
      outcome: 'success',
    });
    return policy;
  },
});
