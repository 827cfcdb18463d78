import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.ts';
import { LISTS } from '../lists/registry.ts';
import { ALL_TAB, DATASETS, definitionState, findDataset, validateQueryDefinition } from './datasets.ts';

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('datasets', () => {
  it('offers every list and transactions, each with an all tab and the list’s own default tab', () => {
    expect(Object.keys(DATASETS).sort()).toEqual([...Object.keys(LISTS), 'transactions'].sort());
    for (const dataset of Object.values(DATASETS)) {
      expect(dataset.def.tabs.find((t) => t.name === ALL_TAB)?.where).toBeNull();
      const list = LISTS[dataset.name];
      if (list) {
        expect(dataset.def.defaultTab).toBe(list.def.defaultTab);
        expect(dataset.def.columns).toBe(list.def.columns);
      }
    }
    expect(findDataset('transactions')?.labelKey).toBe('queries:datasets.transactions');
    expect(findDataset('constructor')).toBeUndefined();
    expect(findDataset('nope')).toBeUndefined();
  });

  it('keeps transactions out of the lists registry (no /loans/transactions page)', () => {
    expect(Object.hasOwn(LISTS, 'transactions')).toBe(false);
  });
});

describe('validateQueryDefinition', () => {
  it('accepts a definition and fills the defaults', () => {
    const { definition, dataset } = validateQueryDefinition({
      dataset: 'loans',
      tab: 'overdue',
      filters: { days_past_due: '1..', status: 'ACTIVE' },
      columns: ['customer', 'principal', 'customer'],
      sort: '-principal',
      scope: 'branch:BR01',
    });
    expect(dataset.name).toBe('loans');
    expect(definition.columns).toEqual(['customer', 'principal']);
    const state = definitionState(dataset.def, definition);
    expect(state.tab).toBe('overdue');
    expect(state.sort).toEqual({ key: 'principal', dir: 'desc' });
    expect(state.filters.days_past_due).toEqual({ kind: 'number-range', min: '1', max: null });
    expect(state.scope).toEqual({ hierarchy_level: 'branch', hierarchy_id: 'BR01' });
    expect(definitionState(dataset.def, validateQueryDefinition({ dataset: 'loans' }).definition).tab).toBe(ALL_TAB);
  });

  it.each([
    [{ dataset: 'widgets' }, 'dataset'],
    [{}, 'dataset'],
    [{ dataset: 'loans', columns: ['customer', 'shoe_size'] }, 'columns.1'],
    [{ dataset: 'loans', filters: { shoe_size: '1' } }, 'filters.shoe_size'],
    [{ dataset: 'loans', filters: { outstanding: '1..2' } }, 'filters.outstanding'],
    [{ dataset: 'loans', filters: { status: 'SLEEPING' } }, 'filters.status'],
    [{ dataset: 'loans', filters: { disbursed_on: '2025-13-01..' } }, 'filters.disbursed_on'],
    [{ dataset: 'loans', sort: 'maturity' }, 'sort'],
    [{ dataset: 'loans', tab: 'late' }, 'tab'],
    [{ dataset: 'loans', scope: 'planet:1' }, 'scope'],
    [{ dataset: 'transactions', columns: 'amount' }, 'columns'],
  ])('refuses %j with a 422 naming %s', (raw, field) => {
    const error = errorOf(() => validateQueryDefinition(raw));
    expect(error.code).toBe('UNPROCESSABLE');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('checks transactions filters against their own columns', () => {
    expect(
      validateQueryDefinition({
        dataset: 'transactions',
        filters: { type: 'REPAYMENT,REVERSAL', is_reversed: 'false', amount: '10..' },
      }).definition.filters.type,
    ).toBe('REPAYMENT,REVERSAL');
    expect(errorOf(() => validateQueryDefinition({ dataset: 'transactions', filters: { type: 'GIFT' } })).field).toBe(
      'filters.type',
    );
  });
});
