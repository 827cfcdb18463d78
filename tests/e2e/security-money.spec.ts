import type { APIRequestContext, Browser, Page } from '@playwright/test';
import { expect, signInThroughForm, test } from './support/fixtures.ts';
import { DATE_PAYLOADS, MONEY_PAYLOADS } from './support/payloads-money.ts';

// Money without sanity limits, dates, and messages written for people.
// Every money field of the /v1 API gets every hostile amount (400 naming the field, nothing
// changes); a repayment above what is owed needs the product's consent and the user's confirmation;
// the repayment and application edit forms show labelled messages in English and French, keep what
// was typed, and confirm an overpayment showing the credit balance it creates.

type Session = { page: Page; api: APIRequestContext };
type Loan = {
  customerId: string;
  loanId: string;
  applicationId: string;
  pendingLoanId: string;
  pendingApplicationId: string;
};

async function session(browser: Browser, baseURL: string, email: string): Promise<Session> {
  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  const page = await context.newPage();
  await signInThroughForm(page, email);
  await expect(page).not.toHaveURL(/\/user\/login/);
  return { page, api: context.request };
}

let counter = 0;
const key = (prefix: string) => `${prefix}-${Date.now()}-${counter++}`;

async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    [...document.querySelectorAll('astro-island')].every((island) => !island.hasAttribute('ssr')),
  );
}

/** For `owner` (their branch), of the product: an active loan of 1,100.00 over 1 month and a pending application. */
async function setUp(admin: Session, owner: Session, code: string, productId: string): Promise<Loan> {
  const customer = await owner.api.post('/v1/customers', { data: { firstName: 'Money', lastName: `Probe ${code}` } });
  expect(customer.status()).toBe(201);
  const customerId = (await customer.json()).id;
  const submit = (principal: string) =>
    owner.api.post('/v1/applications', {
      data: { customerId, productId, principal, numberOfRepayments: 1, formData: { purpose: 'Probe' } },
    });
  const active = await submit('1100.00');
  expect(active.status()).toBe(201);
  const { id: applicationId, loanId } = await active.json();
  expect(
    (
      await admin.api.post(`/v1/applications/${applicationId}/approve`, {
        data: {},
        headers: { 'Idempotency-Key': key('approve') },
      })
    ).status(),
  ).toBe(200);
  expect(
    (
      await admin.api.post(`/v1/loans/${loanId}/disbursements`, {
        data: {},
        headers: { 'Idempotency-Key': key('disburse') },
      })
    ).status(),
  ).toBe(201);
  const pending = await submit('1500.00');
  expect(pending.status()).toBe(201);
  const { id: pendingApplicationId, loanId: pendingLoanId } = await pending.json();
  return { customerId, loanId, applicationId, pendingLoanId, pendingApplicationId };
}

async function createProduct(admin: Session, code: string, allowOverpayment: boolean): Promise<string> {
  const product = await admin.api.post('/v1/products', {
    data: {
      code,
      name: `Money probe ${code}`,
      currency: 'EUR',
      digitsAfterDecimal: 2,
      minPrincipal: '100.00',
      maxPrincipal: '50000.00',
      minRepayments: 1,
      maxRepayments: 36,
      annualInterestRate: '12',
      repaymentFrequency: 'MONTHS',
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
      allowOverpayment,
    },
  });
  expect(product.status()).toBe(201);
  return (await product.json()).id;
}

test.describe.configure({ mode: 'serial' });

let admin: Session;
let officer: Session;
let agent: Session;
let productId: string;
let strictProductId: string;
let enLoan: Loan;
let frLoan: Loan;

test.beforeAll(async ({ browser, baseURL }) => {
  test.setTimeout(180_000);
  admin = await session(browser, baseURL!, 'admin@demo.test');
  officer = await session(browser, baseURL!, 'officer@demo.test');
  agent = await session(browser, baseURL!, 'agent.fr@demo.test');
  const code = `MNY${Date.now() % 1_000_000}`;
  productId = await createProduct(admin, code, true);
  strictProductId = await createProduct(admin, `${code}S`, false);
  // Maker-checker: the officers submit, the administrator approves.
  enLoan = await setUp(admin, officer, `${code}-en`, productId);
  frLoan = await setUp(admin, agent, `${code}-fr`, productId);
});

test('[SECURITY]: every money field of the /v1 API refuses every hostile amount with a 400 naming the field, and nothing changes', async () => {
  test.setTimeout(300_000);
  const { loanId, pendingApplicationId, customerId } = enLoan;
  const before = {
    loan: await (await admin.api.get(`/v1/loans/${loanId}`)).json(),
    application: await (await admin.api.get(`/v1/applications/${pendingApplicationId}`)).json(),
    products: (await (await admin.api.get('/v1/products')).json()).items.length,
  };
  const probes: {
    name: string;
    field: string;
    send: (value: unknown) => Promise<{ status: () => number; json: () => Promise<any> }>;
  }[] = [
    {
      name: 'repayment',
      field: 'amount',
      send: (v) =>
        admin.api.post(`/v1/loans/${loanId}/repayments`, {
          data: { amount: v },
          headers: { 'Idempotency-Key': key('r') },
        }),
    },
    {
      name: 'charge',
      field: 'amount',
      send: (v) =>
        admin.api.post(`/v1/loans/${loanId}/charges`, {
          data: { kind: 'fee', amount: v },
          headers: { 'Idempotency-Key': key('c') },
        }),
    },
    {
      name: 'waiver',
      field: 'amount',
      send: (v) =>
        admin.api.post(`/v1/loans/${loanId}/waivers`, {
          data: { kind: 'interest', amount: v },
          headers: { 'Idempotency-Key': key('w') },
        }),
    },
    {
      name: 'credit refund',
      field: 'amount',
      send: (v) =>
        admin.api.post(`/v1/loans/${loanId}/credit-refunds`, {
          data: { amount: v },
          headers: { 'Idempotency-Key': key('f') },
        }),
    },
    {
      name: 'application',
      field: 'principal',
      send: (v) =>
        admin.api.post('/v1/applications', { data: { customerId, productId, principal: v, numberOfRepayments: 1 } }),
    },
    {
      name: 'application edit',
      field: 'principal',
      send: (v) =>
        admin.api.patch(`/v1/applications/${pendingApplicationId}`, { data: { principal: v, numberOfRepayments: 1 } }),
    },
    {
      name: 'product min',
      field: 'minPrincipal',
      send: (v) => admin.api.post('/v1/products', { data: productBody(v, '50000.00') }),
    },
    {
      name: 'product max',
      field: 'maxPrincipal',
      send: (v) => admin.api.post('/v1/products', { data: productBody('100.00', v) }),
    },
    {
      name: 'schedule preview',
      field: 'principal',
      send: (v) =>
        admin.api.post('/v1/schedules/preview', {
          data: {
            currency: 'EUR',
            principal: v,
            annualInterestRate: '12',
            numberOfRepayments: 12,
            disbursementDate: '2027-01-05',
          },
        }),
    },
  ];
  const wrong: string[] = [];
  for (const probe of probes) {
    for (const payload of MONEY_PAYLOADS) {
      const response = await probe.send(payload.value);
      const body = await response.json().catch(() => ({}));
      if (response.status() !== 400 || body?.error?.field !== probe.field || typeof body?.error?.message !== 'string') {
        wrong.push(
          `${probe.name} ${payload.kind} ${JSON.stringify(payload.value)?.slice(0, 30)} → ${response.status()} ${JSON.stringify(body).slice(0, 160)}`,
        );
      }
    }
  }
  expect(wrong).toEqual([]);
  const after = {
    loan: await (await admin.api.get(`/v1/loans/${loanId}`)).json(),
    application: await (await admin.api.get(`/v1/applications/${pendingApplicationId}`)).json(),
    products: (await (await admin.api.get('/v1/products')).json()).items.length,
  };
  expect(after.loan.transactions).toEqual(before.loan.transactions);
  expect(after.loan.outstanding).toEqual(before.loan.outstanding);
  expect(after.application).toMatchObject({
    principal: before.application.principal,
    version: before.application.version,
  });
  expect(after.products).toBe(before.products);
});

function productBody(minPrincipal: unknown, maxPrincipal: unknown) {
  return {
    code: `BAD${counter++}`,
    name: 'Never created',
    currency: 'EUR',
    digitsAfterDecimal: 2,
    minPrincipal,
    maxPrincipal,
    minRepayments: 1,
    maxRepayments: 12,
    annualInterestRate: '12',
    repaymentFrequency: 'MONTHS',
  };
}

test('[SECURITY]: dates are real calendar days and follow the business date, on every date field', async () => {
  const { loanId, pendingApplicationId, customerId } = enLoan;
  const wrong: string[] = [];
  const probes: {
    name: string;
    field: string;
    send: (value: unknown) => Promise<{ status: () => number; json: () => Promise<any> }>;
  }[] = [
    {
      name: 'repayment date',
      field: 'date',
      send: (v) =>
        admin.api.post(`/v1/loans/${loanId}/repayments`, {
          data: { amount: '1.00', date: v },
          headers: { 'Idempotency-Key': key('rd') },
        }),
    },
    {
      name: 'application date',
      field: 'expectedDisbursementDate',
      send: (v) =>
        admin.api.post('/v1/applications', {
          data: { customerId, productId, principal: '500.00', numberOfRepayments: 1, expectedDisbursementDate: v },
        }),
    },
    {
      name: 'edit date',
      field: 'expectedDisbursementDate',
      send: (v) =>
        admin.api.patch(`/v1/applications/${pendingApplicationId}`, {
          data: { principal: '1500.00', numberOfRepayments: 1, expectedDisbursementDate: v },
        }),
    },
  ];
  for (const probe of probes) {
    for (const value of [...DATE_PAYLOADS, ...(probe.name === 'repayment date' ? ['2999-01-01'] : ['2001-01-01'])]) {
      const response = await probe.send(value);
      const body = await response.json().catch(() => ({}));
      if (response.status() !== 400 || body?.error?.field !== probe.field)
        wrong.push(
          `${probe.name} ${JSON.stringify(value)} → ${response.status()} ${JSON.stringify(body).slice(0, 160)}`,
        );
    }
  }
  expect(wrong).toEqual([]);
  const loan = await (await admin.api.get(`/v1/loans/${loanId}`)).json();
  expect(loan.transactions.filter((t: { type: string }) => t.type === 'REPAYMENT')).toHaveLength(0);
});

test('[SECURITY]: a repayment above what the loan owes — refused without the product’s consent, confirmed with it; messages in the caller’s language', async () => {
  // A loan of a product without overpayment: 99,999,999,999 on 1,100 is refused with what is owed.
  const strict = await setUp(admin, officer, `STRICT${Date.now() % 100000}`, strictProductId);
  const refused = await admin.api.post(`/v1/loans/${strict.loanId}/repayments`, {
    data: { amount: '99999999999', confirmOverpayment: true },
    headers: { 'Idempotency-Key': key('o') },
  });
  expect(refused.status()).toBe(422);
  expect((await refused.json()).error).toMatchObject({
    field: 'amount',
    owed: '1111.00',
    message: 'Amount is more than the loan owes (1,111.00). This loan’s product does not accept overpayments.',
  });
  // French caller, product with overpayment: 409 with the credit balance, nothing recorded.
  const k = key('fr-over');
  const unconfirmed = await agent.api.post(`/v1/loans/${frLoan.loanId}/repayments`, {
    data: { amount: '1200.00' },
    headers: { 'Idempotency-Key': k },
  });
  expect(unconfirmed.status()).toBe(409);
  expect((await unconfirmed.json()).error).toMatchObject({
    field: 'amount',
    creditBalance: '89.00',
    message:
      'Montant dépasse ce que doit le prêt (1\u202f111,00) : confirmez pour laisser un solde créditeur de 89,00.',
  });
  const fr = await agent.api.post(`/v1/loans/${frLoan.loanId}/repayments`, {
    data: { amount: '1e20' },
    headers: { 'Idempotency-Key': key('fr-exp') },
  });
  expect((await fr.json()).error).toMatchObject({
    field: 'amount',
    message: 'Montant doit être un montant écrit en chiffres, par exemple 10.50.',
  });
  const loan = await (await agent.api.get(`/v1/loans/${frLoan.loanId}`)).json();
  expect(loan.transactions.map((t: { type: string }) => t.type)).toEqual(['DISBURSEMENT']);
});

const WORDS = {
  en: {
    repayForm: 'Record a repayment',
    repay: 'Repay',
    amount: /^Amount/,
    date: 'Date',
    negative: 'Amount must be greater than 0.',
    separators: 'Amount must be written without spaces or thousands separators, such as 10.50.',
    tooLarge: 'Amount must be at most 9,999,999,999,999.99.',
    future: /^Date must not be after the business date \(\d\d\/\d\d\/\d{4}\)\.$/,
    overTitle: 'More than the loan owes',
    credit: 'Credit balance this repayment creates: 89.00 EUR',
    confirm: 'Record it with the credit balance',
    status: 'Overpaid',
    save: 'Save the application',
    expected: 'Expected disbursement date',
    notAnAmount: 'Amount must be an amount written with digits, such as 10.50.',
    notADate: 'Expected disbursement date must be a real calendar date, such as 2027-02-28.',
    past: /^Expected disbursement date must not be before the business date \(\d\d\/\d\d\/\d{4}\)\.$/,
    term: 'Number of repayments',
    whole: 'Number of repayments must be a whole number.',
    typed: '1000,50',
  },
  fr: {
    repayForm: 'Enregistrer un remboursement',
    repay: 'Rembourser',
    amount: /^Montant/,
    date: 'Date',
    negative: 'Montant doit être supérieur à 0.',
    separators: 'Montant doit être écrit sans espaces ni séparateurs de milliers, par exemple 10,50.',
    tooLarge: 'Montant doit être au plus 9\u202f999\u202f999\u202f999\u202f999,99.',
    future: /^Date ne doit pas être postérieure à la date d’activité \(\d\d\/\d\d\/\d{4}\)\.$/,
    overTitle: 'Plus que ce que doit le prêt',
    credit: 'Solde créditeur créé par ce remboursement : 89,00 EUR',
    confirm: 'L’enregistrer avec le solde créditeur',
    status: 'Trop-perçu',
    save: 'Enregistrer la demande',
    expected: 'Date de décaissement prévue',
    notAnAmount: 'Montant doit être un montant écrit en chiffres, par exemple 10,50.',
    notADate: 'Date de décaissement prévue doit être une date réelle du calendrier, par exemple 2027-02-28.',
    past: /^Date de décaissement prévue ne doit pas être antérieure à la date d’activité \(\d\d\/\d\d\/\d{4}\)\.$/,
    term: 'Nombre d’échéances',
    whole: 'Nombre d’échéances doit être un nombre entier.',
    typed: '1000.50',
  },
} as const;

for (const language of ['en', 'fr'] as const) {
  test(`[SECURITY]: the repayment and application edit forms in ${language === 'en' ? 'English' : 'French'}: labelled messages, typed values kept, overpayment confirmed with its credit balance`, async () => {
    test.setTimeout(120_000);
    const w = WORDS[language];
    const { page } = language === 'en' ? officer : agent;
    const loan = language === 'en' ? enLoan : frLoan;
    await page.goto(`/loans/customer/profile/${loan.customerId}/loans/${loan.loanId}/repay`);
    await hydrated(page);
    const form = page.getByRole('form', { name: w.repayForm });
    const amount = form.locator('input[name="amount"]');
    const date = form.locator('input[name="date"]');
    for (const [typed, message] of [
      ['-10', w.negative],
      ['1 000,50', w.separators],
      ['99999999999999', w.tooLarge],
    ] as const) {
      await amount.fill(typed);
      await form.getByRole('button', { name: w.repay }).click();
      await expect(form.getByText(message, { exact: true })).toBeVisible();
      await expect(amount).toHaveValue(typed);
    }
    await amount.fill('10.00');
    await date.fill('2999-01-01');
    await form.getByRole('button', { name: w.repay }).click();
    await expect(form.getByText(w.future)).toBeVisible();
    await date.fill((await date.getAttribute('max')) ?? '');
    // More than owed (1,111.00): the server asks to confirm, showing the credit balance.
    await amount.fill(language === 'fr' ? '1200,00' : '1200.00');
    await form.getByRole('button', { name: w.repay }).click();
    const confirm = form.getByRole('alertdialog', { name: w.overTitle });
    await expect(confirm.getByTestId('overpayment-credit')).toHaveText(w.credit);
    const nothingYet = await (await page.request.get(`/v1/loans/${loan.loanId}`)).json();
    expect(nothingYet.transactions).toHaveLength(1);
    await confirm.getByRole('button', { name: w.confirm }).click();
    await expect(page.getByTestId('loan-status')).toHaveText(w.status, { timeout: 30_000 });
    expect((await (await page.request.get(`/v1/loans/${loan.loanId}`)).json()).creditBalance).toBe('89.00');

    // The application edit form: server-side checks, labelled and translated, what was typed kept.
    await page.goto(`/loans/loan-applications/edit/${loan.customerId}/${loan.pendingLoanId}`);
    const editForm = page.locator('form.form-stack');
    // As a browser without date inputs or constraint validation would send them.
    await editForm.evaluate((f) => f.setAttribute('novalidate', ''));
    await page.getByLabel(w.amount).fill('abc');
    await page.getByRole('button', { name: w.save }).click();
    await expect(page.getByRole('alert')).toHaveText(w.notAnAmount);
    await expect(page.getByLabel(w.amount)).toHaveValue('abc');
    await page.getByLabel(w.amount).fill(w.typed);
    await page.getByLabel(w.term, { exact: true }).evaluate((input: HTMLInputElement) => {
      input.type = 'text';
    });
    await page.getByLabel(w.term, { exact: true }).fill('1.5');
    await page.getByRole('button', { name: w.save }).click();
    await expect(page.getByRole('alert')).toHaveText(
      language === 'en' ? 'Amount must be written without spaces or thousands separators, such as 10.50.' : w.whole,
    );
    await page.locator('form.form-stack').evaluate((f) => f.setAttribute('novalidate', ''));
    await page.getByLabel(w.amount).fill('1500.00');
    await page.getByLabel(w.term, { exact: true }).fill('1');
    await page.getByLabel(w.expected).evaluate((input: HTMLInputElement) => {
      input.type = 'text';
    });
    await page.getByLabel(w.expected).fill('31/02/2027');
    await page.getByRole('button', { name: w.save }).click();
    await expect(page.getByRole('alert')).toHaveText(w.notADate);
    await expect(page.getByLabel(w.expected)).toHaveAttribute('value', '31/02/2027');
    await page.locator('form.form-stack').evaluate((f) => f.setAttribute('novalidate', ''));
    await page.getByLabel(w.expected).fill('2001-01-01');
    await page.getByRole('button', { name: w.save }).click();
    await expect(page.getByRole('alert')).toHaveText(w.past);
    const application = await (await page.request.get(`/v1/applications/${loan.pendingApplicationId}`)).json();
    expect(application).toMatchObject({ principal: '1500.00', numberOfRepayments: 1, version: 1 });
    expect(application.expectedDisbursementDate).not.toBe('2001-01-01');
  });
}
