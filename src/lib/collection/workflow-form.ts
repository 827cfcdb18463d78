import type { Bucket, Workflow } from './admin.ts';
import type { WorkflowStep } from './workflow-steps.ts';

/**
 * The admin pages' plain HTML forms (no JavaScript) ↔ the commands' inputs: buckets as rows
 * `buckets.<i>.name|minDays|maxDays|id|delete`, workflow steps as rows `steps.<i>.<field>` (a row
 * without an action is an unused blank row). Pure functions: the pages stay thin.
 */

export type FormValues = Record<string, string>;

/** Row indexes used in the form for a prefix ('buckets', 'steps'), in order. */
function rows(values: FormValues, prefix: string): number[] {
  const seen = new Set<number>();
  for (const key of Object.keys(values)) {
    const m = new RegExp(`^${prefix}\\.(\\d{1,3})\\.`).exec(key);
    if (m) seen.add(Number(m[1]));
  }
  return [...seen].sort((a, b) => a - b);
}

const num = (v: string | undefined): unknown => {
  const text = (v ?? '').trim();
  return text === '' ? undefined : /^-?\d+$/.test(text) ? Number(text) : text;
};

export function bucketsFromForm(values: FormValues): { buckets: unknown[] } {
  const buckets: unknown[] = [];
  for (const i of rows(values, 'buckets')) {
    const get = (f: string) => values[`buckets.${i}.${f}`] ?? '';
    if (get('delete')) continue;
    const id = get('id').trim();
    if (!id && !get('name').trim() && !get('minDays').trim() && !get('maxDays').trim()) continue;
    buckets.push({
      ...(id ? { id } : {}),
      name: get('name'),
      minDays: num(get('minDays')) ?? '',
      maxDays: num(get('maxDays')) ?? null,
    });
  }
  return { buckets };
}

export function stepsFromForm(values: FormValues): unknown[] {
  const steps: unknown[] = [];
  for (const i of rows(values, 'steps')) {
    const get = (f: string) => (values[`steps.${i}.${f}`] ?? '').trim();
    if (!get('action')) continue;
    const params: Record<string, unknown> = {};
    for (const f of ['title', 'description', 'priority', 'assignTo', 'templateCode', 'userId'])
      if (get(f)) params[f] = get(f);
    if (get('dueInDays')) params.dueInDays = num(get('dueInDays'));
    steps.push({
      ...(get('id') ? { id: get('id') } : {}),
      offsetDays: num(get('offsetDays')) ?? 0,
      action: get('action'),
      params,
      ...(get('when') ? { when: get('when') } : {}),
    });
  }
  return steps;
}

/** The workflow form's values → the create/update command's input. */
export function workflowFromForm(values: FormValues): Record<string, unknown> {
  return {
    name: values.name ?? '',
    bucketId: values.bucketId ?? '',
    enabled: values.enabled === 'on',
    steps: stepsFromForm(values),
    ...(values.expectedRevision ? { expectedRevision: values.expectedRevision } : {}),
  };
}

export type StepRow = {
  id: string;
  offsetDays: string;
  action: string;
  when: string;
  title: string;
  description: string;
  priority: string;
  dueInDays: string;
  assignTo: string;
  templateCode: string;
  userId: string;
};

const blankStep: StepRow = {
  id: '',
  offsetDays: '',
  action: '',
  when: '',
  title: '',
  description: '',
  priority: '',
  dueInDays: '',
  assignTo: '',
  templateCode: '',
  userId: '',
};

/** Step rows to show: the workflow's (or the posted values'), plus `blanks` empty rows to add steps. */
export function stepRows(source: WorkflowStep[] | FormValues, blanks = 2): StepRow[] {
  let out: StepRow[];
  if (Array.isArray(source)) {
    out = source.map((s) => ({
      ...blankStep,
      id: s.id,
      offsetDays: String(s.offsetDays),
      action: s.action,
      when: s.when ?? '',
      title: s.params.title ?? '',
      description: s.params.description ?? '',
      priority: s.params.priority ?? '',
      dueInDays: s.params.dueInDays === undefined ? '' : String(s.params.dueInDays),
      assignTo: s.params.assignTo ?? '',
      templateCode: s.params.templateCode ?? '',
      userId: s.params.userId ?? '',
    }));
  } else {
    out = rows(source, 'steps')
      .map((i) => {
        const row = { ...blankStep };
        for (const f of Object.keys(blankStep) as (keyof StepRow)[]) row[f] = source[`steps.${i}.${f}`] ?? '';
        return row;
      })
      .filter((r) => r.action);
  }
  return [...out, ...Array.from({ length: blanks }, () => ({ ...blankStep }))];
}

export type BucketRow = { id: string; name: string; minDays: string; maxDays: string };

export function bucketRows(source: Bucket[] | FormValues, blanks = 1): BucketRow[] {
  let out: BucketRow[];
  if (Array.isArray(source))
    out = source.map((b) => ({
      id: b.id,
      name: b.name,
      minDays: String(b.minDays),
      maxDays: b.maxDays === null ? '' : String(b.maxDays),
    }));
  else
    out = rows(source, 'buckets')
      .filter((i) => !source[`buckets.${i}.delete`])
      .map((i) => ({
        id: source[`buckets.${i}.id`] ?? '',
        name: source[`buckets.${i}.name`] ?? '',
        minDays: source[`buckets.${i}.minDays`] ?? '',
        maxDays: source[`buckets.${i}.maxDays`] ?? '',
      }))
      .filter((r) => r.id || r.name || r.minDays || r.maxDays);
  return [...out, ...Array.from({ length: blanks }, () => ({ id: '', name: '', minDays: '', maxDays: '' }))];
}

/** A one-line summary of a step for the list ("Day 5 · Create a task"). */
export function workflowSummary(w: Workflow): { offsetDays: number; action: string; when: string | null }[] {
  return w.steps.map((s) => ({ offsetDays: s.offsetDays, action: s.action, when: s.when ?? null }));
}
