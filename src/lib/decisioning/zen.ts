import { ZenEngine, type ZenDecision, type ZenEngineTrace } from '@gorules/zen-engine';
import { AppError } from '../errors/app-error.ts';

/**
 * GoRules zen-engine, the one evaluator of decision models: a model version's content is a JSON
 * Decision Model (JDM: `{ nodes, edges }`). Only the node kinds a lender's policy needs are allowed:
 * input and output, decision tables, expressions and switches. Function nodes (JavaScript), sub-decision
 * nodes (which would load other documents) and custom or HTTP nodes are refused, so a model can neither
 * run code nor reach the network.
 */
export const ALLOWED_NODE_TYPES = [
  'inputNode',
  'outputNode',
  'decisionTableNode',
  'expressionNode',
  'switchNode',
] as const;
export type JdmNodeType = (typeof ALLOWED_NODE_TYPES)[number];

export type JdmNode = {
  id: string;
  type: JdmNodeType;
  name: string;
  position?: { x: number; y: number };
  content?: unknown;
};
export type JdmEdge = { id: string; sourceId: string; targetId: string; type?: string; sourceHandle?: string };
export type JdmContent = { nodes: JdmNode[]; edges: JdmEdge[] };

export type Evaluation = {
  result: Record<string, unknown>;
  /** Per node, in evaluation order: its input, output and (tables) the rule that fired. */
  trace: TraceStep[];
  /** Engine time, milliseconds. */
  ms: number;
};
export type TraceStep = {
  nodeId: string;
  name: string;
  order: number;
  input: unknown;
  output: unknown;
  /** For decision tables: the rule(s) that fired, as the engine reports them (`_id`, `_description`, cell values). */
  rules: Record<string, unknown>[];
};

const MAX_CONTENT_BYTES = 256 * 1024;
const MAX_NODES = 100;
const MAX_DEPTH = 5;

const engine = new ZenEngine();
/** Compiled decisions by model version id (a used version never changes; an edited draft gets a new key). */
const compiled = new Map<string, ZenDecision>();
const CACHE_LIMIT = 500;

function invalid(message: string, field = 'content'): never {
  throw new AppError('BAD_REQUEST', message, { field });
}

const MAX_JSON_DEPTH = 32;

/**
 * Refuses JSON nested deeper than `max` levels (checked without recursion), so a hostile document or
 * input cannot overflow the stack of JSON.stringify or of the engine: a 400 naming `field`.
 */
export function assertJsonDepth(value: unknown, field: string, max = MAX_JSON_DEPTH): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (!item || typeof item !== 'object') continue;
    if (depth >= max) invalid(`The JSON is nested more than ${max} levels deep`, field);
    for (const child of Object.values(item)) if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
}

/** The engine's error without the native stack trace it appends. */
function engineMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .split(/\n\s*Stack backtrace:/)[0]
    .trim()
    .slice(0, 300);
}

/** Checks a JDM document's shape and node kinds, then lets the engine compile it; a 400 naming `content` otherwise. */
export function assertJdm(content: unknown): asserts content is JdmContent {
  if (!content || typeof content !== 'object' || Array.isArray(content))
    invalid('The model must be a JSON object with nodes and edges');
  assertJsonDepth(content, 'content');
  const c = content as Record<string, unknown>;
  if (!Array.isArray(c.nodes) || !Array.isArray(c.edges))
    invalid('The model must have a nodes array and an edges array');
  if (JSON.stringify(content).length > MAX_CONTENT_BYTES)
    invalid(`The model is larger than ${MAX_CONTENT_BYTES / 1024} KB`);
  if (c.nodes.length > MAX_NODES) invalid(`A model has at most ${MAX_NODES} nodes`);
  const ids = new Set<string>();
  for (const node of c.nodes as Record<string, unknown>[]) {
    if (!node || typeof node !== 'object' || typeof node.id !== 'string' || !node.id) invalid('Every node needs an id');
    if (ids.has(node.id)) invalid(`Two nodes have the id ${node.id}`);
    ids.add(node.id);
    if (!ALLOWED_NODE_TYPES.includes(node.type as JdmNodeType))
      invalid(
        `Node ${String(node.name ?? node.id)}: type ${String(node.type)} is not allowed (${ALLOWED_NODE_TYPES.join(', ')})`,
      );
  }
  const types = (c.nodes as JdmNode[]).map((n) => n.type);
  if (!types.includes('inputNode')) invalid('The model needs an input node');
  if (!types.includes('outputNode')) invalid('The model needs an output node');
  for (const edge of c.edges as Record<string, unknown>[]) {
    if (!edge || typeof edge !== 'object' || !ids.has(edge.sourceId as string) || !ids.has(edge.targetId as string))
      invalid('Every edge must join two nodes of the model');
  }
  try {
    engine.createDecision(content).validate();
  } catch (error) {
    invalid(`The engine refused the model: ${engineMessage(error)}`);
  }
}

function decisionFor(key: string | null, content: JdmContent): ZenDecision {
  if (key) {
    const hit = compiled.get(key);
    if (hit) return hit;
  }
  const decision = engine.createDecision(content);
  if (key) {
    if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, decision);
  }
  return decision;
}

/** Forgets a compiled version (its content changed while it was still a draft). */
export function forgetCompiled(key: string): void {
  compiled.delete(key);
}

function traceSteps(trace: Record<string, ZenEngineTrace> | undefined): TraceStep[] {
  if (!trace) return [];
  return Object.values(trace)
    .sort((a, b) => a.order - b.order)
    .map((t) => {
      const data = t.traceData as
        { rule?: Record<string, unknown> } | { rule?: Record<string, unknown> }[] | null | undefined;
      const rules = Array.isArray(data)
        ? data.map((d) => d.rule).filter((r): r is Record<string, unknown> => !!r)
        : data?.rule
          ? [data.rule]
          : [];
      return { nodeId: t.id, name: t.name, order: t.order, input: t.input, output: t.output, rules };
    });
}

/**
 * Evaluates a JDM document on an input. `key` (a version id) caches the compiled decision. An error
 * raised by the model (a bad expression at run time) is a 422 naming the node.
 */
export async function evaluateJdm(content: JdmContent, input: unknown, key: string | null = null): Promise<Evaluation> {
  const started = performance.now();
  const outcome = await decisionFor(key, content).safeEvaluate(input ?? {}, { trace: true, maxDepth: MAX_DEPTH });
  if (!outcome.success) {
    const detail = typeof outcome.error === 'string' ? outcome.error : JSON.stringify(outcome.error);
    throw new AppError('UNPROCESSABLE', `The model could not be evaluated: ${detail.slice(0, 500)}`, {
      field: 'input',
    });
  }
  const result =
    outcome.data.result && typeof outcome.data.result === 'object'
      ? outcome.data.result
      : { value: outcome.data.result };
  return { result, trace: traceSteps(outcome.data.trace), ms: performance.now() - started };
}

/**
 * The result only, without the trace (half the time): for simulations over many customers, where
 * nothing is stored per customer. Same cache and errors as `evaluateJdm`.
 */
export async function evaluateJdmResult(
  content: JdmContent,
  input: unknown,
  key: string | null = null,
): Promise<Record<string, unknown>> {
  const outcome = await decisionFor(key, content).safeEvaluate(input ?? {}, { trace: false, maxDepth: MAX_DEPTH });
  if (!outcome.success) {
    const detail = typeof outcome.error === 'string' ? outcome.error : JSON.stringify(outcome.error);
    throw new AppError('UNPROCESSABLE', `The model could not be evaluated: ${detail.slice(0, 500)}`, {
      field: 'input',
    });
  }
  const result = outcome.data.result;
  return result && typeof result === 'object' ? result : { value: result };
}
