import { apiSession, expect, test } from './support/fixtures.ts';

// The lending JSON API against the built server: the contract outside checks use
// (GET /v1/loans, GET /v1/loans/{id}, POST /v1/loans/{id}/repayments with Idempotency-Key) and the
// maker-checker path that leads to an active loan, all through the real middleware.

test('[LENDING]: maker-checker to an active loan, idempotent repayment, loan list and detail', async ({
  browser,
  baseURL,
}) => {
  // Two real sign-ins (Argon2id) and a dozen API calls: allow for a busy machine.
  test.setTimeout(120_000);
  const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
  const officer = await apiSession(browser, 'officer@demo.test', baseURL!);
  const code = `E2E${Date.now() % 1_000_000}`;

  const product = await admin.post('/v1/products', {
    data: {
      code,
      name: 'E2E monthly EMI',
      currency: 'EUR',
      digitsAfterDecimal: 2,
      minPrincipal: '100.00',
      maxPrincipal: '50000.00',
      minRepayments: 1,
      maxRepayments: 36,
      annualInterestRate: '12',
      repaymentFrequency: 'MONTHS',
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
    },
  });
  expect(product.status()).toBe(201);
  const productId = (await product.json()).id;

  const customer = await officer.post('/v1/customers', { data: { firstName: 'Éloïse', lastName: `Test ${code}` } });
  expect(customer.status()).toBe(201);
  const customerId = (await customer.json()).id;

  const application = await officer.post('/v1/applications', {
    data: { customerId, productId, principal: '1200.00', numberOfRepayments: 12 },
  });
  expect(application.status()).toBe(201);
  const { id: applicationId, loanId } = await application.json();

  // The officer cannot approve (no permission, and they are the maker); the admin can.
  expect(
    (
      await officer.post(`/v1/applications/${applicationId}/approve`, {
        data: {},
        headers: { 'Idempotency-Key': `${code}-a0` },
      })
    ).status(),
  ).toBe(403);
  const approved = await admin.post(`/v1/applications/${applicationId}/approve`, {
    data: {},
    headers: { 'Idempotency-Key': `${code}-a1` },
  });
  expect(approved.status()).toBe(200);
  const disbursed = await admin.post(`/v1/loans/${loanId}/disbursements`, {
    data: {},
    headers: { 'Idempotency-Key': `${code}-d1` },
  });
  expect(disbursed.status()).toBe(201);
  expect((await disbursed.json()).loan.status).toBe('ACTIVE');

  const noKey = await officer.post(`/v1/loans/${loanId}/repayments`, { data: { amount: '10.00' } });
  expect(noKey.status()).toBe(400);
  const first = await officer.post(`/v1/loans/${loanId}/repayments`, {
    data: { amount: '10.00' },
    headers: { 'Idempotency-Key': `${code}-r1` },
  });
  expect(first.status()).toBe(201);
  const body = await first.json();
  expect(body.transaction).toMatchObject({ id: expect.any(String), type: 'REPAYMENT', amount: '10.00' });
  expect(body.loan).toMatchObject({ id: loanId, status: 'ACTIVE' });
  const replay = await officer.post(`/v1/loans/${loanId}/repayments`, {
    data: { amount: '10.00' },
    headers: { 'Idempotency-Key': `${code}-r1` },
  });
  expect(replay.status()).toBe(201);
  expect(replay.headers()['idempotent-replayed']).toBe('true');
  expect(await replay.text()).toBe(await first.text());
  const mismatch = await officer.post(`/v1/loans/${loanId}/repayments`, {
    data: { amount: '11.00' },
    headers: { 'Idempotency-Key': `${code}-r1` },
  });
  expect(mismatch.status()).toBe(422);

  const list = await officer.get('/v1/loans?status=ACTIVE&limit=5');
  expect(list.status()).toBe(200);
  const items = (await list.json()).items as { id: string; status: string }[];
  expect(items.length).toBeGreaterThan(0);
  expect(items.length).toBeLessThanOrEqual(5);
  for (const item of items) expect(item.status).toBe('ACTIVE');

  const detail = await officer.get(`/v1/loans/${loanId}`);
  expect(detail.status()).toBe(200);
  const loan = await detail.json();
  expect(loan.installments).toHaveLength(12);
  expect(loan.transactions.map((t: { type: string; amount: string }) => [t.type, t.amount])).toEqual([
    ['DISBURSEMENT', '1200.00'],
    ['REPAYMENT', '10.00'],
  ]);
  for (const t of loan.transactions)
    expect(t).toMatchObject({ id: expect.any(String), date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
});
