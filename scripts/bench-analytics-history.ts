// The history the analytics boards read, for the bulk-filled bench tenant (`npm run bench:lists -- --bulk N`
// fills customers, loans and installments by SQL, without transactions, ledger or month ends). Used by
// `npm run bench:pages -- --analytics`. It writes, by SQL and only when the tenant has no month-end
// snapshot yet:
//   - a DISBURSEMENT transaction per loan and a REPAYMENT per paid installment (dated at its due date,
//     principal and interest portions as the installment holds them);
//   - a balanced journal entry per repayment (Dr FUND_SOURCE; Cr LOAN_PORTFOLIO, Cr INTEREST_INCOME);
//   - a month-end snapshot per loan and month it was open, from its disbursement month to the month
//     before the business date, with outstanding from the installments paid by then and days past due
//     spread by a hash of the loan (about 70% current, the rest drifting through the buckets), so the
//     transition matrix and vintages have movement.
// These are synthetic figures at the scale of a 100,000-customer lender: they time the boards' queries
// on realistic row counts; they are not the engine's numbers (those come from `npm run seed`).
import type { Db } from '#lib/db/index.ts';

export async function fillAnalyticsHistory(db: Db, tenantId: string): Promise<{ filled: boolean; ms: number }> {
  const started = Date.now();
  const [{ n }] = await db.tenant(tenantId, (tx) =>
    tx.query<{ n: number }>('select count(*)::int as n from (select 1 from loan_month_end_snapshots limit 1) s'),
  );
  if (n > 0) return { filled: false, ms: 0 };
  await db.tenant(tenantId, async (tx) => {
    await tx.query(
      `insert into loan_transactions (tenant_id, loan_id, type, transaction_date, currency, amount, principal_portion, created_by)
       select tenant_id, id, 'DISBURSEMENT', disbursed_on, currency, principal, principal, 'bench'
         from loans where disbursed_on is not null`,
    );
    await tx.query(
      `insert into loan_transactions (tenant_id, loan_id, type, transaction_date, currency, amount, principal_portion, interest_portion, created_by)
       select i.tenant_id, i.loan_id, 'REPAYMENT', least(i.due_date, (select business_date from tenants where id = $1) - 1), l.currency,
              i.principal_paid + i.interest_paid, i.principal_paid, i.interest_paid, 'bench'
         from loan_installments i join loans l on l.tenant_id = i.tenant_id and l.id = i.loan_id
        where i.principal_paid + i.interest_paid > 0`,
      [tenantId],
    );
    await tx.query(
      `insert into journal_entries (tenant_id, entry_date, currency, loan_id, transaction_id, description, posted_by)
       select tenant_id, transaction_date, currency, loan_id, id, 'Repayment (bench history)', 'bench'
         from loan_transactions where type = 'REPAYMENT'`,
    );
    await tx.query(
      `insert into journal_lines (tenant_id, entry_id, account_code, currency, loan_id, debit, credit)
       select e.tenant_id, e.id, x.account, e.currency, e.loan_id, x.debit, x.credit
         from journal_entries e
         join loan_transactions t on t.tenant_id = e.tenant_id and t.id = e.transaction_id
         cross join lateral (values ('FUND_SOURCE', t.amount, 0::bigint),
                                    ('LOAN_PORTFOLIO', 0::bigint, t.principal_portion),
                                    ('INTEREST_INCOME', 0::bigint, t.interest_portion)) x(account, debit, credit)
        where (x.debit > 0 or x.credit > 0)`,
    );
    await tx.query(
      `insert into loan_month_end_snapshots (tenant_id, loan_id, month_end, status, currency, principal_outstanding,
              interest_outstanding, fee_outstanding, penalty_outstanding, total_outstanding, credit_balance, past_due_days,
              delinquent_days, classification, principal_paid_in_month, interest_paid_in_month, fee_paid_in_month,
              penalty_paid_in_month, total_paid_in_month)
       select l.tenant_id, l.id, m.month_end,
              case when l.closed_on is not null and l.closed_on <= m.month_end then l.status else 'ACTIVE' end, l.currency,
              p.principal_out, p.interest_out, 0, 0, p.principal_out + p.interest_out, 0, d.dpd, d.dpd, null,
              p.principal_paid, p.interest_paid, 0, 0, p.principal_paid + p.interest_paid
         from loans l
         cross join lateral (select abs(hashtext(l.id::text)) as h) x
         cross join lateral (
           select (g + interval '1 month' - interval '1 day')::date as month_end
             from generate_series(date_trunc('month', l.disbursed_on), date_trunc('month', (select business_date from tenants where id = l.tenant_id)) - interval '1 month', interval '1 month') g
         ) m
         cross join lateral (
           select greatest(0, l.principal - coalesce(sum(i.principal_paid) filter (where i.due_date <= m.month_end), 0))::bigint as principal_out,
                  coalesce(sum(case when i.due_date > m.month_end then i.interest_due else i.interest_due - i.interest_paid end), 0)::bigint as interest_out,
                  coalesce(sum(i.principal_paid) filter (where i.due_date between date_trunc('month', m.month_end)::date and m.month_end), 0)::bigint as principal_paid,
                  coalesce(sum(i.interest_paid) filter (where i.due_date between date_trunc('month', m.month_end)::date and m.month_end), 0)::bigint as interest_paid,
                  count(*) filter (where i.due_date <= m.month_end)::int as months_on_book
             from loan_installments i where i.tenant_id = l.tenant_id and i.loan_id = l.id
         ) p
         cross join lateral (
           select case
                    when l.closed_on is not null and l.closed_on <= m.month_end then 0
                    when x.h % 10 = 7 then least(120, 5 + p.months_on_book * 9)
                    when x.h % 10 = 8 then least(200, 20 + p.months_on_book * 25)
                    when x.h % 10 = 9 and p.months_on_book >= 2 then least(365, (p.months_on_book - 1) * 31)
                    else 0 end as dpd
         ) d
        where l.disbursed_on is not null and (l.closed_on is null or date_trunc('month', l.closed_on) <= m.month_end)`,
    );
  });
  // Fresh planner statistics for what was just written (the bulk fill does the same for its tables):
  // without them Postgres plans the month-end writers as if these tables were empty.
  await db.owner((tx) =>
    tx.query('analyze loan_transactions, journal_entries, journal_lines, loan_month_end_snapshots'),
  );
  return { filled: true, ms: Date.now() - started };
}
