import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addDays } from '#lib/schedule/dates.ts';
import { allocatePayment, classifyDays, DEFAULT_DELINQUENCY_RANGES, loanDelinquency } from '#lib/schedule/index.ts';
import type {
  AllocationStrategyCode,
  Component,
  DelinquencyInstallment,
  DelinquencyRange,
} from '#lib/schedule/index.ts';
import type { RefCase } from './schedule-case-terms.ts';

const cases: RefCase[] = JSON.parse(
  readFileSync(new URL('../fixtures/fineract-reference-cases.json', import.meta.url), 'utf8'),
);
const cents = (x: number) => BigInt(Math.round(x * 100));
const KEY: Record<string, Component> = { principal: 'PRINCIPAL', interest: 'INTEREST', fee: 'FEE', penalty: 'PENALTY' };
const FIELD: Record<Component, 'principal' | 'interest' | 'fees' | 'penalties'> = {
  PRINCIPAL: 'principal',
  INTEREST: 'interest',
  FEE: 'fees',
  PENALTY: 'penalties',
};

describe('allocation reference cases through allocatePayment', () => {
  for (const c of cases.filter((x) => x.kind === 'allocation')) {
    const inst = c.inputs.installment;
    for (const [index, k] of (c.expected.cases as Record<string, any>[]).entries()) {
      it(`${c.id} #${index + 1}: ${k.strategy} ${k.timing} ${k.amount}`, () => {
        // Optional loan charges (not in the shared file today): those due by the transaction date are "already due".
        const due = { penalties: 0n, fees: 0n };
        for (const charge of (k.charges ?? c.inputs.charges ?? []) as Record<string, any>[]) {
          const raw = String(charge.due_date ?? charge.effective_due_date ?? k.transaction_date);
          const m = /^transaction_date\s*([+-])\s*(\d+)$/.exec(raw);
          const dueDate =
            raw === 'transaction_date'
              ? k.transaction_date
              : m
                ? addDays(k.transaction_date, (m[1] === '-' ? -1 : 1) * Number(m[2]))
                : raw;
          if (dueDate > k.transaction_date) continue;
          const isPenalty = charge.is_penalty ?? /penalt/i.test(String(charge.type ?? charge.kind ?? ''));
          if (isPenalty) due.penalties += cents(charge.amount);
          else due.fees += cents(charge.amount);
        }
        const result = allocatePayment({
          installments: [
            {
              number: 1,
              fromDate: inst.from_date,
              dueDate: inst.due_date,
              principal: cents(inst.principal),
              interest: cents(inst.interest),
              fees: cents(inst.fee),
              penalties: cents(inst.penalty),
              ...(due.penalties ? { duePenalties: due.penalties } : {}),
              ...(due.fees ? { dueFees: due.fees } : {}),
            },
          ],
          amount: cents(k.amount),
          date: k.transaction_date,
          strategy: k.strategy as AllocationStrategyCode,
        });
        for (const [name, value] of Object.entries(k.allocated as Record<string, number>)) {
          expect({ component: name, amount: result[FIELD[KEY[name]]] }).toEqual({
            component: name,
            amount: cents(value),
          });
        }
        // The key order of `allocated` is the order in which components were paid.
        const expectedOrder = Object.entries(k.allocated as Record<string, number>)
          .filter(([, v]) => v > 0)
          .map(([name]) => KEY[name]);
        expect(result.order.map((o) => o.component)).toEqual(expectedOrder);
        expect(result.excess).toBe(0n);
      });
    }
  }
});

describe('delinquency reference cases through loanDelinquency', () => {
  for (const c of cases.filter((x) => x.kind === 'delinquency')) {
    const ranges: DelinquencyRange[] = (
      c.conventions.ranges as { name: string; min: number; max: number | null }[]
    ).map((r) => ({
      name: r.name,
      minimumAgeDays: r.min,
      maximumAgeDays: r.max,
    }));
    const installments: DelinquencyInstallment[] = (c.inputs.installments as Record<string, any>[]).map((i) => ({
      number: i.n,
      dueDate: i.due_date,
      outstanding: cents(i.principal),
    }));
    const grace = c.conventions.grace_on_arrears_ageing_days as number;
    for (const obs of c.expected.observations as Record<string, any>[]) {
      it(`${c.id} on ${obs.business_date}`, () => {
        const result = loanDelinquency({
          installments,
          businessDate: obs.business_date,
          graceOnArrearsAgeing: grace,
          ranges,
        });
        if (obs.loan) {
          expect(result.classification).toBe(obs.loan.classification);
          expect(result.delinquentAmount).toBe(cents(obs.loan.delinquent_amount));
          expect(result.delinquentDate).toBe(obs.loan.delinquent_date);
          expect(result.delinquentDays).toBe(obs.loan.delinquent_days);
          expect(result.pastDueDays).toBe(obs.loan.past_due_days);
        }
        expect(result.installmentLevel).toEqual(
          (obs.installment_level as { range: string; amount: number }[]).map((l) => ({
            range: l.range,
            amount: cents(l.amount),
          })),
        );
      });
    }
    for (const [index, u] of ((c.expected.unit_cases_grace0 ?? []) as Record<string, any>[]).entries()) {
      it(`${c.id} unit case with grace 0 #${index + 1}`, () => {
        const d = '2024-03-10';
        const at = (expr: string | null) =>
          expr === null ? null : expr === 'D' ? d : addDays(d, Number(expr.slice(1)));
        const result = loanDelinquency({
          installments: [
            { number: 1, dueDate: at(u.installment_due) as string, outstanding: cents(u.outstanding_principal) },
          ],
          businessDate: at(u.business_date) as string,
          graceOnArrearsAgeing: 0,
          ranges,
        });
        expect(result.delinquentDays).toBe(u.delinquent_days);
        expect(result.pastDueDays).toBe(u.past_due_days);
        expect(result.delinquentDate).toBe(at(u.delinquent_date));
      });
    }
  }
});

describe('allocation beyond the reference cases', () => {
  const two = [
    { number: 1, dueDate: '2024-02-01', principal: 10000n, interest: 500n, fees: 200n, penalties: 100n },
    { number: 2, dueDate: '2024-03-01', principal: 10000n, interest: 400n, fees: 0n, penalties: 0n },
  ];

  it('defaults to penalties → fees → interest → principal, oldest installment first, and returns the excess', () => {
    const r = allocatePayment({ installments: two, amount: 25000n, date: '2024-03-05' });
    expect(r.parts).toEqual([
      { installmentNumber: 1, principal: 10000n, interest: 500n, fees: 200n, penalties: 100n },
      { installmentNumber: 2, principal: 10000n, interest: 400n, fees: 0n, penalties: 0n },
    ]);
    expect(r.excess).toBe(3800n);
    expect(r.remaining.every((i) => i.principal + i.interest + i.fees + i.penalties === 0n)).toBe(true);
  });

  it('a partial payment stops inside the oldest installment in strategy order', () => {
    const r = allocatePayment({ installments: two, amount: 650n, date: '2024-02-10' });
    expect(r.order).toEqual([
      { installmentNumber: 1, component: 'PENALTY', amount: 100n },
      { installmentNumber: 1, component: 'FEE', amount: 200n },
      { installmentNumber: 1, component: 'INTEREST', amount: 350n },
    ]);
    expect(r.remaining[0]).toEqual({ ...two[0], penalties: 0n, fees: 0n, interest: 150n });
  });

  it('principal-interest-penalties-fees pays principal first', () => {
    const r = allocatePayment({
      installments: two,
      amount: 10300n,
      date: '2024-02-01',
      strategy: 'principal-interest-penalties-fees-order-strategy',
    });
    expect(r.parts[0]).toEqual({ installmentNumber: 1, principal: 10000n, interest: 300n, fees: 0n, penalties: 0n });
  });

  it('rbi-india pays all overdue and current interest before any principal', () => {
    const r = allocatePayment({ installments: two, amount: 1500n, date: '2024-03-02', strategy: 'rbi-india-strategy' });
    expect(r.penalties).toBe(100n);
    expect(r.fees).toBe(200n);
    expect(r.interest).toBe(900n);
    expect(r.principal).toBe(300n);
  });

  it('early-repayment puts an in-advance payment on principal only', () => {
    const r = allocatePayment({
      installments: two,
      amount: 12000n,
      date: '2024-01-15',
      strategy: 'early-repayment-strategy',
    });
    expect(r.parts).toEqual([
      { installmentNumber: 1, principal: 10000n, interest: 0n, fees: 0n, penalties: 0n },
      { installmentNumber: 2, principal: 2000n, interest: 0n, fees: 0n, penalties: 0n },
    ]);
  });

  it('advanced allocation, horizontal: past due installment fully, then in advance to the next installment', () => {
    const r = allocatePayment({
      installments: two,
      amount: 11000n,
      date: '2024-02-15',
      strategy: 'advanced-payment-allocation-strategy',
    });
    // Past due #1: penalty, fee, principal, interest (Fineract's default order), then #2 in advance.
    expect(r.order.map((o) => `${o.installmentNumber}:${o.component}:${o.amount}`)).toEqual([
      '1:PENALTY:100',
      '1:FEE:200',
      '1:PRINCIPAL:10000',
      '1:INTEREST:500',
      '2:PRINCIPAL:200',
    ]);
  });

  it('advanced allocation, vertical: one component across installments before the next component', () => {
    const r = allocatePayment({
      installments: two,
      amount: 20100n,
      date: '2024-03-15',
      strategy: 'advanced-payment-allocation-strategy',
      advanced: {
        order: [
          { due: 'PAST_DUE', component: 'PRINCIPAL' },
          { due: 'PAST_DUE', component: 'INTEREST' },
        ],
        futureInstallmentRule: 'NEXT_INSTALLMENT',
        processing: 'VERTICAL',
      },
    });
    expect(r.order.map((o) => `${o.installmentNumber}:${o.component}:${o.amount}`)).toEqual([
      '1:PRINCIPAL:10000',
      '2:PRINCIPAL:10000',
      '1:INTEREST:100',
    ]);
  });

  it('advanced allocation, reamortization: future installments share the money evenly, the last takes the rounding', () => {
    const r = allocatePayment({
      installments: two,
      amount: 301n,
      date: '2024-01-10',
      strategy: 'advanced-payment-allocation-strategy',
      advanced: {
        order: [{ due: 'IN_ADVANCE', component: 'PRINCIPAL' }],
        futureInstallmentRule: 'REAMORTIZATION',
        processing: 'HORIZONTAL',
      },
    });
    expect(r.parts).toEqual([
      { installmentNumber: 1, principal: 150n, interest: 0n, fees: 0n, penalties: 0n },
      { installmentNumber: 2, principal: 151n, interest: 0n, fees: 0n, penalties: 0n },
    ]);
  });

  it('due-penalty-fee-…-in-advance: charges already due are paid before principal, then the rest (Fineract processor test)', () => {
    const strategy = 'due-penalty-fee-interest-principal-in-advance-principal-penalty-fee-interest-strategy';
    const inst = {
      number: 1,
      fromDate: '2023-07-11',
      dueDate: '2023-07-31',
      principal: 300n,
      interest: 200n,
      fees: 200n,
      penalties: 400n,
    };
    // A penalty of 2 due on the transaction date: 2 penalty, 3 principal, then penalty 2, fee 2, interest 1.
    const one = allocatePayment({
      installments: [{ ...inst, duePenalties: 200n }],
      amount: 1000n,
      date: '2023-07-11',
      strategy,
    });
    expect(one.order.map((o) => `${o.component}:${o.amount}`)).toEqual([
      'PENALTY:200',
      'PRINCIPAL:300',
      'PENALTY:200',
      'FEE:200',
      'INTEREST:100',
    ]);
    // Due penalty and fee larger than the payment: penalty 4, fee 2, principal 2, interest 2.
    const two = allocatePayment({
      installments: [{ ...inst, principal: 200n, duePenalties: 400n, dueFees: 200n }],
      amount: 1000n,
      date: '2023-07-11',
      strategy,
    });
    expect([two.principal, two.interest, two.fees, two.penalties]).toEqual([200n, 200n, 200n, 400n]);
    expect(two.order.map((o) => o.component)).toEqual(['PENALTY', 'FEE', 'PRINCIPAL', 'INTEREST']);
  });

  it('refuses a non-positive amount naming the field', () => {
    expect(() => allocatePayment({ installments: two, amount: 0n, date: '2024-03-01' })).toThrowError(/amount/);
  });
});

describe('delinquency beyond the reference cases', () => {
  it('is not delinquent when everything overdue is paid', () => {
    const r = loanDelinquency({
      installments: [{ number: 1, dueDate: '2024-01-01', outstanding: 0n }],
      businessDate: '2024-06-01',
      ranges: DEFAULT_DELINQUENCY_RANGES,
    });
    expect(r).toEqual({
      pastDueDays: 0,
      delinquentDays: 0,
      delinquentDate: null,
      delinquentAmount: 0n,
      classification: null,
      installmentLevel: [],
    });
  });

  it('classifies on open-ended and boundary ranges', () => {
    expect(classifyDays(0, DEFAULT_DELINQUENCY_RANGES)).toBeNull();
    expect(classifyDays(3, DEFAULT_DELINQUENCY_RANGES)?.name).toBe('RANGE_1');
    expect(classifyDays(4, DEFAULT_DELINQUENCY_RANGES)?.name).toBe('RANGE_3');
    expect(classifyDays(240, DEFAULT_DELINQUENCY_RANGES)?.name).toBe('RANGE_180');
    expect(classifyDays(5000, DEFAULT_DELINQUENCY_RANGES)?.name).toBe('RANGE_240');
  });

  it('subtracts days inside a delinquency pause', () => {
    const r = loanDelinquency({
      installments: [{ number: 1, dueDate: '2024-01-01', outstanding: 1000n }],
      businessDate: '2024-01-31',
      graceOnArrearsAgeing: 3,
      ranges: DEFAULT_DELINQUENCY_RANGES,
      pauses: [{ from: '2024-01-10', to: '2024-01-20' }],
    });
    expect(r.pastDueDays).toBe(30);
    expect(r.delinquentDays).toBe(17);
    expect(r.classification).toBe('RANGE_3');
  });
});
