import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { assertInScope, type ScopeHolder } from '../auth/data-permissions.ts';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import type { CustomerEligibilityOverridesRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { assertUuid, isUuid } from '../lending/loans.ts';

/**
 * Forcing a customer's eligibility (customer.eligibility.force): an override with a reason that the
 * next origination of the named strategy (or of any live strategy) uses once, turning the model's
 * refusal into an offer (src/lib/strategies/origination.ts). The customer is loaded through the
 * writer's data permissions (another branch's customer is a 404, like a missing one).
 */

export type EligibilityOverride = CustomerEligibilityOverridesRow & {
  strategy_name: string | null;
  created_by_name: string | null;
};

export const forceEligibilityInput = z
  .object({
    customerId: z.string(),
    reason: z.string().trim().min(3, 'A reason of 3 to 1000 characters').max(1000, 'A reason of 3 to 1000 characters'),
    strategyId: z
      .string()
      .trim()
      .nullish()
      .transform((v) => (v ? v : null)),
  })
  .strict();

export const forceEligibilityCommand = defineCommand({
  action: 'customer.eligibility.force',
  objectType: 'customer',
  permission: need('customer.eligibility.force'),
  input: forceEligibilityInput,
  run: async (tx, actor, input) => {
    assertUuid(input.customerId, 'customerId');
    await assertInScope(tx, actor, 'customer', input.customerId);
    if (input.strategyId !== null) {
      if (!isUuid(input.strategyId)) throw new AppError('NOT_FOUND', 'Strategy not found', { field: 'strategyId' });
      const rows = await tx.query(`select 1 from strategies where id = $1`, [input.strategyId]);
      if (!rows.length) throw new AppError('NOT_FOUND', 'Strategy not found', { field: 'strategyId' });
    }
    const [row] = await tx.query<CustomerEligibilityOverridesRow>(
      `insert into customer_eligibility_overrides (tenant_id, customer_id, strategy_id, reason, created_by)
       values ($1, $2, $3, $4, $5) returning *`,
      [actor.tenantId, input.customerId, input.strategyId, input.reason, actor.userId],
    );
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'customer.eligibility.force',
      objectType: 'customer',
      objectId: input.customerId,
      outcome: 'success',
      before: null,
      after: { overrideId: row.id, strategyId: row.strategy_id, reason: row.reason },
    });
    return row;
  },
});

/** The customer's overrides, open first, then used, newest first, with the strategy and author names. */
export async function listEligibilityOverrides(
  tx: Tx,
  holder: ScopeHolder,
  customerId: string,
): Promise<EligibilityOverride[]> {
  assertUuid(customerId, 'customerId');
  await assertInScope(tx, holder, 'customer', customerId);
  return tx.query<EligibilityOverride>(
    `select o.*, s.name as strategy_name, u.display_name as created_by_name
       from customer_eligibility_overrides o
       left join strategies s on s.tenant_id = o.tenant_id and s.id = o.strategy_id
       left join users u on u.tenant_id = o.tenant_id and u.id::text = o.created_by
      where o.customer_id = $1
      order by (o.used_at is null) desc, o.created_at desc, o.id limit 100`,
    [customerId],
  );
}

export function overrideJson(row: CustomerEligibilityOverridesRow & { strategy_name?: string | null }) {
  return {
    id: row.id,
    customerId: row.customer_id,
    strategyId: row.strategy_id,
    strategyName: row.strategy_name ?? null,
    reason: row.reason,
    createdBy: row.created_by,
    createdAt: row.created_at,
    usedAt: row.used_at,
    usedOfferId: row.used_offer_id,
  };
}

/** The strategies an override can name: the live ones, by name. */
export async function liveStrategyChoices(tx: Tx): Promise<{ id: string; name: string }[]> {
  return tx.query(`select id, name from strategies where status = 'live' order by lower(name), id`);
}
