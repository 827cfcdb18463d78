import {
  expressionLines,
  expressionsFromJdm,
  expressionsToJdm,
  parseExpressionLines,
  scorecardFromJdm,
  scorecardToJdm,
  tableFromJdm,
  tableToJdm,
  type Scorecard,
  type TableModel,
} from '#lib/decisioning/editor-model.ts';
import type { JdmContent } from '#lib/decisioning/zen.ts';

/**
 * The editor's working state for each kind of model, and the JDM document it saves. Pure, so the
 * round trip is tested without a browser (state.test.ts).
 */
export type Kind = 'table' | 'expression' | 'scorecard' | 'graph';

export type Working =
  | { kind: 'table'; table: TableModel }
  | { kind: 'expression'; text: string; name: string }
  | { kind: 'scorecard'; card: Scorecard }
  | { kind: 'graph'; content: JdmContent };

/** Opens a document in the editor of its kind; a document the kind's editor cannot show opens as a graph. */
export function workingFrom(kind: Kind, content: JdmContent): Working {
  if (kind === 'table') {
    const table = tableFromJdm(content);
    if (table && content.nodes.length === 3) return { kind, table };
  }
  if (kind === 'expression') {
    const list = expressionsFromJdm(content);
    const node = content.nodes.find((n) => n.type === 'expressionNode');
    if (list && content.nodes.length === 3) return { kind, text: expressionLines(list), name: node?.name ?? '' };
  }
  if (kind === 'scorecard') {
    const card = scorecardFromJdm(content);
    if (card) return { kind, card };
  }
  return { kind: 'graph', content };
}

export function contentOf(working: Working): JdmContent {
  switch (working.kind) {
    case 'table':
      return tableToJdm(working.table);
    case 'expression':
      return expressionsToJdm(parseExpressionLines(working.text), working.name || 'Expressions');
    case 'scorecard':
      return scorecardToJdm(working.card);
    case 'graph':
      return working.content;
  }
}

export type TestCaseDraft = { key: string; name: string; input: string; expected: string };
export type TestCase = { name: string; input: Record<string, unknown>; expected: Record<string, unknown> };

let drafts = 0;
export function draftKey(): string {
  drafts += 1;
  return `tc${drafts}`;
}

export function draftsFrom(cases: TestCase[]): TestCaseDraft[] {
  return cases.map((c) => ({
    key: draftKey(),
    name: c.name,
    input: JSON.stringify(c.input, null, 2),
    expected: JSON.stringify(c.expected, null, 2),
  }));
}

/** A JSON object from text, or null (not JSON, or not an object). */
export function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The test cases to save, or the keys of the drafts whose input or expected output is not a JSON object. */
export function casesFrom(list: TestCaseDraft[]): {
  cases: TestCase[];
  invalid: { key: string; field: 'input' | 'expected' }[];
} {
  const cases: TestCase[] = [];
  const invalid: { key: string; field: 'input' | 'expected' }[] = [];
  for (const d of list) {
    const input = jsonObject(d.input);
    const expected = jsonObject(d.expected);
    if (!input) invalid.push({ key: d.key, field: 'input' });
    if (!expected) invalid.push({ key: d.key, field: 'expected' });
    if (input && expected) cases.push({ name: d.name, input, expected });
  }
  return { cases, invalid };
}

/** The rules that fired, per node, from an evaluation's trace (what the "why" shows). */
export function firedRules(
  trace: { nodeId: string; name: string; rules: Record<string, unknown>[] }[],
): { node: string; rules: string[] }[] {
  // The input and output nodes (first and last) say nothing unless a rule is theirs.
  return trace
    .filter((s, i) => s.rules.length > 0 || (i > 0 && i < trace.length - 1))
    .map((s) => ({
      node: s.name,
      rules: s.rules.map((r) => String(r._description || r._id || '')).filter(Boolean),
    }));
}
