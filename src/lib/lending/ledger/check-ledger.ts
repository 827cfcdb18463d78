import type { Db, Tx } from '#lib/db/index.ts';
import type { TenantsRow } from '#lib/db/schema.generated.ts';

/** One disagreement the ledger check found (amounts in minor units). */
export type LedgerDifference =
  | { kind: 'currency_unbalanced'; tenantId: string; currency: string; debits: bigint; credits: bigint }
  | { kind: 'entry_unbalanced'; tenantId: string; entryId: string; debits: bigint; credits: bigint }
  | {
      kind: 'loan_mismatch';
      tenantId: string;
      loanId: string;
      account: string;
      loanBalance: bigint;
      ledgerBalance: bigint;
    }
  /** A figure the database keeps on the loan row (migration 0370) that disagrees with its installments. */
  | {
      kind: 'loan_summary_mismatch';
      tenantId: string;
      loanId: string;
      field: string;
      stored: string | null;
      actual: string | null;
    };

export type LedgerReport = { tenants: number; loans: number; entries: number; differences: LedgerDifference[] };

type LoanBalances = {
  loan_id: string;
  s_p: string;
  s_i: string;
  s_f: string;
  s_pen: string;
  s_cb: string;
  g_p: string;
  g_i: string;
  g_f: string;
  g_pen: string;
  g_cb: string;
};

/** Checks one tenant: debits = credits per currency and per entry; each loan's balances = its ledger accounts. */
export async function checkTenantLedger(tx: Tx, tenantId: string): Promise<Omit<LedgerReport, 'tenants'>> {
  const differences: LedgerDifference[] = [];
  const perCurrency = await tx.query<{ currency: string; debits: string; credits: string }>(
    `select currency, sum(debit)::text as debits, sum(credit)::text as credits from journal_lines group by currency order by currency`,
  );
  for (const c of perCurrency) {
    if (c.debits !== c.credits) {
      differences.push({
        kind: 'currency_unbalanced',
        tenantId,
        currency: c.currency.trim(),
        debits: BigInt(c.debits),
        credits: BigInt(c.credits),
      });
    }
  }
  const entries = await tx.query<{ entry_id: string; debits: string; credits: string }>(
    `select e.id as entry_id, coalesce(sum(l.debit), 0)::text as debits, coalesce(sum(l.credit), 0)::text as credits
       from journal_entries e left join journal_lines l on l.tenant_id = e.tenant_id and l.entry_id = e.id
      group by e.id having coalesce(sum(l.debit), 0) <> coalesce(sum(l.credit), 0) or count(l.id) < 2`,
  );
  for (const e of entries)
    differences.push({
      kind: 'entry_unbalanced',
      tenantId,
      entryId: e.entry_id,
      debits: BigInt(e.debits),
      credits: BigInt(e.credits),
    });
  const [{ n: entryCount }] = await tx.query<{ n: number }>(`select count(*)::int as n from journal_entries`);

  const loans = await tx.query<LoanBalances>(
    `with state as (
       select l.id as loan_id, l.credit_balance,
              coalesce(sum(i.principal_due - i.principal_paid - i.principal_written_off), 0) as p,
              coalesce(sum(i.interest_due - i.interest_paid - i.interest_waived - i.interest_written_off), 0) as i,
              coalesce(sum(i.fee_due - i.fee_paid - i.fee_waived - i.fee_written_off), 0) as f,
              coalesce(sum(i.penalty_due - i.penalty_paid - i.penalty_waived - i.penalty_written_off), 0) as pen
         from loans l left join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
        group by l.id, l.credit_balance),
     ledger as (
       select loan_id,
              sum(case when account_code = 'LOAN_PORTFOLIO' then debit - credit else 0 end) as p,
              sum(case when account_code = 'INTEREST_RECEIVABLE' then debit - credit else 0 end) as i,
              sum(case when account_code = 'FEE_RECEIVABLE' then debit - credit else 0 end) as f,
              sum(case when account_code = 'PENALTY_RECEIVABLE' then debit - credit else 0 end) as pen,
              sum(case when account_code = 'OVERPAYMENT_LIABILITY' then credit - debit else 0 end) as cb
         from journal_lines where loan_id is not null group by loan_id)
     select s.loan_id,
            s.p::text as s_p, s.i::text as s_i, s.f::text as s_f, s.pen::text as s_pen, s.credit_balance::text as s_cb,
            coalesce(g.p, 0)::text as g_p, coalesce(g.i, 0)::text as g_i, coalesce(g.f, 0)::text as g_f,
            coalesce(g.pen, 0)::text as g_pen, coalesce(g.cb, 0)::text as g_cb
       from state s left join ledger g on g.loan_id = s.loan_id
      where s.p <> coalesce(g.p, 0) or s.i <> coalesce(g.i, 0) or s.f <> coalesce(g.f, 0) or s.pen <> coalesce(g.pen, 0)
         or s.credit_balance <> coalesce(g.cb, 0)`,
  );
  const pairs = [
    ['LOAN_PORTFOLIO', 's_p', 'g_p'],
    ['INTEREST_RECEIVABLE', 's_i', 'g_i'],
    ['FEE_RECEIVABLE', 's_f', 'g_f'],
    ['PENALTY_RECEIVABLE', 's_pen', 'g_pen'],
    ['OVERPAYMENT_LIABILITY', 's_cb', 'g_cb'],
  ] as const;
  for (const loan of loans) {
    for (const [account, s, g] of pairs) {
      if (loan[s] !== loan[g]) {
        differences.push({
          kind: 'loan_mismatch',
          tenantId,
          loanId: loan.loan_id,
          account,
          loanBalance: BigInt(loan[s]),
          ledgerBalance: BigInt(loan[g]),
        });
      }
    }
  }
  const summaries = await tx.query<{ loan_id: string; field: string; stored: string | null; actual: string | null }>(
    `with actual as (
       select l.id as loan_id, l.outstanding, l.oldest_unpaid_due_date, l.maturity_date,
              coalesce(sum(x.amount), 0)::int8 as a_outstanding,
              min(i.due_date) filter (where x.amount > 0) as a_oldest_unpaid,
              max(i.due_date) filter (where not i.is_additional) as a_maturity
         from loans l
         left join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
         left join lateral (select i.principal_due + i.interest_due + i.fee_due + i.penalty_due
              - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
              - i.interest_waived - i.fee_waived - i.penalty_waived
              - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off as amount) x on true
        group by l.id, l.outstanding, l.oldest_unpaid_due_date, l.maturity_date)
     select loan_id, f.field, f.stored, f.actual
       from actual, lateral (values
         ('outstanding', outstanding::text, a_outstanding::text),
         ('oldest_unpaid_due_date', oldest_unpaid_due_date::text, a_oldest_unpaid::text),
         ('maturity_date', maturity_date::text, a_maturity::text)) as f(field, stored, actual)
      where f.stored is distinct from f.actual`,
  );
  for (const d of summaries)
    differences.push({
      kind: 'loan_summary_mismatch',
      tenantId,
      loanId: d.loan_id,
      field: d.field,
      stored: d.stored,
      actual: d.actual,
    });
  const [{ n: loanCount }] = await tx.query<{ n: number }>(`select count(*)::int as n from loans`);
  return { loans: loanCount, entries: entryCount, differences };
}

/** Runs the check over every tenant (or the ones given). */
export async function checkLedger(db: Db, tenantIds?: string[]): Promise<LedgerReport> {
  const ids =
    tenantIds ??
    (await db.system((tx) => tx.query<Pick<TenantsRow, 'id'>>(`select id from tenants order by id`))).map((t) => t.id);
  const report: LedgerReport = { tenants: ids.length, loans: 0, entries: 0, differences: [] };
  for (const id of ids) {
    const r = await db.tenant(id, (tx) => checkTenantLedger(tx, id), { isolation: 'repeatable read' });
    report.loans += r.loans;
    report.entries += r.entries;
    report.differences.push(...r.differences);
  }
  return report;
}

/** Human-readable report lines. */
export function formatLedgerReport(report: LedgerReport): string {
  const head = `ledger check: ${report.tenants} tenant(s), ${report.loans} loan(s), ${report.entries} journal entr${report.entries === 1 ? 'y' : 'ies'}`;
  if (report.differences.length === 0)
    return `${head}: OK, debits equal credits and every loan matches its ledger accounts and its installments`;
  const lines = report.differences.map((d) => {
    if (d.kind === 'currency_unbalanced')
      return `  tenant ${d.tenantId} ${d.currency}: debits ${d.debits} ≠ credits ${d.credits} (minor units)`;
    if (d.kind === 'entry_unbalanced')
      return `  tenant ${d.tenantId} entry ${d.entryId}: debits ${d.debits} ≠ credits ${d.credits}`;
    if (d.kind === 'loan_summary_mismatch')
      return `  tenant ${d.tenantId} loan ${d.loanId} ${d.field}: loan row says ${d.stored ?? 'nothing'}, installments say ${d.actual ?? 'nothing'}`;
    return `  tenant ${d.tenantId} loan ${d.loanId} ${d.account}: loan says ${d.loanBalance}, ledger says ${d.ledgerBalance}`;
  });
  return [`${head}: ${report.differences.length} difference(s)`, ...lines].join('\n');
}
