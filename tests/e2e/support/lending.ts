import type { APIRequestContext } from '@playwright/test';
import { expect } from './fixtures.ts';

// The API steps many loan specs start with: an administrator's product, then a customer, an
// application and its approval by the checker (and the transfer of funds when the spec needs an
// active loan). Each spec passes only what its product differs in.

/** A EUR product, monthly, 12 %, 100.00–50,000.00 over 1–36 installments; `fields` override. */
export async function createProduct(
  admin: APIRequestContext,
  code: string,
  fields: Record<string, unknown>,
): Promise<string> {
  const response = await admin.post('/v1/products', {
    data: {
      code,
      currency: 'EUR',
      digitsAfterDecimal: 2,
      minPrincipal: '100.00',
      maxPrincipal: '50000.00',
      minRepayments: 1,
      maxRepayments: 36,
      annualInterestRate: '12',
      repaymentFrequency: 'MONTHS',
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
      ...fields,
    },
  });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()).id as string;
}

export type LoanRequest = {
  productId: string;
  /** Unique per run: the idempotency keys derive from it. */
  code: string;
  customer: { firstName: string; lastName: string };
  principal: string;
  numberOfRepayments: number;
};

/** A customer, the officer's application and the administrator's approval: the loan awaits its transfer. */
export async function approvedLoan(
  admin: APIRequestContext,
  officer: APIRequestContext,
  request: LoanRequest,
): Promise<{ customerId: string; loanId: string }> {
  const customer = await officer.post('/v1/customers', { data: request.customer });
  expect(customer.status(), await customer.text()).toBe(201);
  const customerId = (await customer.json()).id as string;
  const application = await officer.post('/v1/applications', {
    data: {
      customerId,
      productId: request.productId,
      principal: request.principal,
      numberOfRepayments: request.numberOfRepayments,
    },
  });
  expect(application.status(), await application.text()).toBe(201);
  const { id: applicationId, loanId } = (await application.json()) as { id: string; loanId: string };
  const approved = await admin.post(`/v1/applications/${applicationId}/approve`, {
    data: {},
    headers: { 'Idempotency-Key': `${request.code}-a` },
  });
  expect(approved.status(), await approved.text()).toBe(200);
  return { customerId, loanId };
}

/** The transfer of funds of an approved loan, through the API; answers the API's body (`{ loan, … }`). */
export async function disburseLoan(
  admin: APIRequestContext,
  loanId: string,
  code: string,
): Promise<{ loan: Record<string, unknown> }> {
  const disbursed = await admin.post(`/v1/loans/${loanId}/disbursements`, {
    data: {},
    headers: { 'Idempotency-Key': `${code}-d` },
  });
  expect(disbursed.status(), await disbursed.text()).toBe(201);
  return disbursed.json();
}
