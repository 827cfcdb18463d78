import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import {
  createOffer,
  expireOffers,
  getOffer,
  notifyOffer,
  offerActions,
  rejectOffer,
  requestOfferLoan,
} from '#lib/lending/offers.ts';
import { approveApplication } from '#lib/lending/commands/approve-application.ts';
import { rejectApplication } from '#lib/lending/commands/reject-application.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { setCustomerOptIn, setCustomerRiskClass } from '#lib/lending/customers.ts';
import { addHoliday, setNonWorkingWeekdays } from '#lib/lending/days-off.ts';
import { createCollateral, linkCollateral, listLoanCollaterals } from '#lib/lending/collaterals.ts';
import { deleteExpiredIdempotencyKeys } from '#lib/lending/idempotency.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

describe.each(testDbKinds())('offers, customers, days off on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
  });
  afterAll(async () => {
    expect((await checkLedger(db)).differences).toEqual([]);
    await drop();
  });
  const t = <T>(fn: (tx: import('#lib/db/index.ts').Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const offer = () =>
    t((tx) =>
      createOffer(tx, f.maker, {
        customerId: f.customerId,
        productId: f.productId,
        principal: '600.00',
        numberOfRepayments: 6,
        expiresOn: '2026-01-31',
      }),
    );

  test('an offer goes to_propose → pending (notified) → requested → disbursed through the real commands', async () => {
    const o = await offer();
    expect(o).toMatchObject({ status: 'to_propose', principal: 60_000n });
    expect(o.code).toMatch(/^[A-Z2-9]{8}$/);
    expect((await refused(t((tx) => notifyOffer(tx, f.maker, o.id, { channel: 'Pigeon' })))).field).toBe('Channel');
    expect((await refused(t((tx) => notifyOffer(tx, f.maker, o.id, { channel: 'PhoneCall' })))).field).toBe(
      'Client_Feedback',
    );
    const notified = await t((tx) =>
      notifyOffer(tx, f.maker, o.id, { channel: 'PhoneCall', feedback: 'Interested', comment: 'call back Monday' }),
    );
    expect(notified).toMatchObject({
      status: 'pending',
      notify_channel: 'PhoneCall',
      notify_feedback: 'Interested',
      notify_comment: 'call back Monday',
    });
    const { offer: requested, application, loanId } = await t((tx) => requestOfferLoan(tx, f.maker, o.id));
    expect(requested.status).toBe('requested');
    expect(application).toMatchObject({ status: 'submitted', offer_id: o.id, principal: 60_000n });
    await t((tx) => approveApplication(tx, f.checker, application.id));
    await t((tx) => disburseLoan(tx, f.checker, { loanId }));
    expect(await t((tx) => getOffer(tx, o.id))).toMatchObject({ status: 'disbursed', loan_id: loanId });
  });

  test('a message notification needs no feedback; rejection and expiry end the offer', async () => {
    const a = await offer();
    expect(
      await t((tx) => notifyOffer(tx, f.maker, a.id, { channel: 'Message', feedback: 'Neutral', comment: 'ignored' })),
    ).toMatchObject({
      status: 'pending',
      notify_feedback: null,
      notify_comment: null,
    });
    await t((tx) => rejectOffer(tx, f.maker, a.id, 'not interested'));
    expect((await refused(t((tx) => requestOfferLoan(tx, f.maker, a.id)))).details).toEqual({ reason: 'wrong_state' });

    const b = await offer();
    await setBusinessDate(db, f.tenantId, '2026-02-01');
    const actions = await t(async (tx) => offerActions(tx, f.tenantId, await getOffer(tx, b.id)));
    expect(actions.find((x) => x.action === 'request')).toMatchObject({
      allowed: false,
      reason: { code: 'offer_expired' },
    });
    expect(await t((tx) => expireOffers(tx, f.tenantId, '2026-02-01'))).toBeGreaterThanOrEqual(1);
    expect(await t((tx) => getOffer(tx, b.id))).toMatchObject({ status: 'expired' });
    await setBusinessDate(db, f.tenantId, f.businessDate);
  });

  test('rejecting the application of a requested offer rejects the offer', async () => {
    const o = await offer();
    const { application } = await t((tx) => requestOfferLoan(tx, f.maker, o.id));
    await t((tx) => rejectApplication(tx, f.checker, application.id, 'bureau'));
    expect(await t((tx) => getOffer(tx, o.id))).toMatchObject({
      status: 'rejected',
      rejected_reason: 'application rejected',
    });
  });

  test('opt-in and risk class changes keep their history with the reason', async () => {
    expect((await refused(t((tx) => setCustomerOptIn(tx, f.maker, f.customerId, 'opted_out', ' ')))).field).toBe(
      'reason',
    );
    await t((tx) => setCustomerOptIn(tx, f.maker, f.customerId, 'opted_out', 'asked by phone'));
    await t((tx) => setCustomerRiskClass(tx, f.maker, f.customerId, 'B', 'bureau score 640'));
    const history = await t((tx) =>
      tx.query<{ status: string; reason: string }>(
        `select status, reason from customer_opt_in_history where customer_id = $1 order by changed_at, id`,
        [f.customerId],
      ),
    );
    expect(history.map((h) => [h.status, h.reason])).toEqual([
      ['opted_in', 'created'],
      ['opted_out', 'asked by phone'],
    ]);
    const risk = await t((tx) =>
      tx.query<{ risk_class: string }>(`select risk_class from customer_risk_class_history where customer_id = $1`, [
        f.customerId,
      ]),
    );
    expect(risk).toEqual([{ risk_class: 'B' }]);
    await t((tx) => setCustomerOptIn(tx, f.maker, f.customerId, 'opted_in', 'changed their mind'));
  });

  test('due dates on days off move to the next working day at disbursement', async () => {
    await t((tx) => setNonWorkingWeekdays(tx, f.admin, [6, 7]));
    await t((tx) => addHoliday(tx, f.admin, { name: 'Easter Monday', from: '2026-04-06', to: '2026-04-06' }));
    const { loanId } = await f.disbursedLoan({ principal: '300.00', numberOfRepayments: 3 });
    const loan = await t((tx) => getLoanView(tx, loanId));
    // 15 Feb 2026 is a Sunday → Monday 16; 15 Mar is a Sunday → 16; 15 Apr is a Wednesday.
    expect(loan.installments.map((i) => i.dueDate)).toEqual(['2026-02-16', '2026-03-16', '2026-04-15']);
    await t((tx) => setNonWorkingWeekdays(tx, f.admin, []));
  });

  test('collaterals are pledged to loans of their own customer', async () => {
    const { loanId } = await f.approvedLoan();
    const c = await t((tx) =>
      createCollateral(tx, f.maker, {
        customerId: f.customerId,
        type: 'vehicle',
        currency: 'USD',
        value: '8000.00',
        valuationDate: '2026-01-10',
      }),
    );
    await t((tx) => linkCollateral(tx, f.maker, loanId, c.id));
    expect((await t((tx) => listLoanCollaterals(tx, loanId))).map((x) => [x.type, x.value])).toEqual([
      ['vehicle', 800_000n],
    ]);
    expect(
      (
        await refused(
          t((tx) =>
            createCollateral(tx, f.maker, {
              customerId: f.customerId,
              type: 'vehicle',
              currency: 'USD',
              value: '-1',
              valuationDate: '2026-01-10',
            }),
          ),
        )
      ).field,
    ).toBe('value');
  });

  test('idempotency keys are kept 24 hours, then cleaned up', async () => {
    await t((tx) =>
      tx.query(
        `insert into idempotency_keys (tenant_id, user_id, key, request_hash, created_at) values ($1, 'u', 'old', 'h', now() - interval '25 hours'), ($1, 'u', 'new', 'h', now() - interval '23 hours')`,
        [f.tenantId],
      ),
    );
    expect(await deleteExpiredIdempotencyKeys(db, f.tenantId, 1)).toBe(1); // a shorter retention is raised to 24 h
    expect(
      (await t((tx) => tx.query<{ key: string }>(`select key from idempotency_keys where user_id = 'u'`))).map(
        (r) => r.key,
      ),
    ).toEqual(['new']);
  });
});
