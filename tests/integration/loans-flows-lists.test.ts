import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { createOffer, notifyOffer, requestOfferLoan } from '#lib/lending/offers.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { parseMinor } from '#lib/money/money.ts';
import { countTabs, loadPage, type ListQueryOptions } from '#lib/lists/query.ts';
import { parseListState } from '#lib/lists/url-state.ts';
import { offersList } from '#lib/lists/defs/offers.ts';
import { paymentsList } from '#lib/lists/defs/payments.ts';
import { applicationsList } from '#lib/lists/defs/applications.ts';
import type { ListDef } from '#lib/lists/definition.ts';
import { installmentParts } from '#lib/offers-ui/installment-parts.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

// The offers, payments and loan-applications lists against the lending engine's own data: every
// tab's rule is checked on rows made by the real commands (offer lifecycle, maker-checker,
// disbursement, a repayment), at the tenant's business date.

const BD = '2026-01-15';

describe.each(testDbKinds())('loans workspace lists (offers, payments, applications) on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let loanId: string;
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const options: ListQueryOptions = { businessDate: BD, currencyDigits: 2, rowScope: null };
  const page = (def: ListDef, query: string) =>
    t((tx) => loadPage(tx, def, parseListState(def, new URLSearchParams(query)).state, options));
  const counts = (def: ListDef, query = '') =>
    t((tx) => countTabs(tx, def, parseListState(def, new URLSearchParams(query)).state, options));

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    // Disbursed on 2025-11-10, first installment paid in full in December, the business date then
    // moved to 2026-01-15: the second installment (due 2026-01-10) is late, the other ten expected.
    f = await createLendingFixture(db, { businessDate: '2025-11-10' });
    ({ loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 }));
    const view = await t((tx) => getLoanView(tx, loanId));
    await setBusinessDate(db, f.tenantId, '2025-12-12');
    await t((tx) => repayLoan(tx, f.maker, { loanId, amount: view.installments[0].total }));
    await setBusinessDate(db, f.tenantId, BD);
    const offer = (principal: string) =>
      t((tx) =>
        createOffer(tx, f.maker, {
          customerId: f.customerId,
          productId: f.productId,
          principal,
          numberOfRepayments: 6,
          expiresOn: '2026-02-28',
        }),
      );
    await offer('500.00');
    const notified = await offer('600.00');
    await t((tx) => notifyOffer(tx, f.maker, notified.id, { channel: 'Message' }));
    const requested = await offer('700.00');
    await t((tx) => requestOfferLoan(tx, f.maker, requested.id));
  });
  afterAll(async () => drop());

  test('payments: late = unpaid installments due before the business date, expected = due on or after it, amounts as the engine', async () => {
    const view = await t((tx) => getLoanView(tx, loanId));
    const parts = view.installments.map((i) => ({
      number: i.number,
      dueDate: i.dueDate,
      ...installmentParts(i, BD, view.currency),
      outstanding: parseMinor(i.outstanding.total, 2),
    }));
    const late = parts.filter((p) => p.outstanding > 0n && p.dueDate < BD);
    const expected = parts.filter((p) => p.outstanding > 0n && p.dueDate >= BD);
    expect(late.map((p) => p.number)).toEqual([2]);
    expect(expected).toHaveLength(10);
    expect(await counts(paymentsList)).toEqual({ late: 1, expected: 10 });

    const latePage = await page(paymentsList, 'tab=late');
    expect(latePage.rows).toHaveLength(1);
    expect(latePage.rows[0].values).toMatchObject({ installment: 2, due_date: late[0].dueDate, days_late: 5 });
    expect(BigInt(latePage.rows[0].values.amount_due as bigint)).toBe(late[0].outstanding);
    expect(latePage.rows[0].href).toBe(`/loans/customer/profile/${f.customerId}/loans/${loanId}/repay`);
    // The installment page parts agree: what is left of #2 is overdue, #1 is paid.
    expect(parts[0]).toMatchObject({ state: 'paid', overdue: '0.00', due: '0.00' });
    expect(parts[1]).toMatchObject({ state: 'overdue', paid: '0.00' });

    // A date range is the due-date filter.
    const ranged = await page(paymentsList, 'tab=expected&f.due_date=2026-02-01..2026-03-31');
    expect(ranged.rows.map((r) => r.values.installment)).toEqual(
      expected.filter((p) => p.dueDate >= '2026-02-01' && p.dueDate <= '2026-03-31').map((p) => p.number),
    );
  });

  test('offers: tabs follow the offer lifecycle; rows open the profile offer page', async () => {
    expect(await counts(offersList)).toEqual({ total_active: 3, to_propose: 1, pending: 1, disbursed: 0 });
    const toPropose = await page(offersList, 'tab=to_propose');
    expect(toPropose.rows).toHaveLength(1);
    expect(toPropose.rows[0].values.principal).toBe(50_000n);
    expect(toPropose.rows[0].href).toMatch(
      new RegExp(`^/loans/customer/profile/${f.customerId}/offers/[0-9a-f-]{36}$`),
    );
  });

  test('loan applications: to decide = submitted; approved; all', async () => {
    expect(await counts(applicationsList)).toEqual({ to_decide: 1, approved: 1, closed: 0, all: 2 });
    const toDecide = await page(applicationsList, 'tab=to_decide');
    expect(toDecide.rows[0].values).toMatchObject({ status: 'submitted', principal: 70_000n });
    expect(toDecide.rows[0].href).toMatch(
      new RegExp(`^/loans/customer/profile/${f.customerId}/processing-loans/[0-9a-f-]{36}$`),
    );
  });
});
