import type { JdmContent, JdmNode } from './zen.ts';
import { demoPolicyModel } from './samples.ts';

/**
 * What the browser editor edits, as pure functions between the editor's forms and the JDM document
 * zen-engine evaluates (no I/O, shared by the island, the new-model form and the tests):
 *  - a decision table: one decisionTableNode between the input and the output;
 *  - expressions: one expressionNode (`key = expression` lines);
 *  - a scorecard: characteristics (a field and bins: condition → points), a base score and cut-offs
 *    (minimum score → decision, optional limit and rate), compiled into one first-hit table per
 *    characteristic (output `points.<id>`), an expression node summing them into `score`, and a
 *    first-hit cut-off table; the scorecard itself is kept in the document (`editor.scorecard`,
 *    which zen-engine ignores) so it re-opens as a scorecard.
 */

export type Column = { id: string; name: string; field: string };
export type Rule = { _id: string; _description?: string } & Record<string, string | undefined>;
export type HitPolicy = 'first' | 'collect';
export type TableModel = { name: string; hitPolicy: HitPolicy; inputs: Column[]; outputs: Column[]; rules: Rule[] };

export type Expression = { id: string; key: string; value: string };

export type Bin = { id: string; condition: string; points: number; description?: string };
export type Characteristic = { id: string; name: string; field: string; bins: Bin[] };
export type Cutoff = { id: string; minScore: number; decision: string; limit?: string; rate?: string };
export type Scorecard = { baseScore: number; characteristics: Characteristic[]; cutoffs: Cutoff[] };

const IN = { id: 'request', type: 'inputNode', name: 'Request', position: { x: 80, y: 200 } } as const;
const OUT = { id: 'response', type: 'outputNode', name: 'Response', position: { x: 900, y: 200 } } as const;

let counter = 0;
/** A short id unique enough inside one document (columns, rules, bins). */
export function newId(prefix = 'id'): string {
  counter = (counter + 1) % 1_000_000;
  return `${prefix}${Date.now().toString(36)}${counter.toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

function chain(nodes: JdmNode[]): JdmContent {
  const all = [IN as JdmNode, ...nodes, OUT as JdmNode];
  return {
    nodes: all,
    edges: all.slice(1).map((n, i) => ({ id: `e${i + 1}`, sourceId: all[i].id, targetId: n.id, type: 'edge' })),
  };
}

// ---------------------------------------------------------------------------------------------
// Decision tables

export function tableToJdm(table: TableModel): JdmContent {
  return chain([
    {
      id: 'table',
      type: 'decisionTableNode',
      name: table.name || 'Decision table',
      position: { x: 400, y: 200 },
      content: {
        hitPolicy: table.hitPolicy,
        inputs: table.inputs,
        outputs: table.outputs,
        rules: table.rules.map((r) => {
          const row: Rule = { _id: r._id, _description: r._description ?? '' };
          for (const c of [...table.inputs, ...table.outputs]) row[c.id] = r[c.id] ?? '';
          return row;
        }),
      },
    },
  ]);
}

/** The first decision table of a document, as the editor shows it; null when there is none. */
export function tableFromJdm(content: JdmContent): TableModel | null {
  const node = content.nodes.find((n) => n.type === 'decisionTableNode');
  if (!node) return null;
  const c = (node.content ?? {}) as Partial<TableModel> & { hitPolicy?: string };
  const cols = (list: unknown): Column[] =>
    Array.isArray(list)
      ? list.map((x: Partial<Column>) => ({ id: String(x.id ?? newId('c')), name: x.name ?? '', field: x.field ?? '' }))
      : [];
  return {
    name: node.name,
    hitPolicy: c.hitPolicy === 'collect' ? 'collect' : 'first',
    inputs: cols(c.inputs),
    outputs: cols(c.outputs),
    rules: Array.isArray(c.rules) ? c.rules.map((r) => ({ ...r, _id: String(r._id ?? newId('r')) })) : [],
  };
}

export function addRule(table: TableModel, at = table.rules.length): TableModel {
  const rule: Rule = { _id: newId('r'), _description: '' };
  for (const c of [...table.inputs, ...table.outputs]) rule[c.id] = '';
  const rules = [...table.rules];
  rules.splice(at, 0, rule);
  return { ...table, rules };
}

export function removeRule(table: TableModel, index: number): TableModel {
  return { ...table, rules: table.rules.filter((_, i) => i !== index) };
}

function move<T>(list: T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return list;
  const copy = [...list];
  [copy[index], copy[to]] = [copy[to], copy[index]];
  return copy;
}

export function moveRule(table: TableModel, index: number, by: -1 | 1): TableModel {
  const rules = move(table.rules, index, by);
  return rules === table.rules ? table : { ...table, rules };
}

export type Side = 'inputs' | 'outputs';

export function addColumn(table: TableModel, side: Side, column: Partial<Column> = {}): TableModel {
  const col: Column = {
    id: column.id ?? newId(side === 'inputs' ? 'i' : 'o'),
    name: column.name ?? '',
    field: column.field ?? '',
  };
  return { ...table, [side]: [...table[side], col], rules: table.rules.map((r) => ({ ...r, [col.id]: '' })) };
}

export function removeColumn(table: TableModel, side: Side, index: number): TableModel {
  const col = table[side][index];
  if (!col) return table;
  return {
    ...table,
    [side]: table[side].filter((_, i) => i !== index),
    rules: table.rules.map((r) => {
      const copy = { ...r };
      delete copy[col.id];
      return copy;
    }),
  };
}

export function moveColumn(table: TableModel, side: Side, index: number, by: -1 | 1): TableModel {
  const columns = move(table[side], index, by);
  return columns === table[side] ? table : { ...table, [side]: columns };
}

export function updateColumn(table: TableModel, side: Side, index: number, patch: Partial<Column>): TableModel {
  return { ...table, [side]: table[side].map((c, i) => (i === index ? { ...c, ...patch, id: c.id } : c)) };
}

export function setCell(table: TableModel, row: number, columnId: string, value: string): TableModel {
  return { ...table, rules: table.rules.map((r, i) => (i === row ? { ...r, [columnId]: value } : r)) };
}

// ---------------------------------------------------------------------------------------------
// Expressions

export function expressionsToJdm(expressions: Expression[], name = 'Expressions'): JdmContent {
  return chain([
    { id: 'expressions', type: 'expressionNode', name, position: { x: 400, y: 200 }, content: { expressions } },
  ]);
}

export function expressionsFromJdm(content: JdmContent): Expression[] | null {
  const node = content.nodes.find((n) => n.type === 'expressionNode');
  if (!node) return null;
  const list = (node.content as { expressions?: Partial<Expression>[] } | undefined)?.expressions;
  return Array.isArray(list)
    ? list.map((e) => ({ id: String(e.id ?? newId('x')), key: e.key ?? '', value: e.value ?? '' }))
    : [];
}

/** `key = expression` lines (blank lines and lines without `=` are left out) ↔ the editor's text. */
export function parseExpressionLines(text: string): Expression[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.includes('='))
    .map((line, i) => {
      const at = line.indexOf('=');
      return { id: `x${i + 1}`, key: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };
    });
}

export function expressionLines(expressions: Expression[]): string {
  return expressions.map((e) => `${e.key} = ${e.value}`).join('\n');
}

// ---------------------------------------------------------------------------------------------
// Scorecards

/** A characteristic's key inside `points` (letters, digits and _ only, not starting with a digit). */
export function pointsKey(characteristic: Pick<Characteristic, 'id'>): string {
  const key = characteristic.id.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(key) ? key : `c_${key}`;
}

function cell(value: string | undefined): string {
  return value && value.trim() ? value.trim() : 'null';
}

export function scorecardToJdm(card: Scorecard): JdmContent {
  const characteristics: JdmNode[] = card.characteristics.map((ch, i) => ({
    id: `char_${pointsKey(ch)}`,
    type: 'decisionTableNode',
    name: ch.name || ch.field,
    position: { x: 340, y: 80 + i * 120 },
    content: {
      hitPolicy: 'first',
      inputs: [{ id: 'value', name: ch.name || ch.field, field: ch.field }],
      outputs: [{ id: 'points', name: 'Points', field: `points.${pointsKey(ch)}` }],
      rules: [
        ...ch.bins.map((b) => ({
          _id: b.id,
          _description: b.description || `${ch.name || ch.field} ${b.condition || 'any'}: ${b.points} points`,
          value: b.condition,
          points: String(b.points),
        })),
        // No bin matched: no points (so the sum is always a number).
        { _id: 'none', _description: `${ch.name || ch.field}: no bin matched`, value: '', points: '0' },
      ],
    },
  }));
  const sum = [String(card.baseScore), ...card.characteristics.map((ch) => `points.${pointsKey(ch)}`)].join(' + ');
  const hasLimit = card.cutoffs.some((c) => c.limit?.trim());
  const hasRate = card.cutoffs.some((c) => c.rate?.trim());
  const outputs = [
    { id: 'decision', name: 'Decision', field: 'decision' },
    { id: 'score', name: 'Score', field: 'score' },
    ...(hasLimit ? [{ id: 'limit', name: 'Limit', field: 'limit' }] : []),
    ...(hasRate ? [{ id: 'rate', name: 'Annual rate', field: 'rate' }] : []),
  ];
  const cutoffRow = (c: Cutoff | null) => ({
    _id: c ? c.id : 'below',
    _description: c ? `Score at least ${c.minScore}` : 'Below every cut-off',
    score_in: c ? `>= ${c.minScore}` : '',
    decision: c ? JSON.stringify(c.decision) : '"refer"',
    score: 'score',
    ...(hasLimit ? { limit: cell(c?.limit) } : {}),
    ...(hasRate ? { rate: cell(c?.rate) } : {}),
  });
  const score: JdmNode = {
    id: 'score',
    type: 'expressionNode',
    name: 'Score',
    position: { x: 600, y: 200 },
    content: { expressions: [{ id: 'score', key: 'score', value: sum }] },
  };
  const cutoffs: JdmNode = {
    id: 'cutoffs',
    type: 'decisionTableNode',
    name: 'Cut-offs',
    position: { x: 780, y: 200 },
    content: {
      hitPolicy: 'first',
      inputs: [{ id: 'score_in', name: 'Score', field: 'score' }],
      outputs,
      rules: [...[...card.cutoffs].sort((a, b) => b.minScore - a.minScore).map(cutoffRow), cutoffRow(null)],
    },
  };
  const nodes = [IN as JdmNode, ...characteristics, score, cutoffs, OUT as JdmNode];
  const firsts = characteristics.length ? characteristics : [];
  const edges = [
    ...(firsts.length
      ? firsts.flatMap((n) => [
          { id: `in_${n.id}`, sourceId: IN.id, targetId: n.id, type: 'edge' },
          { id: `${n.id}_score`, sourceId: n.id, targetId: 'score', type: 'edge' },
        ])
      : [{ id: 'in_score', sourceId: IN.id, targetId: 'score', type: 'edge' }]),
    { id: 'score_cutoffs', sourceId: 'score', targetId: 'cutoffs', type: 'edge' },
    { id: 'cutoffs_out', sourceId: 'cutoffs', targetId: OUT.id, type: 'edge' },
  ];
  return { nodes, edges, editor: { kind: 'scorecard', scorecard: card } } as JdmContent;
}

function isScorecard(value: unknown): value is Scorecard {
  const v = value as Scorecard | null;
  return (
    !!v &&
    typeof v === 'object' &&
    typeof v.baseScore === 'number' &&
    Array.isArray(v.characteristics) &&
    Array.isArray(v.cutoffs)
  );
}

/** The scorecard kept in a compiled document; null when the document was not made by scorecardToJdm. */
export function scorecardFromJdm(content: JdmContent): Scorecard | null {
  const card = (content as { editor?: { scorecard?: unknown } }).editor?.scorecard;
  return isScorecard(card) ? card : null;
}

// ---------------------------------------------------------------------------------------------
// Templates of a new model

export function sampleScorecard(): Scorecard {
  return {
    baseScore: 500,
    characteristics: [
      {
        id: 'dpd',
        name: 'Worst days past due',
        field: 'exposure.maxDaysPastDue',
        bins: [
          { id: 'dpd0', condition: '0', points: 60 },
          { id: 'dpd30', condition: '[1..30]', points: 10 },
          { id: 'dpdLate', condition: '> 30', points: -120 },
        ],
      },
      {
        id: 'dsr',
        name: 'Debt-service ratio',
        field: 'exposure.debtServiceRatio',
        bins: [
          { id: 'dsrLow', condition: '< 0.2', points: 50 },
          { id: 'dsrMid', condition: '[0.2..0.4]', points: 20 },
          { id: 'dsrHigh', condition: '> 0.4', points: -40 },
        ],
      },
      {
        id: 'inflow',
        name: 'Average monthly inflow',
        field: 'bankStatement.averageInflow',
        bins: [
          { id: 'inHigh', condition: '>= 3000', points: 40 },
          { id: 'inMid', condition: '[800..3000)', points: 15 },
          { id: 'inLow', condition: '< 800', points: -60 },
        ],
      },
    ],
    cutoffs: [
      { id: 'approve', minScore: 580, decision: 'approve', limit: '8000', rate: '11' },
      { id: 'refer', minScore: 520, decision: 'refer', limit: '0', rate: '0' },
      { id: 'reject', minScore: 0, decision: 'reject', limit: '0', rate: '0' },
    ],
  };
}

export function sampleExpressions(): Expression[] {
  return [
    { id: 'x1', key: 'debtService', value: 'exposure.debtServiceRatio * bankStatement.averageInflow' },
    { id: 'x2', key: 'limit', value: 'min([bankStatement.averageInflow * 2, 10000])' },
  ];
}

export type EditorKind = 'table' | 'expression' | 'scorecard' | 'graph';

/** The starting document of a new model of a kind (an imported JDM starts from the demo policy). */
export function templateFor(kind: EditorKind): JdmContent {
  if (kind === 'expression') return expressionsToJdm(sampleExpressions());
  if (kind === 'scorecard') return scorecardToJdm(sampleScorecard());
  const table = tableFromJdm(demoPolicyModel())!;
  return kind === 'table' ? tableToJdm(table) : demoPolicyModel();
}
