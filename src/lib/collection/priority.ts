import type { Tx } from '../db/index.ts';
import { currencyDigits } from '../money/money.ts';

/**
 * Recomputes the worklist priority of collection cases (all of the tenant's, or only `loanIds`):
 * amount overdue in major units × weight_amount + days past due × weight_days + broken promises ×
 * weight_broken_promises (collection_priority). One statement; the currencies' minor digits come from
 * the money module (the one source of a currency's digits).
 */
export async function recomputePriorities(tx: Tx, tenantId: string, loanIds: string[] | null = null): Promise<number> {
  if (loanIds && loanIds.length === 0) return 0;
  const currencies = (
    await tx.query<{ currency: string }>('select distinct currency from collection_cases where tenant_id = $1', [
      tenantId,
    ])
  ).map((r) => r.currency.trim());
  if (!currencies.length) return 0;
  const rows = await tx.query(
    `update collection_cases c
        set priority = round(
              c.overdue_amount::numeric
                / power(10::numeric, coalesce((select d.digits from unnest($2::text[], $3::int[]) as d(currency, digits)
                                       where d.currency = trim(c.currency)), 2)) * p.weight_amount
              + c.past_due_days * p.weight_days + c.broken_promises * p.weight_broken_promises, 4)
       from collection_priority p
      where c.tenant_id = $1 and p.tenant_id = $1
        and ($4::uuid[] is null or c.loan_id = any($4::uuid[]))
     returning c.loan_id`,
    [tenantId, currencies, currencies.map((c) => currencyDigits(c)), loanIds],
  );
  return rows.length;
}
