import { describe, expect, it } from 'vitest';
import {
  addColumn,
  addRule,
  expressionLines,
  expressionsFromJdm,
  expressionsToJdm,
  moveColumn,
  moveRule,
  parseExpressionLines,
  removeColumn,
  removeRule,
  sampleScorecard,
  scorecardFromJdm,
  scorecardToJdm,
  setCell,
  tableFromJdm,
  tableToJdm,
  templateFor,
  type Scorecard,
} from '#lib/decisioning/editor-model.ts';
import { demoPolicyModel } from '#lib/decisioning/samples.ts';
import { assertJdm, evaluateJdm } from '#lib/decisioning/zen.ts';

const card: Scorecard = {
  baseScore: 100,
  characteristics: [
    {
      id: 'age',
      name: 'Age',
      field: 'customer.age',
      bins: [
        { id: 'young', condition: '< 25', points: 5 },
        { id: 'mid', condition: '[25..60]', points: 20 },
      ],
    },
    {
      id: 'income',
      name: 'Income',
      field: 'income',
      bins: [
        { id: 'low', condition: '< 1000', points: -10 },
        { id: 'high', condition: '>= 1000', points: 30 },
      ],
    },
    { id: 'dpd', name: 'Late days', field: 'dpd', bins: [{ id: 'late', condition: '> 30', points: -50 }] },
  ],
  cutoffs: [
    { id: 'a', minScore: 140, decision: 'approve', limit: '5000', rate: '' },
    { id: 'r', minScore: 100, decision: 'refer' },
  ],
};

describe('scorecard ↔ JDM', () => {
  it('compiles to a document zen-engine accepts, summing points of three characteristics', async () => {
    const doc = scorecardToJdm(card);
    assertJdm(doc);
    const strong = await evaluateJdm(doc, { customer: { age: 40 }, income: 2000, dpd: 0 });
    expect(strong.result).toMatchObject({ score: 150, decision: 'approve', limit: 5000 });
    const refer = await evaluateJdm(doc, { customer: { age: 20 }, income: 500, dpd: 0 });
    expect(refer.result).toMatchObject({ score: 95, decision: 'refer' });
    // 100 + 20 + 30 - 50 = 100: the refer cut-off (at least 100).
    const late = await evaluateJdm(doc, { customer: { age: 40 }, income: 2000, dpd: 45 });
    expect(late.result).toMatchObject({ score: 100, decision: 'refer' });
    expect(late.result.limit ?? null).toBeNull();
    // The trace names the bins that fired.
    const fired = late.trace.flatMap((s) => s.rules.map((r) => r._id));
    expect(fired).toEqual(expect.arrayContaining(['mid', 'high', 'late', 'r']));
  });

  it('below every cut-off is a refer; no matching bin gives no points', async () => {
    const doc = scorecardToJdm({ ...card, cutoffs: [{ id: 'a', minScore: 1000, decision: 'approve' }] });
    const result = await evaluateJdm(doc, { customer: { age: 70 } });
    expect(result.result).toMatchObject({ score: 100, decision: 'refer' });
  });

  it('re-opens as the same scorecard', () => {
    expect(scorecardFromJdm(scorecardToJdm(card))).toEqual(card);
    expect(scorecardFromJdm(demoPolicyModel())).toBeNull();
  });

  it('the sample scorecard approves a strong profile and rejects a late one', async () => {
    const doc = scorecardToJdm(sampleScorecard());
    const input = {
      exposure: { maxDaysPastDue: 0, debtServiceRatio: 0.1 },
      bankStatement: { averageInflow: 4000 },
    };
    expect((await evaluateJdm(doc, input)).result).toMatchObject({ decision: 'approve', score: 650 });
    const late = { ...input, exposure: { maxDaysPastDue: 60, debtServiceRatio: 0.5 } };
    expect((await evaluateJdm(doc, late)).result).toMatchObject({ decision: 'reject', score: 380 });
  });
});

describe('decision table editing', () => {
  it('round-trips the demo policy and evaluates the same', async () => {
    const table = tableFromJdm(demoPolicyModel())!;
    expect(table.hitPolicy).toBe('first');
    expect(table.inputs.map((c) => c.field)).toContain('exposure.debtServiceRatio');
    const doc = tableToJdm(table);
    assertJdm(doc);
    const input = {
      exposure: { maxDaysPastDue: 45, writtenOffLoans: 0, debtServiceRatio: 0.1 },
      bankStatement: { averageInflow: 4000 },
    };
    expect((await evaluateJdm(doc, input)).result).toMatchObject({ decision: 'reject' });
  });

  it('adds, moves and removes rows and columns, keeping cells in step', async () => {
    let table = tableFromJdm(demoPolicyModel())!;
    const rules = table.rules.length;
    table = addRule(table, 0);
    expect(table.rules).toHaveLength(rules + 1);
    table = setCell(table, 0, 'dpd', '> 90');
    table = setCell(table, 0, 'decision', '"reject"');
    table = { ...table, rules: table.rules.map((r, i) => (i === 0 ? { ...r, _description: 'Very late' } : r)) };
    const first = table.rules[0]._id;
    table = moveRule(table, 0, 1);
    expect(table.rules[1]._id).toBe(first);
    table = moveRule(table, 1, -1);
    expect(table.rules[0]._id).toBe(first);
    expect(moveRule(table, 0, -1)).toBe(table);

    table = addColumn(table, 'inputs', { name: 'Age', field: 'customer.age' });
    const added = table.inputs.at(-1)!;
    expect(table.rules.every((r) => r[added.id] === '')).toBe(true);
    table = moveColumn(table, 'inputs', table.inputs.length - 1, -1);
    expect(table.inputs.at(-2)!.id).toBe(added.id);
    table = removeColumn(table, 'inputs', table.inputs.length - 2);
    expect(table.inputs.some((c) => c.id === added.id)).toBe(false);
    expect(table.rules.some((r) => added.id in r)).toBe(false);

    const evaluation = await evaluateJdm(tableToJdm(table), {
      exposure: { maxDaysPastDue: 95, writtenOffLoans: 0, debtServiceRatio: 0.1 },
      bankStatement: { averageInflow: 4000 },
    });
    expect(evaluation.trace.flatMap((s) => s.rules.map((r) => r._description))).toContain('Very late');
    table = removeRule(table, 0);
    expect(table.rules).toHaveLength(rules);
  });
});

describe('expressions', () => {
  it('reads key = expression lines and evaluates them', async () => {
    const list = parseExpressionLines('total = a + b\n\nnot a line\ndouble = $.total * 2');
    expect(list.map((e) => e.key)).toEqual(['total', 'double']);
    const doc = expressionsToJdm(list);
    assertJdm(doc);
    expect(expressionLines(expressionsFromJdm(doc)!)).toBe('total = a + b\ndouble = $.total * 2');
    expect((await evaluateJdm(doc, { a: 1, b: 2 })).result).toMatchObject({ total: 3, double: 6 });
  });

  it('every kind has a template the engine accepts', () => {
    for (const kind of ['table', 'expression', 'scorecard', 'graph'] as const)
      expect(() => assertJdm(templateFor(kind))).not.toThrow();
  });
});
