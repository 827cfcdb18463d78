import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import type { Language } from '#lib/i18n/index.ts';
import { POST as repay } from '../../src/pages/v1/loans/[id]/repayments.ts';
import { POST as charge } from '../../src/pages/v1/loans/[id]/charges.ts';
import { POST as submit } from '../../src/pages/v1/applications/index.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { applyLoanCharge } from '#lib/lending/commands/apply-loan-charge.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import { createProduct } from '#lib/lending/products.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

// Money without sanity limits. A repayment above what the loan owes, amounts past
// the bound, exponents and overflowing digit strings — on PGlite and Postgres, through the commands
// and through the /v1 endpoints in English and French.

const principalOf = (f: LendingFixture, userId: string, language: Language, isAdmin = false): Principal => ({
  tenantId: f.tenantId,
  userId,
  displayName: userId,
  email: `${userId}@example.test`,
  isAdmin,
  authorities: ['loans.loans.repay', 'loans.loans.view', 'loans.offers.request_loan'],
  dataPermissions: [],
  language,
  via: 'session',
  sessionId: null,
  passwordChangeRequired: false,
  sessionTimeout: 3600,
  idleTimeout: 3600,
});

async function call(
  handler: (context: never) => Response | Promise<Response>,
  url: string,
  init: { principal: Principal; params?: Record<string, string>; body: unknown; key?: string },
) {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (init.key) headers.set('Idempotency-Key', init.key);
  const request = new Request(`http://localhost${url}`, { method: 'POST', headers, body: JSON.stringify(init.body) });
  const response = await handler({
    request,
    params: init.params ?? {},
    locals: { principal: init.principal, requestId: 'test', language: init.principal.language },
    clientAddress: '127.0.0.1',
  } as never);
  return { status: response.status, body: JSON.parse(await response.text()) };
}

describe.each(testDbKinds())('money limits on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let open: string;
  const view = (loanId: string) => db.tenant(f.tenantId, (tx) => getLoanView(tx, loanId));
  const count = (loanId: string) =>
    db.tenant(
      f.tenantId,
      async (tx) =>
        (
          await tx.query<{ n: number }>(`select count(*)::int as n from loan_transactions where loan_id = $1`, [loanId])
        )[0].n,
    );

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    // The default product takes no overpayment; a second one does.
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    open = (
      await db.tenant(f.tenantId, (tx) =>
        createProduct(tx, f.tenantId, {
          code: 'OVER',
          name: 'Overpayment allowed',
          currency: f.currency,
          digitsAfterDecimal: 2,
          minPrincipal: 1_000n,
          maxPrincipal: 100_000_000n,
          minRepayments: 1,
          maxRepayments: 36,
          annualInterestRate: '12',
          repaymentFrequency: 'MONTHS',
          interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
          allowOverpayment: true,
        }),
      )
    ).id;
  });
  afterAll(async () => {
    expect((await checkLedger(db)).differences).toEqual([]);
    await drop();
  });

  test('a repayment above what the loan owes is refused when the product takes no overpayment; the exact payoff is accepted', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1100.00', numberOfRepayments: 1 });
    // 1,100.00 + 11.00 interest owed.
    for (const amount of ['99999999999', '1111.01']) {
      const error = await refused(
        db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount, confirmOverpayment: true })),
      );
      expect(error).toMatchObject({
        code: 'UNPROCESSABLE',
        field: 'amount',
        key: 'money.exceedsOwed',
        details: { owed: '1111.00', reason: 'overpayment' },
      });
    }
    expect(await count(loanId)).toBe(1);
    await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '1111.00' }));
    expect(await view(loanId)).toMatchObject({ status: 'CLOSED_OBLIGATIONS_MET', creditBalance: '0.00' });
  });

  test('with overpayment allowed, the excess needs confirmation and becomes the credit balance it announced', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1100.00', numberOfRepayments: 1, productId: open });
    const error = await refused(db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '1200.00' })));
    expect(error).toMatchObject({
      code: 'CONFLICT',
      field: 'amount',
      key: 'money.confirmOverpayment',
      details: { reason: 'overpayment_unconfirmed', owed: '1111.00', creditBalance: '89.00' },
    });
    expect(await count(loanId)).toBe(1);
    await db.tenant(f.tenantId, (tx) =>
      repayLoan(tx, f.checker, { loanId, amount: '1200.00', confirmOverpayment: true }),
    );
    expect(await view(loanId)).toMatchObject({ status: 'OVERPAID', creditBalance: '89.00' });
  });

  test('amounts past the bound, exponents and int8-overflowing digits are 400s naming the field, never a 500', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    for (const [amount, key] of [
      ['92233720368547758.07', 'money.tooLarge'],
      ['9223372036854775807', 'money.tooLarge'],
      ['10000000000000.00', 'money.tooLarge'],
      ['1e20', 'money.invalid'],
      ['0x10', 'money.invalid'],
      ['1'.repeat(500), 'money.tooLarge'],
      ['-10', 'money.mustBePositive'],
      ['abc', 'money.invalid'],
    ] as const) {
      expect(await refused(db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount })))).toMatchObject({
        code: 'BAD_REQUEST',
        field: 'amount',
        key,
      });
      expect(
        await refused(db.tenant(f.tenantId, (tx) => applyLoanCharge(tx, f.admin, { loanId, kind: 'fee', amount }))),
      ).toMatchObject({ code: 'BAD_REQUEST', field: 'amount', key });
    }
    // Charges cannot take what a loan owes past the bound either, however many there are.
    expect(
      await refused(
        db.tenant(f.tenantId, (tx) =>
          applyLoanCharge(tx, f.admin, { loanId, kind: 'penalty', amount: '9999999999999.99' }),
        ),
      ),
    ).toMatchObject({ field: 'amount', key: 'money.chargeTooLarge' });
    expect(await count(loanId)).toBe(1);
    for (const principal of ['92233720368547758.07', '1e20', '1000.001']) {
      expect(
        await refused(
          db.tenant(f.tenantId, (tx) =>
            submitApplication(tx, f.maker, {
              customerId: f.customerId,
              productId: f.productId,
              principal,
              numberOfRepayments: 12,
            }),
          ),
        ),
      ).toMatchObject({ code: 'BAD_REQUEST', field: 'principal' });
    }
    expect(
      await refused(
        db.tenant(f.tenantId, (tx) =>
          createProduct(tx, f.tenantId, {
            code: 'HUGE',
            name: 'Huge',
            currency: f.currency,
            digitsAfterDecimal: 2,
            minPrincipal: 1n,
            maxPrincipal: 9_223_372_036_854_775_807n,
            minRepayments: 1,
            maxRepayments: 12,
            annualInterestRate: '1',
            repaymentFrequency: 'MONTHS',
          }),
        ),
      ),
    ).toMatchObject({ field: 'maxPrincipal', key: 'money.tooLarge' });
  });

  test('over HTTP: 400/409/422 with the field and a message in the caller’s language; no change', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1100.00', numberOfRepayments: 1, productId: open });
    const en = principalOf(f, f.checker.userId, 'en');
    const fr = principalOf(f, f.checker.userId, 'fr');
    const url = `/v1/loans/${loanId}/repayments`;
    const params = { id: loanId };
    let answer = await call(repay, url, {
      principal: en,
      params,
      key: 'k-huge',
      body: { amount: '92233720368547758.07' },
    });
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error: { field: 'amount', key: 'money.tooLarge', message: 'Amount must be at most 9,999,999,999,999.99.' },
      },
    });
    answer = await call(repay, url, { principal: fr, params, key: 'k-huge', body: { amount: '92233720368547758.07' } });
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error: { field: 'amount', message: 'Montant doit être au plus 9\u202f999\u202f999\u202f999\u202f999,99.' },
      },
    });
    answer = await call(repay, url, { principal: fr, params, key: 'k-exp', body: { amount: '1e20' } });
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error: { field: 'amount', message: 'Montant doit être un montant écrit en chiffres, par exemple 10.50.' },
      },
    });
    answer = await call(repay, url, { principal: en, params, key: 'k-neg', body: { amount: '-10' } });
    expect(answer.body.error).toMatchObject({ field: 'amount', message: 'Amount must be greater than 0.' });
    answer = await call(repay, url, { principal: en, params, key: 'k-null', body: { amount: null } });
    expect(answer.body.error).toMatchObject({ field: 'amount', message: 'Amount is required.' });
    answer = await call(repay, url, {
      principal: fr,
      params,
      key: 'k-date',
      body: { amount: '10.00', date: '2027-02-31' },
    });
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error: { field: 'date', message: 'Date doit être une date réelle du calendrier, par exemple 2027-02-28.' },
      },
    });
    answer = await call(repay, url, {
      principal: fr,
      params,
      key: 'k-future',
      body: { amount: '10.00', date: '2026-01-16' },
    });
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error: { field: 'date', message: 'Date ne doit pas être postérieure à la date d’activité (15/01/2026).' },
      },
    });
    // Overpayment: 409 with the credit balance, in French; then the same key with the confirmation.
    answer = await call(repay, url, { principal: fr, params, key: 'k-over', body: { amount: '1200.00' } });
    expect(answer).toMatchObject({
      status: 409,
      body: { error: { field: 'amount', reason: 'overpayment_unconfirmed', owed: '1111.00', creditBalance: '89.00' } },
    });
    expect(answer.body.error.message).toBe(
      'Montant dépasse ce que doit le prêt (1\u202f111,00) : confirmez pour laisser un solde créditeur de 89,00.',
    );
    expect(await count(loanId)).toBe(1);
    answer = await call(repay, url, {
      principal: fr,
      params,
      key: 'k-over',
      body: { amount: '1200.00', confirmOverpayment: true },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.loan).toMatchObject({ status: 'OVERPAID', creditBalance: '89.00' });
    // Principal on the application endpoint: the label and the product's range, in French.
    const officer = principalOf(f, f.maker.userId, 'fr');
    answer = await call(submit, '/v1/applications', {
      principal: officer,
      body: { customerId: f.customerId, productId: f.productId, principal: '5.00', numberOfRepayments: 12 },
    });
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error: { field: 'principal', message: 'Montant doit être compris entre 10,00 et 1\u202f000\u202f000,00.' },
      },
    });
    answer = await call(submit, '/v1/applications', {
      principal: officer,
      body: { customerId: f.customerId, productId: f.productId, principal: '500.00', numberOfRepayments: 1.5 },
    });
    expect(answer).toMatchObject({
      status: 400,
      body: { error: { field: 'numberOfRepayments', message: 'Nombre d’échéances doit être un nombre entier.' } },
    });
    const admin = principalOf(f, f.admin.userId, 'en', true);
    answer = await call(charge, `/v1/loans/${loanId}/charges`, {
      principal: admin,
      params,
      key: 'c-1',
      body: { kind: 'fee', amount: 'Infinity' },
    });
    expect(answer).toMatchObject({ status: 400, body: { error: { field: 'amount', key: 'money.invalid' } } });
  });
});
