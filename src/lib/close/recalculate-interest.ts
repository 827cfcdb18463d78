import type { Tx } from '../db/index.ts';
import type { Actor } from '../lending/actor.ts';
import type { InstallmentRow } from '../lending/installments.ts';
import type { LoanRow, TransactionRow } from '../lending/loans.ts';
import { productOf, type ProductRow } from '../lending/products.ts';
import { recalculateAtClose } from '../lending/recalculation.ts';
import { currencyCode } from '../money/money.ts';
import { addDays } from '../schedule/dates.ts';

/** Loans read and recalculated together: a few statements per page instead of a few per loan. */
const PAGE = 200;

/**
 * The close's interest recalculation (Fineract's COB step LOAN_INTEREST_RECALCULATION): every active
 * loan of a product version with `interest_recalculation` that has principal overdue at `asOf` (the new
 * business date) gets its schedule recomputed as of `asOf` and rewritten when it changed
 * (src/lib/lending/recalculation.ts `recalculateAtClose`), so the loan page, arrears and the pay-off
 * quote carry the interest the overdue principal has borne so far. A loan with nothing overdue has the
 * schedule its last repayment or reversal wrote (recomputed then as of that day), so it is not read.
 *
 * Only those loans are read: tenants without a recalculating product stop after one small query, and
 * the overdue installments come through the partial index on unpaid due dates. Loans are locked
 * (`for update`, like a command) and handled a page at a time. Answers how many schedules changed.
 */
export async function recalculateOverdueInterest(tx: Tx, tenantId: string, asOf: string, actorId: string) {
  const versions = await tx.query<{ key: string }>(
    `select product_id::text || ':' || version as key from loan_product_versions
      where coalesce((snapshot->>'interest_recalculation')::boolean, false)`,
  );
  if (versions.length === 0) return 0;
  const candidates = await tx.query<{ loan_id: string }>(
    `select distinct i.loan_id from loan_installments i
       join loans l on l.tenant_id = i.tenant_id and l.id = i.loan_id
      where i.obligations_met_on is null and i.due_date < $1 and l.status = 'ACTIVE'
        and i.principal_due - i.principal_paid - i.principal_written_off > 0
        and l.product_id::text || ':' || l.product_version = any($2::text[])
      order by i.loan_id`,
    [asOf, versions.map((v) => v.key)],
  );
  const actor: Actor = { tenantId, userId: actorId, isAdmin: true, kind: 'system' };
  const date = addDays(asOf, -1);
  const products = new Map<string, ProductRow>();
  let changed = 0;
  for (let start = 0; start < candidates.length; start += PAGE) {
    const ids = candidates.slice(start, start + PAGE).map((c) => c.loan_id);
    const loans = await tx.query<LoanRow>(`select * from loans where id = any($1::uuid[]) order by id for update`, [
      ids,
    ]);
    const installments = group(
      await tx.query<InstallmentRow>(
        `select * from loan_installments where loan_id = any($1::uuid[]) order by loan_id, number`,
        [ids],
      ),
    );
    const transactions = group(
      await tx.query<TransactionRow>(
        `select * from loan_transactions_view where loan_id = any($1::uuid[]) order by loan_id, transaction_date, seq`,
        [ids],
      ),
    );
    for (const row of loans) {
      // Locked now: a command that committed since the candidates were read may have changed it.
      if (row.status !== 'ACTIVE') continue;
      const loan = { ...row, currency: currencyCode(row.currency) };
      const key = `${loan.product_id}:${loan.product_version}`;
      const product = products.get(key) ?? (await productOf(tx, loan));
      products.set(key, product);
      const state = {
        loan,
        product,
        installments: installments.get(loan.id) ?? [],
        transactions: transactions.get(loan.id) ?? [],
      };
      if (await recalculateAtClose(tx, actor, state, { asOf, date })) changed++;
    }
  }
  return changed;
}

function group<T extends { loan_id: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.loan_id);
    if (list) list.push(r);
    else out.set(r.loan_id, [r]);
  }
  return out;
}
