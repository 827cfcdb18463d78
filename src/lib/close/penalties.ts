import crypto from 'node:crypto';
import type { Tx } from '../db/index.ts';
import { addDays } from '../schedule/dates.ts';
import { chargeMoneyContext, overduePenaltyAmount, overduePenaltyOccurrences } from '../schedule/charges.ts';
import type { ChargeCalculation, OverduePenaltyFrequency } from '../schedule/types.ts';
import { INSTALLMENT_OUTSTANDING_SQL } from './sql.ts';

/**
 * Overdue penalties charged by the daily close, from each product's `penalties` definitions
 * (migration 0101): entries with "trigger": "OVERDUE" and
 *   - "kind": "FLAT", "amount": minor units as a string (e.g. "500" = 5.00 EUR), or
 *   - "kind": "PERCENT_OF_INSTALLMENT", "percent": decimal string, of the installment's principal +
 *     interest due, rounded half-even to the minor unit;
 *   - "kind": "PERCENT_OF_OVERDUE_PRINCIPAL" | "PERCENT_OF_OVERDUE_PRINCIPAL_AND_INTEREST" |
 *     "PERCENT_OF_OVERDUE_INTEREST", "percent": of what is still outstanding on the installment when
 *     the penalty is charged (Fineract's overdue charge with PERCENT_OF_AMOUNT / …_AND_INTEREST /
 *     PERCENT_OF_INTEREST), rounded half-even to the minor unit;
 *   - optional "graceDays" (default 0): charged once the installment is more than graceDays overdue;
 *   - optional "frequency" ("DAYS" | "WEEKS" | "MONTHS" | "YEARS") with "interval" (default 1): a
 *     recurring penalty, charged again every interval (Fineract feeFrequency/feeInterval).
 * When and how often follows the engine's overduePenaltyOccurrences (src/lib/schedule/charges.ts).
 * Each (loan, installment, penalty code, occurrence) is charged at most once (close_penalties key).
 *
 * Posting follows the lending ledger's rules for PENALTY_APPLIED (src/lib/lending): a loan
 * transaction, the installment's penalty_due raised, and a balanced journal entry
 * Dr PENALTY_RECEIVABLE / Cr PENALTY_INCOME on the loan — written set-based (one statement per
 * table for all loans of the day) because the close runs over the whole portfolio.
 */

type Candidate = {
  loan_id: string;
  number: number;
  currency: string;
  code: string;
  name: string | null;
  kind: string;
  amount: string | null;
  percent: string | null;
  base: bigint;
  principalOutstanding: bigint;
  interestOutstanding: bigint;
  occurrence: number;
};

/** Penalty kinds that are a percentage of what is outstanding, and the engine's calculation for each. */
const OUTSTANDING_KINDS: Record<string, ChargeCalculation> = {
  PERCENT_OF_OVERDUE_PRINCIPAL: 'PERCENT_OF_AMOUNT',
  PERCENT_OF_OVERDUE_PRINCIPAL_AND_INTEREST: 'PERCENT_OF_AMOUNT_AND_INTEREST',
  PERCENT_OF_OVERDUE_INTEREST: 'PERCENT_OF_INTEREST',
};
const FREQUENCIES = new Set(['DAYS', 'WEEKS', 'MONTHS', 'YEARS']);

/** The amount (minor units) of one occurrence of a product penalty on an installment. */
export function penaltyAmount(c: {
  kind: string;
  amount: string | null;
  percent: string | null;
  base: bigint;
  principalOutstanding: bigint;
  interestOutstanding: bigint;
}): bigint {
  if (c.kind === 'FLAT') return BigInt(c.amount ?? '0');
  if (c.kind === 'PERCENT_OF_INSTALLMENT') return percentOf(c.base, c.percent ?? '0');
  const calculation = OUTSTANDING_KINDS[c.kind];
  if (!calculation || !c.percent) return 0n;
  // Minor units at 0 digits: the percentage rounds to a whole minor unit, half-even.
  return overduePenaltyAmount(
    chargeMoneyContext(0),
    { calculation, amount: c.percent },
    { principal: c.principalOutstanding, interest: c.interestOutstanding },
  );
}

/** percent (decimal string) of base minor units, rounded half-even to a whole minor unit. */
export function percentOf(base: bigint, percent: string): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(percent.trim());
  if (!match) throw new Error(`penalty percent must be a decimal string, got ${percent}`);
  const scale = (match[2] ?? '').length;
  const numerator = base * BigInt(match[1] + (match[2] ?? ''));
  const denominator = 100n * 10n ** BigInt(scale);
  const q = numerator / denominator;
  const r = numerator % denominator;
  if (r * 2n > denominator || (r * 2n === denominator && q % 2n === 1n)) return q + 1n;
  return q;
}

/** Applies due overdue penalties as of `asOf` (the new business date); answers how many. */
export async function applyOverduePenalties(tx: Tx, tenantId: string, asOf: string, actor: string): Promise<number> {
  const closedDay = addDays(asOf, -1);
  // Products' overdue penalties first: most days most tenants have none to consider. Per product
  // version (migration 0610): a loan is charged the penalties of the version it was made with.
  const penalties = await tx.query<{
    product_id: string;
    code: string;
    name: string | null;
    kind: string;
    amount: string | null;
    percent: string | null;
    grace: number;
    frequency: string | null;
    interval: number;
  }>(
    `select v.product_id::text || ':' || v.version as product_id, pen->>'code' as code, pen->>'name' as name, pen->>'kind' as kind,
            pen->>'amount' as amount, pen->>'percent' as percent, coalesce((pen->>'graceDays')::int, 0) as grace,
            pen->>'frequency' as frequency, coalesce((pen->>'interval')::int, 1) as interval
       from loan_product_versions v cross join lateral jsonb_array_elements(v.snapshot->'penalties') pen
      where jsonb_typeof(v.snapshot->'penalties') = 'array' and pen->>'trigger' = 'OVERDUE' and coalesce(pen->>'code', '') <> ''`,
  );
  if (penalties.length === 0) return 0;
  const byProduct = new Map<string, typeof penalties>();
  for (const p of penalties) byProduct.set(p.product_id, [...(byProduct.get(p.product_id) ?? []), p]);
  // Overdue unpaid installments of active loans (the partial index on unpaid due dates serves the
  // range), with the penalty codes already charged on each: one pass, no per-row sub-queries.
  const overdue = await tx.query<{
    loan_id: string;
    product_id: string;
    number: number;
    due_date: string;
    currency: string;
    base: bigint;
    principal_outstanding: bigint;
    interest_outstanding: bigint;
    charged: string[] | null;
  }>(
    `with o as materialized (
       select i.tenant_id, i.loan_id, i.number, i.due_date, (i.principal_due + i.interest_due)::int8 as base, ${INSTALLMENT_OUTSTANDING_SQL} as outstanding,
              (i.principal_due - i.principal_paid - i.principal_written_off)::int8 as principal_outstanding,
              (i.interest_due - i.interest_paid - i.interest_waived - i.interest_written_off)::int8 as interest_outstanding
         from loan_installments i where i.obligations_met_on is null and i.due_date < $1
     )
     select o.loan_id, l.product_id::text || ':' || l.product_version as product_id, o.number, o.due_date, l.currency, o.base,
            o.principal_outstanding, o.interest_outstanding,
            (select array_agg(c.penalty_code || '#' || c.occurrence) from close_penalties c where c.tenant_id = o.tenant_id and c.loan_id = o.loan_id and c.installment_number = o.number) as charged
       from o join loans l on l.tenant_id = o.tenant_id and l.id = o.loan_id
      where l.status = 'ACTIVE' and o.outstanding > 0 and l.product_id::text || ':' || l.product_version = any($2::text[])
      order by o.loan_id, o.number`,
    [asOf, [...byProduct.keys()]],
  );
  const candidates: Candidate[] = [];
  for (const i of overdue) {
    for (const p of byProduct.get(i.product_id) ?? []) {
      if (addDays(i.due_date, p.grace) >= asOf) continue;
      const frequency: OverduePenaltyFrequency | null =
        p.frequency && FREQUENCIES.has(p.frequency)
          ? { unit: p.frequency as OverduePenaltyFrequency['unit'], interval: Math.max(1, p.interval) }
          : null;
      const occurrences = overduePenaltyOccurrences({
        dueDate: i.due_date,
        businessDate: asOf,
        graceDays: p.grace,
        frequency,
      });
      for (const o of occurrences) {
        if (i.charged?.includes(`${p.code}#${o.occurrence}`)) continue;
        candidates.push({
          loan_id: i.loan_id,
          number: i.number,
          currency: i.currency.trim(),
          code: p.code,
          name: p.name,
          kind: p.kind,
          amount: p.amount,
          percent: p.percent,
          base: i.base,
          principalOutstanding: BigInt(i.principal_outstanding),
          interestOutstanding: BigInt(i.interest_outstanding),
          occurrence: o.occurrence,
        });
      }
    }
  }
  const rows = candidates
    .map((c) => ({ ...c, value: penaltyAmount(c), txId: crypto.randomUUID(), entryId: crypto.randomUUID() }))
    .filter((c) => c.value > 0n && c.code);
  if (rows.length === 0) return 0;

  const loanIds = rows.map((r) => r.loan_id);
  const numbers = rows.map((r) => r.number);
  const amounts = rows.map((r) => r.value.toString());
  const currencies = rows.map((r) => r.currency);
  const txIds = rows.map((r) => r.txId);
  const entryIds = rows.map((r) => r.entryId);
  const codes = rows.map((r) => r.code);
  const occurrences = rows.map((r) => r.occurrence);
  const notes = rows.map(
    (r) =>
      `Overdue penalty ${r.name ?? r.code} on installment ${r.number}${r.occurrence > 1 ? ` (occurrence ${r.occurrence})` : ''}`,
  );

  await tx.query(
    `insert into loan_transactions (tenant_id, id, loan_id, type, transaction_date, currency, amount, penalty_portion,
       installment_number, note, created_by)
     select $1, u.id, u.loan_id, 'PENALTY_APPLIED', $2, u.currency, u.amount, u.amount, u.n, u.note, $3
       from unnest($4::uuid[], $5::uuid[], $6::text[], $7::int8[], $8::int[], $9::text[]) as u(id, loan_id, currency, amount, n, note)`,
    [tenantId, closedDay, actor, txIds, loanIds, currencies, amounts, numbers, notes],
  );
  // Several penalties may hit one installment the same day: add their sum.
  await tx.query(
    `update loan_installments i set penalty_due = i.penalty_due + u.total
       from (select loan_id, n, sum(amount)::int8 as total
               from unnest($1::uuid[], $2::int[], $3::int8[]) as x(loan_id, n, amount) group by loan_id, n) u
      where i.loan_id = u.loan_id and i.number = u.n`,
    [loanIds, numbers, amounts],
  );
  await tx.query(`update loans set version = version + 1, updated_at = now() where id = any($1::uuid[])`, [
    [...new Set(loanIds)],
  ]);
  await tx.query(
    `insert into journal_entries (tenant_id, id, entry_date, currency, loan_id, transaction_id, description, posted_by)
     select $1, u.entry_id, $2, u.currency, u.loan_id, u.tx_id, u.note, $3
       from unnest($4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[]) as u(entry_id, tx_id, loan_id, currency, note)`,
    [tenantId, closedDay, actor, entryIds, txIds, loanIds, currencies, notes],
  );
  await tx.query(
    `insert into journal_lines (tenant_id, entry_id, account_code, currency, loan_id, debit, credit)
     select $1, u.entry_id, side.account, u.currency, u.loan_id, side.debit, side.credit
       from unnest($2::uuid[], $3::uuid[], $4::text[], $5::int8[]) as u(entry_id, loan_id, currency, amount)
       cross join lateral (values ('PENALTY_RECEIVABLE', u.amount, 0::int8), ('PENALTY_INCOME', 0::int8, u.amount)) as side(account, debit, credit)`,
    [tenantId, entryIds, loanIds, currencies, amounts],
  );
  await tx.query(
    `insert into close_penalties (tenant_id, loan_id, installment_number, penalty_code, business_date, amount, transaction_id, occurrence)
     select $1, u.loan_id, u.n, u.code, $2, u.amount, u.tx_id, u.occurrence
       from unnest($3::uuid[], $4::int[], $5::text[], $6::int8[], $7::uuid[], $8::int[]) as u(loan_id, n, code, amount, tx_id, occurrence)`,
    [tenantId, closedDay, loanIds, numbers, codes, amounts, txIds, occurrences],
  );
  return rows.length;
}
