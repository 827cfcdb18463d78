import { describe, expect, it } from 'vitest';
import { sampleScorecard, templateFor } from '#lib/decisioning/editor-model.ts';
import { demoPolicyModel } from '#lib/decisioning/samples.ts';
import { evaluateJdm } from '#lib/decisioning/zen.ts';
import { casesFrom, contentOf, draftsFrom, firedRules, workingFrom } from './state.ts';

describe('decision model editor state', () => {
  it('opens each kind in its editor and saves the same document', () => {
    for (const kind of ['table', 'expression', 'scorecard'] as const) {
      const content = templateFor(kind);
      const working = workingFrom(kind, content);
      expect(working.kind).toBe(kind);
      expect(contentOf(working)).toEqual(content);
    }
    expect(workingFrom('scorecard', templateFor('scorecard'))).toMatchObject({ card: sampleScorecard() });
  });

  it('a document its kind cannot show opens as a graph', () => {
    expect(workingFrom('scorecard', demoPolicyModel()).kind).toBe('graph');
    expect(workingFrom('expression', demoPolicyModel()).kind).toBe('graph');
  });

  it('test case drafts: JSON objects only, the others named', () => {
    const drafts = draftsFrom([{ name: 'a', input: { x: 1 }, expected: { y: 2 } }]);
    drafts.push({ key: 'bad', name: 'b', input: '[1]', expected: '{' });
    const { cases, invalid } = casesFrom(drafts);
    expect(cases).toEqual([{ name: 'a', input: { x: 1 }, expected: { y: 2 } }]);
    expect(invalid).toEqual([
      { key: 'bad', field: 'input' },
      { key: 'bad', field: 'expected' },
    ]);
  });

  it('names the rule that fired', async () => {
    const evaluation = await evaluateJdm(demoPolicyModel(), {
      exposure: { maxDaysPastDue: 45 },
      bankStatement: { averageInflow: 4000 },
    });
    expect(firedRules(evaluation.trace)).toContainEqual({
      node: 'Credit policy',
      rules: ['Currently more than 30 days late'],
    });
  });
});
