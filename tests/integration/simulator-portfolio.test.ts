import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { simulatePortfolio, type SimulateResult } from '#lib/simulator/simulate.ts';

const TODAY = '2026-03-15';

/** What a seed must reproduce: business content, not record ids. */
async function fingerprint(db: Db, tenantId: string) {
  return db.tenant(tenantId, async (tx) => ({
    customers: await tx.query(
      `select first_name, last_name, segment, risk_class, opt_in_status from customers order by external_id`,
    ),
    loans: await tx.query(
      `select c.external_id, p.code, l.principal, l.number_of_repayments, l.disbursed_on, l.status, l.closed_on, l.written_off_on
         from loans l join customers c on c.id = l.customer_id join loan_products p on p.id = l.product_id
        order by c.external_id, l.disbursed_on, l.principal`,
    ),
    transactions: await tx.query(
      `select t.type, t.transaction_date, sum(t.amount)::int8 as amount, count(*)::int as n from loan_transactions t
        group by t.type, t.transaction_date order by t.transaction_date, t.type`,
    ),
    history: await tx.query(
      `select business_date, from_classification, to_classification, count(*)::int as n from loan_delinquency_history group by 1, 2, 3 order by 1, 2 nulls first, 3 nulls first`,
    ),
    bank: await tx.query(`select count(*)::int as n, sum(amount)::int8 as net from customer_bank_transactions`),
  }));
}

describe.each(testDbKinds())('portfolio simulator on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let first: SimulateResult;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, time_zone, business_date) values
        ('sim-a1', 'sima', 'Sim A', 'EUR', 'Europe/Paris', $1), ('sim-b1', 'simb', 'Sim B', 'EUR', 'Europe/Paris', $1)`,
        [TODAY],
      ),
    );
    first = await simulatePortfolio(db, { tenantId: 'sim-a1', customers: 30, months: 5, seed: 'test', today: TODAY });
  }, 240_000);
  afterAll(() => drop?.());

  it('builds a lender through the engine: products, offers, applications, loans, repayments, closes', async () => {
    expect(first).toMatchObject({ tenantId: 'sim-a1', to: TODAY, from: '2025-10-15', customers: 30, closes: 151 });
    expect(first.loans).toBeGreaterThan(12);
    expect(first.repayments).toBeGreaterThan(first.loans);
    const counts = await db.tenant('sim-a1', async (tx) => ({
      products: await tx.query<{ code: string; n: number }>(
        `select p.code, count(l.id)::int as n from loan_products p left join loans l on l.product_id = p.id and l.disbursed_on is not null group by p.code order by p.code`,
      ),
      offerStatuses: (await tx.query<{ status: string }>(`select distinct status from offers order by status`)).map(
        (r) => r.status,
      ),
      applicationStatuses: (
        await tx.query<{ status: string }>(`select distinct status from loan_applications order by status`)
      ).map((r) => r.status),
      selfApproved: (
        await tx.query<{ n: number }>(
          `select count(*)::int as n from loan_applications where decided_by = submitted_by`,
        )
      )[0].n,
      loanStatuses: (await tx.query<{ status: string }>(`select distinct status from loans order by status`)).map(
        (r) => r.status,
      ),
      daysOff: (await tx.query<{ n: number }>(`select count(*)::int as n from days_off`))[0].n,
      metrics: (await tx.query<{ n: number }>(`select count(*)::int as n from customer_transaction_metrics`))[0].n,
    }));
    expect(counts.products.map((p) => p.code)).toEqual([
      'SIM-BNPL',
      'SIM-BNPL40',
      'SIM-BULLET',
      'SIM-CRECALC',
      'SIM-EMI',
      'SIM-MICRO',
      'SIM-RECALC',
      'SIM-TRANCHE',
    ]);
    expect(
      counts.products.filter((p) => ['SIM-BULLET', 'SIM-EMI', 'SIM-MICRO'].includes(p.code)).every((p) => p.n > 0),
    ).toBe(true);
    expect(counts.offerStatuses).toEqual(expect.arrayContaining(['disbursed', 'expired', 'pending', 'rejected']));
    expect(counts.applicationStatuses).toEqual(expect.arrayContaining(['approved']));
    expect(counts.selfApproved).toBe(0);
    expect(counts.loanStatuses).toEqual(expect.arrayContaining(['ACTIVE', 'CLOSED_OBLIGATIONS_MET']));
    expect(counts.daysOff).toBeGreaterThan(5);
    expect(counts.metrics).toBeGreaterThanOrEqual(30 * 2);
  });

  it('leaves the business date at today, with delinquency history and month-end snapshots written by the close', async () => {
    const [{ business_date }] = await db.system((tx) =>
      tx.query<{ business_date: string }>(`select business_date from tenants where id = 'sim-a1'`),
    );
    expect(business_date).toBe(TODAY);
    const [h] = await db.tenant('sim-a1', (tx) =>
      tx.query<{ n: number }>(`select count(*)::int as n from loan_delinquency_history`),
    );
    expect(h.n).toBeGreaterThan(0);
    const months = await db.tenant('sim-a1', (tx) =>
      tx.query<{ month_end: string }>(`select distinct month_end from loan_month_end_snapshots order by month_end`),
    );
    expect(months.map((m) => m.month_end)).toEqual([
      '2025-10-31',
      '2025-11-30',
      '2025-12-31',
      '2026-01-31',
      '2026-02-28',
    ]);
  });

  it('keeps the ledger balanced: debits = credits and loan balances = ledger balances', async () => {
    const report = await checkLedger(db, ['sim-a1']);
    expect(report.differences).toEqual([]);
    expect(report.loans).toBeGreaterThan(12);
  });

  it('uses the engine depth: fees at disbursement, tranches, recalculated interest, reschedules, re-ages, variations', async () => {
    expect(first.tranches).toBeGreaterThan(0);
    expect(first.reschedules).toBeGreaterThan(0);
    expect(first.reages).toBeGreaterThan(0);
    expect(first.variations).toBeGreaterThan(0);
    const [row] = await db.tenant('sim-a1', (tx) =>
      tx.query<{ fees_at_disbursement: number; recalc_loans: number; approved_reschedules: number }>(
        `select (select count(*)::int from loan_transactions where type = 'REPAYMENT_AT_DISBURSEMENT') as fees_at_disbursement,
                (select count(*)::int from loans l join loan_products p on p.id = l.product_id
                  where p.code = 'SIM-RECALC' and l.disbursed_on is not null) as recalc_loans,
                (select count(*)::int from loan_reschedule_requests where status = 'approved') as approved_reschedules`,
      ),
    );
    expect(row.fees_at_disbursement).toBeGreaterThan(0);
    expect(row.recalc_loans).toBeGreaterThan(0);
    expect(row.approved_reschedules).toBe(first.reschedules);
    const [depth] = await db.tenant('sim-a1', (tx) =>
      tx.query<{ reages: number; by_admin: number; unpaid: number; varied: number; versions: number }>(
        `select (select count(*)::int from loan_transactions where type = 'REAGE') as reages,
                (select count(*)::int from loan_transactions t
                  where t.type = 'REAGE' and t.created_by in (select a.decided_by::text from loan_applications a)) as by_admin,
                (select count(*)::int from loan_transactions r join loan_schedule_changes c on c.id = r.id
                  where r.type = 'REAGE' and c.start_date < $1::date
                    and not exists (select 1 from loan_transactions p where p.loan_id = r.loan_id and p.type = 'REPAYMENT' and p.seq > r.seq)) as unpaid,
                (select count(*)::int from loans where disbursed_on is not null and jsonb_array_length(coalesce(terms->'variations', '[]')) = 1) as varied,
                (select count(*)::int from loan_schedule_versions) as versions`,
        [TODAY],
      ),
    );
    // Re-aged by the checker (an administrator); a borrower whose first new installment fell due paid after the re-age
    // (the delinquency analytics test's longer history has such payments).
    expect(depth.reages).toBe(first.reages);
    expect(depth.by_admin).toBe(first.reages);
    expect(depth.unpaid).toBe(0);
    expect(depth.varied).toBe(first.variations);
    // Every rewrite of an active loan's schedule kept the installments it replaced (tranches, reschedules, re-ages…).
    expect(depth.versions).toBeGreaterThanOrEqual(first.tranches + first.reschedules + first.reages);
  });

  it('uses every remaining engine feature: re-amortisation, cumulative recalculation with compounding, own installment amounts', async () => {
    expect(first.reamortizations).toBeGreaterThan(0);
    expect(first.cumulativeRecalculations).toBeGreaterThan(0);
    expect(first.fixedEmis).toBeGreaterThan(0);
    const [row] = await db.tenant('sim-a1', (tx) =>
      tx.query<{
        reamortizations: number;
        by_admin: number;
        behind: number;
        compounding: number;
        fixed: number;
        shorter: number;
      }>(
        `select (select count(*)::int from loan_transactions where type = 'REAMORTIZE') as reamortizations,
                (select count(*)::int from loan_transactions t
                  where t.type = 'REAMORTIZE' and t.created_by in (select a.decided_by::text from loan_applications a)) as by_admin,
                (select count(*)::int from loan_installments i
                  where i.loan_id in (select loan_id from loan_transactions where type = 'REAMORTIZE')
                    and i.due_date < $1::date and i.principal_due > i.principal_paid + i.principal_written_off) as behind,
                (select count(*)::int from loans l join loan_products p on p.id = l.product_id
                  where p.code = 'SIM-CRECALC' and l.disbursed_on is not null
                    and l.terms->'interestRecalculation'->>'compounding' = 'INTEREST'
                    and l.terms->'interestRecalculation'->>'restFrequency' = 'DAILY') as compounding,
                (select count(*)::int from loans where disbursed_on is not null and terms ? 'fixedEmiAmount') as fixed,
                (select count(*)::int from loans l where l.disbursed_on is not null and l.terms ? 'fixedEmiAmount'
                    and (select count(*) from loan_installments i where i.loan_id = l.id) < l.number_of_repayments) as shorter`,
        [TODAY],
      ),
    );
    // Re-amortised by the checker (an administrator) before maturity; the borrower then paid every installment due.
    expect(row.reamortizations).toBe(first.reamortizations);
    expect(row.by_admin).toBe(first.reamortizations);
    expect(row.behind).toBe(0);
    expect(row.compounding).toBe(first.cumulativeRecalculations);
    expect(row.fixed).toBe(first.fixedEmis);
    // An installment above the EMI repays the loan in fewer installments.
    expect(row.shorter).toBe(first.fixedEmis);
  });

  it('uses fixed length: "pay in four within 40 days" loans end 40 days after disbursement', async () => {
    expect(first.fixedLengths).toBeGreaterThan(0);
    const [row] = await db.tenant('sim-a1', (tx) =>
      tx.query<{ loans: number; on_day_40: number }>(
        `select count(*)::int as loans,
                count(*) filter (where last_due = l.disbursed_on + 40)::int as on_day_40
           from loans l join loan_products p on p.id = l.product_id
           cross join lateral (select max(i.due_date) as last_due from loan_installments i
                                where i.loan_id = l.id and i.number <= l.number_of_repayments + 1) m
          where p.code = 'SIM-BNPL40' and l.disbursed_on is not null
            and not exists (select 1 from loan_transactions t where t.loan_id = l.id and t.type in ('REAGE', 'REAMORTIZE'))`,
      ),
    );
    expect(row.loans).toBe(first.fixedLengths);
    // The last of the four installments falls on day 40, not on day 45 as SIM-BNPL's does.
    expect(row.on_day_40).toBe(first.fixedLengths);
  });

  it('is deterministic for a seed', async () => {
    await simulatePortfolio(db, { tenantId: 'sim-b1', customers: 30, months: 5, seed: 'test', today: TODAY });
    expect(await fingerprint(db, 'sim-b1')).toEqual(await fingerprint(db, 'sim-a1'));
  }, 240_000);

  it('refuses to simulate into a tenant that already has loans', async () => {
    await expect(simulatePortfolio(db, { tenantId: 'sim-a1', customers: 1, months: 1, today: TODAY })).rejects.toThrow(
      /already has loans/,
    );
  });
});
