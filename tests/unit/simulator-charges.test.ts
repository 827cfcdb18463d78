import { describe, expect, it } from 'vitest';
import { createProductInput, productInputOf } from '#lib/lending/product-admin.ts';
import { termsFor, type ProductRow } from '#lib/lending/products.ts';
import { productColumns } from '#lib/lending/products.ts';
import { previewSchedule } from '#lib/schedule/index.ts';
import { simulatorCharges } from '#lib/simulator/features/charges.ts';

describe('simulator charges', () => {
  const body = {
    code: 'SIM-T',
    name: 'Simulated',
    currency: 'EUR',
    digitsAfterDecimal: 2,
    minPrincipal: '500.00',
    maxPrincipal: '30000.00',
    minRepayments: 3,
    maxRepayments: 36,
    annualInterestRate: '18',
    repaymentFrequency: 'MONTHS',
    interestCalculationPeriod: 'DAILY',
  };

  it('gives a product a valid disbursement fee and overdue penalty', () => {
    const charges = simulatorCharges({ recurEveryWeeks: 2 });
    const input = productInputOf(createProductInput.parse({ ...body, ...charges }));
    expect(input.fees).toHaveLength(1);
    expect(charges.penalties).toEqual([
      expect.objectContaining({ kind: 'PERCENT_OF_OVERDUE_PRINCIPAL_AND_INTEREST', frequency: 'WEEKS', interval: 2 }),
    ]);
    const row = { ...productColumns(input), id: 'p', tenant_id: 't' } as unknown as ProductRow;
    const schedule = previewSchedule(
      termsFor(row, {
        principal: 100000n,
        numberOfRepayments: 12,
        annualInterestRate: '18',
        disbursementDate: '2026-01-15',
      }),
    );
    expect(schedule.disbursement).toEqual({ date: '2026-01-15', fees: '10.00', penalties: '0.00', total: '10.00' });
  });

  it('keeps the product’s own penalties when asked', () => {
    const own = { code: 'LATE', name: 'Late', kind: 'FLAT', amount: '500', trigger: 'OVERDUE' };
    expect(simulatorCharges({ keepPenalties: [own] }).penalties).toHaveLength(2);
  });
});
