import { describe, expect, it } from 'vitest';
import { POST } from '../../src/pages/v1/schedules/preview.ts';
import { previewSchedule } from '#lib/schedule/index.ts';

const principal = {
  tenantId: 't1',
  userId: 'u1',
  displayName: 'Ana',
  email: 'ana@example.test',
  isAdmin: false,
  authorities: [],
  dataPermissions: [],
  language: 'en',
  via: 'session',
  sessionId: 's',
  passwordChangeRequired: false,
  sessionTimeout: 900,
  idleTimeout: 900,
};

const terms = {
  principal: '5000.00',
  currency: 'USD',
  installmentAmountInMultiplesOf: 1,
  annualInterestRate: '12',
  numberOfRepayments: 18,
  repaymentFrequency: 'MONTHS',
  disbursementDate: '2022-11-01',
  firstRepaymentDate: '2022-12-01',
  scheduleType: 'CUMULATIVE',
  interestMethod: 'DECLINING_BALANCE',
  amortization: 'EQUAL_INSTALLMENTS',
  interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
};

function call(body: string, withPrincipal = true): Promise<Response> {
  const request = new Request('http://localhost/v1/schedules/preview', {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  });
  const locals = { requestId: 'req-1', principal: withPrincipal ? principal : undefined };
  return POST({ request, locals } as unknown as Parameters<typeof POST>[0]) as Promise<Response>;
}

describe('POST /v1/schedules/preview', () => {
  it('answers the same JSON as the CLI contract', async () => {
    const res = await call(JSON.stringify(terms));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual(previewSchedule(terms));
    expect(body.installments[0]).toEqual({
      number: 1,
      fromDate: '2022-11-01',
      dueDate: '2022-12-01',
      principal: '255.00',
      interest: '50.00',
      fees: '0.00',
      penalties: '0.00',
      total: '305.00',
      balance: '4745.00',
      downPayment: false,
    });
    expect(body.totals).toEqual({
      principal: '5000.00',
      interest: '488.22',
      fees: '0.00',
      penalties: '0.00',
      total: '5488.22',
    });
  });

  it('answers 400 naming the field for bad terms', async () => {
    const res = await call(JSON.stringify({ ...terms, repaymentFrequency: 'FORTNIGHTS' }));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe('BAD_REQUEST');
    expect(body.error.field).toBe('repaymentFrequency');
    expect(body.error.message).toBe('Repayment frequency must be one of: DAYS, WEEKS, MONTHS.');
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await call('{ nope');
    expect(res.status).toBe(400);
  });

  it('refuses an anonymous caller', async () => {
    const res = await call(JSON.stringify(terms), false);
    expect(res.status).toBe(401);
  });
});
