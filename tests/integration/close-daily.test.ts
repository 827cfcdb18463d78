import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { closeUntil, isMonthEnd, runDailyClose } from '#lib/close/daily-close.ts';
import { percentOf } from '#lib/close/penalties.ts';
import { postJournalEntry } from '#lib/lending/ledger/post-entry.ts';
import { addDays } from '#lib/schedule/dates.ts';

/**
 * The daily close against Fineract's delinquency reference case: a 1000 loan at 0% with a 25% down
 * payment due on disbursement and three 15-day installments, arrears grace 3, the e2e default ranges,
 * no payments. The close is run day by day and the loan's state is compared at each observation.
 */
type RefCase = {
  id: string;
  kind: string;
  conventions: { grace_on_arrears_ageing_days: number; ranges: { name: string; min: number; max: number | null }[] };
  inputs: {
    principal: number;
    disbursement_date: string;
    installments: { n: number; due_date: string; principal: number; is_down_payment?: boolean }[];
  };
  expected: {
    observations: {
      business_date: string;
      loan?: {
        classification: string | null;
        delinquent_amount: number;
        delinquent_date: string;
        delinquent_days: number;
        past_due_days: number;
      };
      installment_level: { range: string; amount: number }[];
    }[];
  };
};
const cases = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, '../fixtures/fineract-reference-cases.json'), 'utf8'),
);
const refCase = (Array.isArray(cases) ? cases : cases.cases).find((c: RefCase) => c.kind === 'delinquency') as RefCase;
const cents = (n: number) => BigInt(Math.round(n * 100));

const T = 'close-t1';

async function insertLoan(
  tx: Tx,
  input: {
    productId: string;
    customerId: string;
    accountNo: string;
    principal: bigint;
    disbursedOn: string;
    installments: { n: number; due: string; principal: bigint; isDownPayment?: boolean; principalPaid?: bigint }[];
  },
): Promise<string> {
  const [{ id }] = await tx.query<{ id: string }>(
    `insert into loans (tenant_id, account_no, customer_id, product_id, status, currency, principal, number_of_repayments,
       annual_interest_rate, terms, submitted_on, approved_on, disbursed_on)
     values ($1, $2, $3, $4, 'ACTIVE', 'USD', $5, $6, 0, '{}'::jsonb, $7, $7, $7) returning id`,
    [
      T,
      input.accountNo,
      input.customerId,
      input.productId,
      input.principal,
      input.installments.length,
      input.disbursedOn,
    ],
  );
  let from = input.disbursedOn;
  for (const i of input.installments) {
    const paid = i.principalPaid ?? 0n;
    await tx.query(
      `insert into loan_installments (tenant_id, loan_id, number, from_date, due_date, is_down_payment, principal_due, interest_due,
         principal_paid, obligations_met_on)
       values ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9)`,
      [T, id, i.n, from, i.due, i.isDownPayment ?? false, i.principal, paid, paid === i.principal ? i.due : null],
    );
    from = i.due;
  }
  // The loan is inserted ACTIVE without the disburse command, so post its disbursement's ledger side
  // here (principal still outstanding), as the engine would: the ledger check must hold for it.
  const outstanding = input.installments.reduce((sum, i) => sum + i.principal - (i.principalPaid ?? 0n), 0n);
  await postJournalEntry(tx, {
    tenantId: T,
    date: input.disbursedOn,
    currency: 'USD',
    loanId: id,
    description: `Disbursement of loan ${input.accountNo} (test fixture)`,
    lines: [
      { account: 'LOAN_PORTFOLIO', debit: outstanding },
      { account: 'FUND_SOURCE', credit: outstanding },
    ],
  });
  return id;
}

describe.each(testDbKinds())('daily close on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let refLoan: string;
  let paidLoan: string;
  let penaltyLoan: string;

  beforeAll(async () => {
    // The reference-case loans are written as rows (Fineract's test states, not our disbursement
    // command), so their ledger is not built; the close's own postings are checked in the tests below.
    ({ db, drop } = await createTestDb(kind, { checkLedgerOnDrop: false }));
    const start = refCase.inputs.disbursement_date;
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, business_date) values ($1, 'close', 'Close', 'USD', $2)`,
        [T, start],
      ),
    );
    await db.tenant(T, async (tx) => {
      const [{ id: setId }] = await tx.query<{ id: string }>(
        `insert into delinquency_bucket_sets (tenant_id, name) values ($1, 'e2e default') returning id`,
        [T],
      );
      for (const r of refCase.conventions.ranges) {
        await tx.query(
          `insert into delinquency_ranges (tenant_id, bucket_set_id, classification, min_age_days, max_age_days) values ($1, $2, $3, $4, $5)`,
          [T, setId, r.name, r.min, r.max],
        );
      }
      const product = async (code: string, penalties: unknown[]) =>
        (
          await tx.query<{ id: string }>(
            `insert into loan_products (tenant_id, code, name, currency, digits_after_decimal, min_principal, max_principal, min_repayments,
           max_repayments, annual_interest_rate, repayment_every, repayment_frequency, schedule_type, grace_on_arrears_ageing,
           down_payment_percent, delinquency_bucket_set_id, penalties)
         values ($1, $2, $2, 'USD', 2, 100, 10000000, 1, 100, 0, 15, 'DAYS', 'PROGRESSIVE', $3, 25, $4, $5::jsonb) returning id`,
            [T, code, refCase.conventions.grace_on_arrears_ageing_days, setId, JSON.stringify(penalties)],
          )
        )[0].id;
      const lp2 = await product('LP2', []);
      const withPenalty = await product('LP2-PEN', [
        { code: 'LATE', name: 'Late fee', kind: 'FLAT', amount: '500', trigger: 'OVERDUE', graceDays: 2 },
        { code: 'LATE-PCT', name: 'Late percent', kind: 'PERCENT_OF_INSTALLMENT', percent: '1.5', trigger: 'OVERDUE' },
        { code: 'OPEN', kind: 'FLAT', amount: '100', trigger: 'DISBURSEMENT' },
      ]);
      const [{ id: customerId }] = await tx.query<{ id: string }>(
        `insert into customers (tenant_id, first_name, last_name) values ($1, 'Ada', 'Lovelace') returning id`,
        [T],
      );
      const installments = refCase.inputs.installments.map((i) => ({
        n: i.n,
        due: i.due_date,
        principal: cents(i.principal),
        isDownPayment: i.is_down_payment,
      }));
      refLoan = await insertLoan(tx, {
        productId: lp2,
        customerId,
        accountNo: 'REF-1',
        principal: cents(refCase.inputs.principal),
        disbursedOn: start,
        installments,
      });
      // Same terms, down payment paid on time: nothing overdue until 16 Oct.
      paidLoan = await insertLoan(tx, {
        productId: lp2,
        customerId,
        accountNo: 'PAID-1',
        principal: 100000n,
        disbursedOn: start,
        installments: installments.map((i) => ({ ...i, principalPaid: i.n === 1 ? i.principal : 0n })),
      });
      await tx.query(
        `insert into loan_transactions (tenant_id, loan_id, type, transaction_date, currency, amount, principal_portion) values ($1, $2, 'REPAYMENT', $3, 'USD', 25000, 25000)`,
        [T, paidLoan, start],
      );
      penaltyLoan = await insertLoan(tx, {
        productId: withPenalty,
        customerId,
        accountNo: 'PEN-1',
        principal: 100000n,
        disbursedOn: start,
        installments,
      });
      // Offers: two still open to the customer whose last valid day is the day after the start, one
      // requested (the customer already accepted it) past its date, one pending valid for years.
      const lastDay = addDays(start, 1);
      for (const [code, status, expiresOn] of [
        ['EXP-A', 'to_propose', lastDay],
        ['EXP-B', 'pending', lastDay],
        ['KEEP-REQ', 'requested', start],
        ['KEEP-LATER', 'pending', '2099-01-01'],
      ]) {
        await tx.query(
          `insert into offers (tenant_id, code, customer_id, product_id, currency, principal, number_of_repayments, annual_interest_rate, expires_on, status)
           values ($1, $2, $3, $4, 'USD', 100000, 3, 0, $5, $6)`,
          [T, code, customerId, lp2, expiresOn, status],
        );
      }
    });
  });
  afterAll(() => drop?.());

  const state = (loanId: string) =>
    db.tenant(
      T,
      async (tx) =>
        (await tx.query<Record<string, unknown>>(`select * from loan_delinquency where loan_id = $1`, [loanId]))[0],
    );

  it('reproduces the delinquency reference case observation by observation', async () => {
    expect(refCase.id).toBe('delinquency-buckets-e2e-default-ranges');
    for (const obs of refCase.expected.observations) {
      await closeUntil(db, T, obs.business_date);
      const s = await state(refLoan);
      expect(s.as_of).toBe(obs.business_date);
      if (obs.loan) {
        expect({
          classification: s.classification,
          delinquent_amount: s.delinquent_amount,
          delinquent_date: s.delinquent_date,
          delinquent_days: s.delinquent_days,
          past_due_days: s.past_due_days,
        }).toEqual({
          classification: obs.loan.classification,
          delinquent_amount: cents(obs.loan.delinquent_amount),
          delinquent_date: obs.loan.delinquent_date,
          delinquent_days: obs.loan.delinquent_days,
          past_due_days: obs.loan.past_due_days,
        });
      }
      expect(s.installment_level).toEqual(
        obs.installment_level.map((x) => ({ range: x.range, amount: cents(x.amount).toString() })),
      );
    }
  });

  it('wrote one history row per bucket change, with the date it took effect', async () => {
    const rows = await db.tenant(T, (tx) =>
      tx.query(
        `select business_date, from_classification, to_classification, reason, past_due_days, delinquent_days, delinquent_amount
                  from loan_delinquency_history where loan_id = $1 order by business_date`,
        [refLoan],
      ),
    );
    expect(rows).toEqual([
      {
        business_date: '2023-10-05',
        from_classification: null,
        to_classification: 'RANGE_1',
        reason: 'classified',
        past_due_days: 4,
        delinquent_days: 1,
        delinquent_amount: 25000n,
      },
      {
        business_date: '2023-10-08',
        from_classification: 'RANGE_1',
        to_classification: 'RANGE_3',
        reason: 'classified',
        past_due_days: 7,
        delinquent_days: 4,
        delinquent_amount: 25000n,
      },
      {
        business_date: '2023-11-04',
        from_classification: 'RANGE_3',
        to_classification: 'RANGE_30',
        reason: 'classified',
        past_due_days: 34,
        delinquent_days: 31,
        delinquent_amount: 75000n,
      },
      {
        business_date: '2023-12-04',
        from_classification: 'RANGE_30',
        to_classification: 'RANGE_60',
        reason: 'classified',
        past_due_days: 64,
        delinquent_days: 61,
        delinquent_amount: 100000n,
      },
    ]);
  });

  it('expires the offers still open to the customer once their last valid day has been closed, with an audit row each', async () => {
    const start = refCase.inputs.disbursement_date;
    const offers = await db.tenant(T, (tx) =>
      tx.query<{ code: string; status: string }>(`select code, status from offers order by code`),
    );
    expect(offers).toEqual([
      { code: 'EXP-A', status: 'expired' },
      { code: 'EXP-B', status: 'expired' },
      { code: 'KEEP-LATER', status: 'pending' },
      { code: 'KEEP-REQ', status: 'requested' },
    ]);
    const runs = await db.tenant(T, (tx) =>
      tx.query<{ business_date: string; expired: number }>(
        `select business_date, (stats->>'offersExpired')::int as expired from close_runs where (stats->>'offersExpired')::int > 0`,
      ),
    );
    // Valid through start + 1: the close of that day (new business date start + 2) expires them.
    expect(runs).toEqual([{ business_date: addDays(start, 1), expired: 2 }]);
    const audit = await db.tenant(T, (tx) =>
      tx.query<{ actor_id: string; actor_kind: string; before: unknown; after: unknown }>(
        `select actor_id, actor_kind, before, after from audit_log where action = 'offer.expire' order by before->>'status' desc`,
      ),
    );
    expect(audit).toEqual([
      {
        actor_id: 'system:close',
        actor_kind: 'system',
        before: { status: 'to_propose' },
        after: { status: 'expired', expiresOn: addDays(start, 1), businessDate: addDays(start, 2) },
      },
      {
        actor_id: 'system:close',
        actor_kind: 'system',
        before: { status: 'pending' },
        after: { status: 'expired', expiresOn: addDays(start, 1), businessDate: addDays(start, 2) },
      },
    ]);
  });

  it('marks a loan matured once its last due date has passed', async () => {
    const s = await state(refLoan);
    expect(s).toMatchObject({ is_matured: true, matured_on: '2023-11-16', overdue_installments: 4 });
  });

  it('charges each overdue penalty once per installment and posts balanced journal entries', async () => {
    const rows = await db.tenant(T, (tx) =>
      tx.query(
        `select installment_number, penalty_code, business_date, amount from close_penalties where loan_id = $1 order by business_date, installment_number, penalty_code`,
        [penaltyLoan],
      ),
    );
    // 1.5% of 250.00 = 3.75; the flat 5.00 waits 2 days of grace.
    expect(rows).toEqual([
      { installment_number: 1, penalty_code: 'LATE-PCT', business_date: '2023-10-01', amount: 375n },
      { installment_number: 1, penalty_code: 'LATE', business_date: '2023-10-03', amount: 500n },
      { installment_number: 2, penalty_code: 'LATE-PCT', business_date: '2023-10-16', amount: 375n },
      { installment_number: 2, penalty_code: 'LATE', business_date: '2023-10-18', amount: 500n },
      { installment_number: 3, penalty_code: 'LATE-PCT', business_date: '2023-10-31', amount: 375n },
      { installment_number: 3, penalty_code: 'LATE', business_date: '2023-11-02', amount: 500n },
      { installment_number: 4, penalty_code: 'LATE-PCT', business_date: '2023-11-15', amount: 375n },
      { installment_number: 4, penalty_code: 'LATE', business_date: '2023-11-17', amount: 500n },
    ]);
    const [inst] = await db.tenant(T, (tx) =>
      tx.query(`select penalty_due from loan_installments where loan_id = $1 and number = 1`, [penaltyLoan]),
    );
    expect(inst).toEqual({ penalty_due: 875n });
    const ledger = await db.tenant(T, (tx) =>
      tx.query(
        `select account_code, sum(debit)::int8 as debit, sum(credit)::int8 as credit from journal_lines where loan_id = $1 and account_code like 'PENALTY%' group by account_code order by account_code`,
        [penaltyLoan],
      ),
    );
    expect(ledger).toEqual([
      { account_code: 'PENALTY_INCOME', debit: 0n, credit: 3500n },
      { account_code: 'PENALTY_RECEIVABLE', debit: 3500n, credit: 0n },
    ]);
    const [txs] = await db.tenant(T, (tx) =>
      tx.query(
        `select count(*)::int as n, sum(amount)::int8 as total from loan_transactions where loan_id = $1 and type = 'PENALTY_APPLIED'`,
        [penaltyLoan],
      ),
    );
    expect(txs).toEqual({ n: 8, total: 3500n });
    // The penalties count in the overdue amount of that loan.
    expect((await state(penaltyLoan)).delinquent_amount).toBe(103500n);
  });

  it('writes month-end snapshots with outstanding by component, days past due, bucket and amounts paid', async () => {
    const rows = await db.tenant(T, (tx) =>
      tx.query(`select l.account_no, s.month_end, s.principal_outstanding, s.penalty_outstanding, s.total_outstanding, s.past_due_days,
                       s.classification, s.principal_paid_in_month, s.total_paid_in_month
                  from loan_month_end_snapshots s join loans l on l.id = s.loan_id order by s.month_end, l.account_no`),
    );
    expect(rows).toEqual([
      {
        account_no: 'PAID-1',
        month_end: '2023-10-31',
        principal_outstanding: 75000n,
        penalty_outstanding: 0n,
        total_outstanding: 75000n,
        past_due_days: 16,
        classification: 'RANGE_3',
        principal_paid_in_month: 25000n,
        total_paid_in_month: 25000n,
      },
      {
        account_no: 'PEN-1',
        month_end: '2023-10-31',
        principal_outstanding: 100000n,
        penalty_outstanding: 2125n,
        total_outstanding: 102125n,
        past_due_days: 31,
        classification: 'RANGE_3',
        principal_paid_in_month: 0n,
        total_paid_in_month: 0n,
      },
      {
        account_no: 'REF-1',
        month_end: '2023-10-31',
        principal_outstanding: 100000n,
        penalty_outstanding: 0n,
        total_outstanding: 100000n,
        past_due_days: 31,
        classification: 'RANGE_3',
        principal_paid_in_month: 0n,
        total_paid_in_month: 0n,
      },
      {
        account_no: 'PAID-1',
        month_end: '2023-11-30',
        principal_outstanding: 75000n,
        penalty_outstanding: 0n,
        total_outstanding: 75000n,
        past_due_days: 46,
        classification: 'RANGE_30',
        principal_paid_in_month: 0n,
        total_paid_in_month: 0n,
      },
      {
        account_no: 'PEN-1',
        month_end: '2023-11-30',
        principal_outstanding: 100000n,
        penalty_outstanding: 3500n,
        total_outstanding: 103500n,
        past_due_days: 61,
        classification: 'RANGE_30',
        principal_paid_in_month: 0n,
        total_paid_in_month: 0n,
      },
      {
        account_no: 'REF-1',
        month_end: '2023-11-30',
        principal_outstanding: 100000n,
        penalty_outstanding: 0n,
        total_outstanding: 100000n,
        past_due_days: 61,
        classification: 'RANGE_30',
        principal_paid_in_month: 0n,
        total_paid_in_month: 0n,
      },
    ]);
  });

  it('records a cure when the overdue amount is repaid', async () => {
    await db.tenant(T, async (tx) => {
      // Repaid outside the commands (a fixture), with the repayment's ledger side so the ledger check holds.
      const [{ rest }] = await tx.query<{ rest: bigint }>(
        `select sum(principal_due - principal_paid)::int8 as rest from loan_installments where loan_id = $1`,
        [paidLoan],
      );
      await tx.query(
        `update loan_installments set principal_paid = principal_due, obligations_met_on = '2023-12-16' where loan_id = $1`,
        [paidLoan],
      );
      await postJournalEntry(tx, {
        tenantId: T,
        date: '2023-12-16',
        currency: 'USD',
        loanId: paidLoan,
        description: 'Repayment of loan PAID-1 (test fixture)',
        lines: [
          { account: 'FUND_SOURCE', debit: rest },
          { account: 'LOAN_PORTFOLIO', credit: rest },
        ],
      });
    });
    await db.tenant(T, (tx) =>
      tx.query(`update loans set status = 'CLOSED_OBLIGATIONS_MET', closed_on = '2023-12-16' where id = $1`, [
        paidLoan,
      ]),
    );
    const result = await runDailyClose(db, T);
    expect(result).toMatchObject({
      businessDate: '2023-12-16',
      newBusinessDate: '2023-12-17',
      wasAlreadyClosed: false,
    });
    const [last] = await db.tenant(T, (tx) =>
      tx.query(
        `select business_date, from_classification, to_classification, reason from loan_delinquency_history where loan_id = $1 order by business_date desc limit 1`,
        [paidLoan],
      ),
    );
    expect(last).toEqual({
      business_date: '2023-12-17',
      from_classification: 'RANGE_30',
      to_classification: null,
      reason: 'closed',
    });
    expect(await state(paidLoan)).toMatchObject({ classification: null, past_due_days: 0, delinquent_amount: 0n });
  });

  it('is idempotent: re-running a closed date, or two closes at once, applies the day once', async () => {
    const count = () =>
      db.tenant(
        T,
        async (tx) =>
          (
            await tx.query<{ h: number; p: number; r: number }>(
              `select (select count(*)::int from loan_delinquency_history) as h, (select count(*)::int from close_penalties) as p, (select count(*)::int from close_runs) as r`,
            )
          )[0],
      );
    const before = await count();
    const again = await runDailyClose(db, T, { businessDate: '2023-12-16' });
    expect(again).toMatchObject({ wasAlreadyClosed: true, newBusinessDate: '2023-12-17' });
    expect(await count()).toEqual(before);
    const both = await Promise.all([
      runDailyClose(db, T, { businessDate: '2023-12-17' }),
      runDailyClose(db, T, { businessDate: '2023-12-17' }),
    ]);
    expect(both.map((r) => r.wasAlreadyClosed).sort()).toEqual([false, true]);
    const [{ business_date }] = await db.system((tx) =>
      tx.query<{ business_date: string }>(`select business_date from tenants where id = $1`, [T]),
    );
    expect(business_date).toBe('2023-12-18');
    await expect(runDailyClose(db, T, { businessDate: '2023-12-25' })).rejects.toThrow(/cannot be closed before/);
  });
});

describe('close helpers', () => {
  it('knows month ends, leap years included', () => {
    expect(['2024-02-29', '2023-02-28', '2023-12-31', '2023-04-30'].every(isMonthEnd)).toBe(true);
    expect(['2024-02-28', '2023-12-30', '2023-04-29'].some(isMonthEnd)).toBe(false);
  });
  it('rounds percentage penalties half-even to the minor unit', () => {
    expect(percentOf(25000n, '1.5')).toBe(375n);
    expect(percentOf(250n, '1')).toBe(2n); // 2.5 → 2
    expect(percentOf(350n, '1')).toBe(4n); // 3.5 → 4
    expect(percentOf(123457n, '2.25')).toBe(2778n); // 2777.78…
  });
});
