import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDec, setScale, toString } from '#lib/schedule/decimal.ts';
import { progressiveRateFactor, type ProgressiveRateTerms } from '#lib/schedule/rates.ts';
import { amountText, caseToTerms, type RefCase } from './schedule-case-terms.ts';

/**
 * Every `schedule` and `due_dates` case of the Fineract reference file, run through the CLI contract
 * (`node scripts/schedule.ts TERMS.json`), comparing every asserted field exactly.
 */
const cases: RefCase[] = JSON.parse(
  readFileSync(new URL('../fixtures/fineract-reference-cases.json', import.meta.url), 'utf8'),
);
const dir = mkdtempSync(join(tmpdir(), 'schedule-cases-'));
const cli = new URL('../../scripts/schedule.ts', import.meta.url).pathname;

type Out = { currency: string; installments: Record<string, any>[]; totals: Record<string, string> };

/** Runs the CLI on a terms file; resolves with its exit code, stdout and stderr. */
function cliRun(name: string, terms: unknown): Promise<{ status: number; stdout: string; stderr: string }> {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(terms));
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, file], { encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

// Every CLI run starts up front and in parallel (one Node process each), the tests then read the answers.
const runs = new Map<string, Promise<{ status: number; stdout: string; stderr: string }>>();
function schedule(name: string, terms: unknown): void {
  runs.set(name, cliRun(name, terms));
}
const answers = new Map<string, { status: number; stdout: string; stderr: string }>();
function runCli(name: string): Out {
  const result = answers.get(name)!;
  if (result.status !== 0) throw new Error(`CLI exit ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Out;
}

for (const c of cases.filter((x) => x.kind === 'schedule')) schedule(c.id, caseToTerms(c));
for (const c of cases.filter((x) => x.kind === 'due_dates')) {
  const variants = (c.inputs.cases as Record<string, string>[] | undefined) ?? [{}];
  variants.forEach((variant, index) => {
    schedule(
      `${c.id}-${index}`,
      caseToTerms(c, variant.first_repayment_date ? { firstRepaymentDate: variant.first_repayment_date } : {}),
    );
  });
}

beforeAll(async () => {
  for (const [name, run] of runs) answers.set(name, await run);
});

describe('Fineract reference cases through the CLI', () => {
  for (const c of cases.filter((x) => x.kind === 'schedule')) {
    it(c.id, () => {
      const digits = caseToTerms(c).digitsAfterDecimal as number;
      const out = runCli(c.id);
      const expected = c.expected.installments as Record<string, any>[];
      if (!c.expected.partial) expect(out.installments.length).toBe(expected.length);
      for (const e of expected) {
        const got = out.installments.find((i) => i.number === e.n);
        expect(got, `installment ${e.n}`).toBeDefined();
        expect({ n: e.n, dueDate: got!.dueDate }).toEqual({ n: e.n, dueDate: e.due_date });
        for (const field of ['principal', 'interest', 'total'] as const) {
          expect({ n: e.n, field, value: got![field] }).toEqual({ n: e.n, field, value: amountText(e[field], digits) });
        }
        if (e.balance !== undefined)
          expect({ n: e.n, balance: got!.balance }).toEqual({ n: e.n, balance: amountText(e.balance, digits) });
        if (e.fee !== undefined) expect(got!.fees).toBe(amountText(e.fee, digits));
        if (e.penalty !== undefined) expect(got!.penalties).toBe(amountText(e.penalty, digits));
      }
      if (c.expected.totals && !c.expected.partial) {
        for (const [field, value] of Object.entries(c.expected.totals)) {
          expect({ field, value: out.totals[field] }).toEqual({ field, value: amountText(value as number, digits) });
        }
      }
    });
  }

  for (const c of cases.filter((x) => x.kind === 'due_dates')) {
    const variants = (c.inputs.cases as Record<string, string>[] | undefined) ?? [{}];
    variants.forEach((_variant, index) => {
      it(`${c.id} #${index + 1}`, () => {
        const out = runCli(`${c.id}-${index}`);
        const expectedDates = (c.expected.due_dates_by_case as string[][] | undefined)?.[index] ?? c.expected.due_dates;
        expect(out.installments.filter((i) => !i.downPayment).map((i) => i.dueDate)).toEqual(expectedDates);
      });
    });
  }

  // Rate factors through the calculator: the per-period factor some schedule cases assert, and any
  // `rate_factors` case (compared at 12 decimal places, as Fineract's tests do).
  const rateTermsOf = (c: RefCase, daysInYear?: string): ProgressiveRateTerms => {
    const t = caseToTerms(c, daysInYear ? { daysInYear } : {});
    const diy = String(t.daysInYear)
      .toUpperCase()
      .replace(/^DAYS_?/, '');
    return {
      annualRate: parseDec(String(t.annualInterestRate)),
      frequency: t.repaymentFrequency as ProgressiveRateTerms['frequency'],
      every: t.repaymentEvery as number,
      daysInYear: diy === 'ACTUAL' ? 'ACTUAL' : (Number(diy) as 360 | 364 | 365),
      daysInMonth: String(t.daysInMonth) === '30' ? 30 : 'ACTUAL',
    };
  };
  const factorAt = (terms: ProgressiveRateTerms, from: string, to: string, periodFrom = from, periodTo = to) =>
    toString(
      setScale(progressiveRateFactor({ mode: 'HALF_EVEN' }, terms, from, to, periodFrom, periodTo), 12, 'HALF_EVEN'),
    );

  for (const c of cases.filter(
    (x) => x.kind === 'schedule' && x.expected.rate_factor_per_period && x.inputs.repayment_periods,
  )) {
    it(`${c.id}: rate factor per period`, () => {
      const [from, to] = (c.inputs.repayment_periods as string[][])[1] ?? (c.inputs.repayment_periods as string[][])[0];
      expect(factorAt(rateTermsOf(c), from, to)).toBe(amountText(c.expected.rate_factor_per_period, 12));
    });
  }

  for (const c of cases.filter((x) => x.kind === 'rate_factors')) {
    it(`${c.id}: rate factors`, () => {
      const periods = (c.inputs.interest_periods ?? c.inputs.repayment_periods ?? c.inputs.periods) as
        string[][] | undefined;
      const expected = c.expected.rate_factors ?? c.expected.rate_factor;
      const checks: { from: string; to: string; daysInYear?: string; value: string }[] = [];
      if (Array.isArray(expected)) {
        expected.forEach((e: any, k: number) => {
          const [from, to] =
            typeof e === 'object' && e !== null
              ? [e.from ?? e.from_date ?? e.period?.[0], e.to ?? e.due_date ?? e.to_date ?? e.period?.[1]]
              : periods![k];
          const value = typeof e === 'object' && e !== null ? (e.rate_factor ?? e.value) : e;
          checks.push({
            from: from ?? periods![k][0],
            to: to ?? periods![k][1],
            daysInYear: e?.days_in_year,
            value: String(value),
          });
        });
      } else if (expected && typeof expected === 'object') {
        for (const [daysInYear, value] of Object.entries(expected))
          checks.push({ from: periods![0][0], to: periods![0][1], daysInYear, value: String(value) });
      } else {
        checks.push({ from: periods![0][0], to: periods![0][1], value: String(expected) });
      }
      expect(checks.length).toBeGreaterThan(0);
      for (const check of checks) {
        expect({ ...check, value: factorAt(rateTermsOf(c, check.daysInYear), check.from, check.to) }).toEqual({
          ...check,
          value: amountText(check.value, 12),
        });
      }
    });
  }

  it('answers bad terms with exit code 2 and the field on stderr', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...caseToTerms(cases[0]), numberOfRepayments: 0 }));
    const result = spawnSync(process.execPath, [cli, file], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('numberOfRepayments');
    expect(result.stdout).toBe('');
  });

  it('answers an unreadable file with exit code 2', () => {
    const missing = spawnSync(process.execPath, [cli, join(dir, 'missing.json')], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    const file = join(dir, 'not-json.json');
    writeFileSync(file, '{ principal: ');
    const garbled = spawnSync(process.execPath, [cli, file], { encoding: 'utf8' });
    expect(garbled.status).toBe(2);
    expect(garbled.stderr).toContain('not valid JSON');
  });
});
