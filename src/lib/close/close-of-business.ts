import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { ADMIN } from '../auth/permissions.ts';
import { getDb } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { validationError } from '../errors/messages.ts';
import { defineCommand, runCommand } from '../http/command.ts';
import { zodDate } from '../http/input-fields.ts';
import { errorResponse, json } from '../http/respond.ts';
import { actorFromPrincipal } from '../lending/actor.ts';
import type { ApiContext } from '../lending/api.ts';
import { daysBetween } from '../schedule/dates.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { closeUntil } from './daily-close.ts';

/** At most this many days are closed by one request (catching up a longer gap takes several). */
export const MAX_CLOSE_DAYS = 31;

/**
 * The check of `POST /v1/close-of-business`: administrators only; `until` a real date, not before the
 * business date and at most MAX_CLOSE_DAYS after it. Returns the business date it starts from.
 */
export const planCloseCommand = defineCommand({
  action: 'close.run',
  objectType: 'tenant',
  permission: ADMIN,
  input: z.object({ until: zodDate() }).strict(),
  run: async (tx, actor, input): Promise<{ from: string; until: string }> => {
    const from = await businessDate(tx, actor.tenantId);
    if (input.until < from)
      throw validationError('until', 'close.untilPast', { min: from }, 'UNPROCESSABLE', { businessDate: from });
    if (daysBetween(from, input.until) > MAX_CLOSE_DAYS)
      throw validationError('until', 'close.untilTooFar', { max: MAX_CLOSE_DAYS }, 'UNPROCESSABLE', {
        businessDate: from,
      });
    return { from, until: input.until };
  },
});

/**
 * POST /v1/close-of-business { until } → { businessDate, closedDays }: closes day after day (each its
 * own all-or-nothing daily close, src/lib/close/daily-close.ts) until the tenant's business date is
 * `until`. Audited `close.run` with the days closed.
 */
export async function closeOfBusinessEndpoint(ctx: ApiContext): Promise<Response> {
  try {
    const principal = requirePrincipal(ctx.principal);
    const actor = actorFromPrincipal(principal, { ip: ctx.ip, requestId: ctx.requestId });
    const db = ctx.db ?? (await getDb());
    const plan = await runCommand(
      { db, actor, permissionSubject: principal, objectId: actor.tenantId, language: ctx.language },
      planCloseCommand,
      async () => {
        const text = await ctx.request.text();
        try {
          return text.trim() ? JSON.parse(text) : {};
        } catch {
          throw new AppError('BAD_REQUEST', 'The request body must be valid JSON.');
        }
      },
    );
    const results = await closeUntil(db, actor.tenantId, plan.until);
    const closedDays = results.filter((r) => !r.wasAlreadyClosed).length;
    const reached = await db.tenant(actor.tenantId, async (tx) => {
      const date = await businessDate(tx, actor.tenantId);
      await recordAudit(tx, {
        ...auditActor(actor),
        action: 'close.run',
        objectType: 'tenant',
        objectId: actor.tenantId,
        outcome: 'success',
        before: { businessDate: plan.from },
        after: { businessDate: date, closedDays, days: results.map((r) => r.businessDate) },
      });
      return date;
    });
    return json({ businessDate: reached, closedDays });
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}
