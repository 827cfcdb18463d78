import { describe, expect, it } from 'vitest';
import { loansList } from '../lists/defs/loans.ts';
import { AppError } from '../errors/app-error.ts';
import { buildAggregateQuery, dimensionChoices, ratioOf } from './aggregate.ts';

const options = { businessDate: '2026-03-31', currencyDigits: 2, rowScope: null, tenantCurrency: 'EUR' } as const;

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error.field;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('aggregate SQL', () => {
  it('averages money in whole minor units (a fraction of a cent cannot be a money value) and numbers to 4 places', () => {
    const q = buildAggregateQuery(
      loansList,
      {
        filters: {},
        groupBy: ['product'],
        measures: [
          { kind: 'term', term: { fn: 'average', field: 'principal' } },
          { kind: 'term', term: { fn: 'average', field: 'days_past_due' } },
        ],
      },
      options,
    );
    expect(q.text).toContain('round(avg(v0), 0)::text as a0');
    expect(q.text).toContain('round(avg(v1), 4)::text as a1');
  });
  it('groups by the definition SQL with grouping sets for totals, money per currency, values bound', () => {
    const q = buildAggregateQuery(
      loansList,
      {
        filters: { branch: "North'; drop table loans; --", days_past_due: '1..' },
        groupBy: ['product', 'disbursed_on:month'],
        measures: [
          { kind: 'term', term: { fn: 'sum', field: 'principal' } },
          { kind: 'term', term: { fn: 'count' } },
        ],
      },
      options,
    );
    expect(q.text).toContain('(p.name)::text as k0');
    expect(q.text).toContain(`date_trunc('month', (l.disbursed_on)::date)::date::text as k1`);
    expect(q.text).toContain('trim((l.currency)::text) as ccy');
    expect(q.text).toContain('group by grouping sets ((k0, k1, ccy), (k0, ccy), (k1, ccy), (ccy))');
    expect(q.text).toContain('coalesce(sum(v0), 0)::text as a0');
    expect(q.text).toContain('(count(*))::text as a1');
    // The user's text is a parameter, never SQL.
    expect(q.text).not.toContain('drop table');
    expect(q.params).toContain("%North'; drop table loans; --%");
    expect(q.hasMoney).toBe(true);
  });

  it('gives each term its own filter flag and leaves currency out when nothing is money', () => {
    const q = buildAggregateQuery(
      loansList,
      {
        filters: {},
        groupBy: ['status'],
        measures: [
          {
            kind: 'ratio',
            numerator: { fn: 'count', filters: { days_past_due: '31..' } },
            denominator: { fn: 'count' },
          },
        ],
      },
      options,
    );
    expect(q.text).toMatch(/\(\(\(case when .* >= \$\d+::numeric\)\) as f0/);
    expect(q.text).toContain('(count(*) filter (where f0))::text as a0');
    expect(q.text).toContain('(count(*))::text as a1');
    expect(q.text).not.toContain('ccy');
    expect(q.text).toContain('group by grouping sets ((k0), ())');
  });

  it('applies the viewer scope as the list does', () => {
    const q = buildAggregateQuery(
      loansList,
      { filters: {}, groupBy: [], measures: [{ kind: 'term', term: { fn: 'count' } }] },
      { ...options, rowScope: [['00000000-0000-4000-8000-000000000001']] },
    );
    expect(q.text).toContain('(l.customer_branch_id) = any($1::uuid[])');
    expect(q.params[0]).toEqual(['00000000-0000-4000-8000-000000000001']);
  });

  it('refuses columns the definition does not declare groupable or measurable, naming the field', () => {
    const base = { filters: {}, measures: [{ kind: 'term', term: { fn: 'count' } }] } as const;
    expect(fieldOf(() => buildAggregateQuery(loansList, { ...base, groupBy: ['customer'] }, options))).toBe('rows');
    expect(fieldOf(() => buildAggregateQuery(loansList, { ...base, groupBy: ['status', 'nope'] }, options))).toBe(
      'columns',
    );
    expect(
      fieldOf(() =>
        buildAggregateQuery(
          loansList,
          { filters: {}, groupBy: [], measures: [{ kind: 'term', term: { fn: 'sum', field: 'status' } }] },
          options,
        ),
      ),
    ).toBe('measures.0');
    expect(
      fieldOf(() =>
        buildAggregateQuery(loansList, { ...base, groupBy: [], filters: { days_past_due: 'abc' } }, options),
      ),
    ).toBe('filters.days_past_due');
    expect(fieldOf(() => buildAggregateQuery(loansList, { ...base, groupBy: ['disbursed_on:day'] }, options))).toBe(
      'rows',
    );
  });

  it('offers groupable columns with date grains as dimensions', () => {
    const values = dimensionChoices(loansList).map((d) => d.value);
    expect(values).toContain('product');
    expect(values).toContain('branch');
    expect(values).toContain('status');
    expect(values).toContain('disbursed_on:year');
    expect(values).not.toContain('customer');
  });
});

describe('ratio maths', () => {
  it('divides exact values and gives null for a zero or missing denominator', () => {
    expect(ratioOf(3n, 4n)).toBe(0.75);
    expect(ratioOf(1, 3)).toBeCloseTo(1 / 3, 12);
    expect(ratioOf('2.5', '10')).toBe(0.25);
    expect(ratioOf(5n, 0n)).toBeNull();
    expect(ratioOf(null, 4)).toBeNull();
    expect(ratioOf(4, null)).toBeNull();
  });
});
