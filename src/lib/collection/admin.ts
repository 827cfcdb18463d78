import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { validationError } from '../errors/messages.ts';
import { defineCommand } from '../http/command.ts';
import type { Actor } from '../lending/actor.ts';
import { isUuid } from '../lending/loans.ts';
import type { CollectionBucketsRow, CollectionPriorityRow, CollectionWorkflowsRow } from '../db/schema.generated.ts';
import { normaliseSteps, parseSteps, stepsSchema, type WorkflowStep } from './workflow-steps.ts';
import { recomputePriorities } from './priority.ts';

/**
 * Administration of collection (Admin › Business › Collection workflow): the tenant's buckets (ordered
 * day ranges), the worklist's priority weights, and the collection workflows run by the daily close.
 * Commands are shared by the /v1 API and the admin pages' forms; every write is audited.
 */

export type Bucket = { id: string; name: string; minDays: number; maxDays: number | null; position: number };
export type Priority = { weightAmount: string; weightDays: string; weightBrokenPromises: string; revision: number };
export type Workflow = {
  id: string;
  name: string;
  bucketId: string;
  bucketName: string;
  enabled: boolean;
  steps: WorkflowStep[];
  revision: number;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
};

const VIEW = need('admin.collection_workflow.view');
const EDIT = need('admin.collection_workflow.edit');
const DELETE = need('admin.collection_workflow.delete');
export const WORKFLOW_RULES = { view: VIEW, edit: EDIT, delete: DELETE } as const;

async function audit(
  tx: Tx,
  actor: Actor,
  action: string,
  objectType: string,
  objectId: string | null,
  before: unknown,
  after: unknown,
) {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType,
    objectId,
    outcome: 'success',
    before: before as Record<string, unknown> | null,
    after: after as Record<string, unknown> | null,
  });
}

// ── Buckets ─────────────────────────────────────────────────────────────────────────────────────

export async function listBuckets(tx: Tx): Promise<Bucket[]> {
  const rows = await tx.query<Pick<CollectionBucketsRow, 'id' | 'name' | 'min_days' | 'max_days' | 'position'>>(
    'select id, name, min_days, max_days, position from collection_buckets order by position',
  );
  return rows.map((r) => ({ id: r.id, name: r.name, minDays: r.min_days, maxDays: r.max_days, position: r.position }));
}

const bucketInput = z
  .object({
    id: z.string().max(100).nullish(),
    name: z.string().trim().min(1).max(60),
    minDays: z.coerce.number().int().min(1).max(100000),
    maxDays: z.preprocess(
      (v) => (v === '' || v === undefined ? null : v),
      z.coerce.number().int().min(1).max(100000).nullable(),
    ),
  })
  .strict();

export const saveBucketsInput = z.object({ buckets: z.array(bucketInput).min(1).max(20) }).strict();

/**
 * The rules of a bucket list: ordered, contiguous, non-overlapping day ranges starting at 1; only the
 * last may be open-ended; names unique. Throws a 422 naming the offending row's field.
 */
export function checkBuckets(buckets: z.infer<typeof bucketInput>[]): void {
  const names = new Set<string>();
  buckets.forEach((b, i) => {
    const at = `buckets[${i}]`;
    if (names.has(b.name.toLowerCase()))
      throw validationError(`${at}.name`, 'buckets.nameTaken', { name: b.name }, 'UNPROCESSABLE');
    names.add(b.name.toLowerCase());
    const expectedMin = i === 0 ? 1 : (buckets[i - 1].maxDays ?? NaN) + 1;
    if (b.minDays !== expectedMin)
      throw validationError(
        `${at}.minDays`,
        i === 0 ? 'buckets.startAtOne' : 'buckets.contiguous',
        { min: Number.isNaN(expectedMin) ? '—' : expectedMin, name: b.name },
        'UNPROCESSABLE',
      );
    if (b.maxDays === null && i < buckets.length - 1)
      throw validationError(`${at}.maxDays`, 'buckets.openEndedLast', { name: b.name }, 'UNPROCESSABLE');
    if (b.maxDays !== null && b.maxDays < b.minDays)
      throw validationError(`${at}.maxDays`, 'buckets.maxBelowMin', { min: b.minDays, name: b.name }, 'UNPROCESSABLE');
  });
}

export const saveBucketsCommand = defineCommand({
  action: 'collection_buckets.update',
  objectType: 'collection_buckets',
  permission: EDIT,
  input: saveBucketsInput,
  run: async (tx, actor, input): Promise<Bucket[]> => {
    await tx.query('select 1 from collection_priority where tenant_id = $1 for update', [actor.tenantId]);
    const before = await listBuckets(tx);
    checkBuckets(input.buckets);
    const known = new Map(before.map((b) => [b.id, b]));
    input.buckets.forEach((b, i) => {
      if (b.id && !known.has(b.id)) throw validationError(`buckets[${i}].id`, 'buckets.unknown', {}, 'UNPROCESSABLE');
    });
    const kept = new Set(input.buckets.map((b) => b.id).filter((id): id is string => !!id));
    const removed = before.filter((b) => !kept.has(b.id));
    if (removed.length) {
      const used = await tx.query<{ bucket_id: string; name: string }>(
        'select bucket_id, name from collection_workflows where bucket_id = any($1::uuid[]) order by name',
        [removed.map((b) => b.id)],
      );
      if (used.length) {
        const bucket = removed.find((b) => b.id === used[0].bucket_id)!;
        throw validationError(
          'buckets',
          'buckets.usedByWorkflow',
          { name: bucket.name, workflow: used[0].name },
          'CONFLICT',
          { code: 'bucket_in_use', bucketId: bucket.id },
        );
      }
      await tx.query(
        'update collection_cases set bucket_id = null, bucket_since = null where bucket_id = any($1::uuid[])',
        [removed.map((b) => b.id)],
      );
      await tx.query('delete from collection_buckets where id = any($1::uuid[])', [removed.map((b) => b.id)]);
    }
    // Out of the way of the (position) and (lower(name)) unique indexes, then the final values.
    await tx.query(`update collection_buckets set position = -position - 1000, name = '~' || id::text`);
    for (const [i, b] of input.buckets.entries()) {
      if (b.id)
        await tx.query(
          'update collection_buckets set name = $2, min_days = $3, max_days = $4, position = $5 where id = $1',
          [b.id, b.name, b.minDays, b.maxDays, i + 1],
        );
      else
        await tx.query(
          'insert into collection_buckets (tenant_id, name, min_days, max_days, position) values ($1, $2, $3, $4, $5)',
          [actor.tenantId, b.name, b.minDays, b.maxDays, i + 1],
        );
    }
    const after = await listBuckets(tx);
    await audit(
      tx,
      actor,
      'collection_buckets.update',
      'collection_buckets',
      null,
      { buckets: before },
      { buckets: after },
    );
    return after;
  },
});

// ── Priority weights ────────────────────────────────────────────────────────────────────────────

export async function getPriority(tx: Tx): Promise<Priority> {
  const [row] = await tx.query<
    Pick<CollectionPriorityRow, 'weight_amount' | 'weight_days' | 'weight_broken_promises' | 'revision'>
  >(
    'select weight_amount::text as weight_amount, weight_days::text as weight_days, weight_broken_promises::text as weight_broken_promises, revision from collection_priority',
  );
  if (!row) return { weightAmount: '1', weightDays: '10', weightBrokenPromises: '100', revision: 0 };
  return {
    weightAmount: String(row.weight_amount),
    weightDays: String(row.weight_days),
    weightBrokenPromises: String(row.weight_broken_promises),
    revision: row.revision,
  };
}

const weight = z.coerce
  .number()
  .min(0)
  .max(99_999_999)
  .refine((n) => Number.isFinite(n));

export const savePriorityInput = z
  .object({
    weightAmount: weight,
    weightDays: weight,
    weightBrokenPromises: weight,
    expectedRevision: z.coerce.number().int().min(0).optional(),
  })
  .strict();

export const savePriorityCommand = defineCommand({
  action: 'collection_priority.update',
  objectType: 'collection_priority',
  permission: EDIT,
  input: savePriorityInput,
  run: async (tx, actor, input): Promise<Priority> => {
    await tx.query('insert into collection_priority (tenant_id) values ($1) on conflict do nothing', [actor.tenantId]);
    await tx.query('select 1 from collection_priority for update');
    const before = await getPriority(tx);
    if (input.expectedRevision !== undefined && input.expectedRevision !== before.revision)
      throw new AppError(
        'CONFLICT',
        'The weights were changed by someone else since you opened them; reload to see them',
        {
          field: 'expectedRevision',
          details: { code: 'stale_revision', revision: before.revision },
        },
      );
    await tx.query(
      `update collection_priority set weight_amount = $1, weight_days = $2, weight_broken_promises = $3,
              revision = revision + 1, updated_at = now()`,
      [input.weightAmount, input.weightDays, input.weightBrokenPromises],
    );
    await recomputePriorities(tx, actor.tenantId);
    const after = await getPriority(tx);
    await audit(tx, actor, 'collection_priority.update', 'collection_priority', null, before, after);
    return after;
  },
});

// ── Workflows ───────────────────────────────────────────────────────────────────────────────────

type WorkflowRow = CollectionWorkflowsRow & { bucket_name: string };

function workflowJson(r: WorkflowRow): Workflow {
  let steps: WorkflowStep[];
  try {
    steps = parseSteps(r.steps);
  } catch {
    steps = [];
  }
  return {
    id: r.id,
    name: r.name,
    bucketId: r.bucket_id,
    bucketName: r.bucket_name,
    enabled: r.enabled,
    steps,
    revision: r.revision,
    createdBy: r.created_by,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

const SELECT_WORKFLOW = `select w.*, b.name as bucket_name from collection_workflows w
  join collection_buckets b on b.tenant_id = w.tenant_id and b.id = w.bucket_id`;

export async function listWorkflows(tx: Tx): Promise<Workflow[]> {
  const rows = await tx.query<WorkflowRow>(`${SELECT_WORKFLOW} order by b.position, lower(w.name)`);
  return rows.map(workflowJson);
}

/** One workflow; an unknown id (or another tenant's) is a 404. */
export async function getWorkflow(tx: Tx, id: string, lock = false): Promise<Workflow> {
  if (!isUuid(id)) throw new AppError('NOT_FOUND', 'Collection workflow not found');
  const [row] = await tx.query<WorkflowRow>(`${SELECT_WORKFLOW} where w.id = $1${lock ? ' for update of w' : ''}`, [
    id,
  ]);
  if (!row) throw new AppError('NOT_FOUND', 'Collection workflow not found');
  return workflowJson(row);
}

const nameField = z.string().trim().min(1).max(120);
const enabledField = z.preprocess((v) => (v === 'on' || v === 'true' ? true : v === 'false' ? false : v), z.boolean());

export const createWorkflowInput = z
  .object({
    name: nameField,
    bucketId: z.string().max(100),
    enabled: enabledField.optional(),
    steps: stepsSchema.default([]),
  })
  .strict();

export const updateWorkflowInput = z
  .object({
    id: z.string().max(100),
    expectedRevision: z.coerce.number().int().positive().optional(),
    name: nameField.optional(),
    bucketId: z.string().max(100).optional(),
    enabled: enabledField.optional(),
    steps: stepsSchema.optional(),
  })
  .strict();

async function assertBucket(tx: Tx, bucketId: string): Promise<void> {
  const [row] = isUuid(bucketId) ? await tx.query('select 1 from collection_buckets where id = $1', [bucketId]) : [];
  if (!row) throw validationError('bucketId', 'buckets.unknown', {}, 'UNPROCESSABLE');
}

async function assertNameFree(tx: Tx, name: string, exceptId: string | null): Promise<void> {
  const [taken] = await tx.query(
    'select 1 from collection_workflows where lower(name) = lower($1) and ($2::uuid is null or id <> $2::uuid)',
    [name, exceptId],
  );
  if (taken) throw validationError('name', 'buckets.workflowNameTaken', { name }, 'CONFLICT');
}

export const createWorkflowCommand = defineCommand({
  action: 'collection_workflow.create',
  objectType: 'collection_workflow',
  permission: EDIT,
  input: createWorkflowInput,
  run: async (tx, actor, input): Promise<Workflow> => {
    await assertBucket(tx, input.bucketId);
    await assertNameFree(tx, input.name, null);
    const steps = normaliseSteps(input.steps);
    await assertStepUsers(tx, steps);
    const [{ id }] = await tx.query<{ id: string }>(
      `insert into collection_workflows (tenant_id, name, bucket_id, enabled, steps, created_by)
       values ($1, $2, $3, $4, $5::jsonb, $6) returning id`,
      [actor.tenantId, input.name, input.bucketId, input.enabled ?? true, JSON.stringify(steps), actor.userId],
    );
    const after = await getWorkflow(tx, id);
    await audit(tx, actor, 'collection_workflow.create', 'collection_workflow', id, null, after);
    return after;
  },
});

function assertRevision(w: Workflow, expected: number | undefined) {
  if (expected !== undefined && expected !== w.revision)
    throw new AppError('CONFLICT', 'This workflow was changed by someone else since you opened it; reload to see it', {
      field: 'expectedRevision',
      details: { code: 'stale_revision', revision: w.revision },
    });
}

export const updateWorkflowCommand = defineCommand({
  action: 'collection_workflow.update',
  objectType: 'collection_workflow',
  permission: EDIT,
  input: updateWorkflowInput,
  run: async (tx, actor, input): Promise<Workflow> => {
    const before = await getWorkflow(tx, input.id, true);
    assertRevision(before, input.expectedRevision);
    if (input.bucketId !== undefined) await assertBucket(tx, input.bucketId);
    if (input.name !== undefined) await assertNameFree(tx, input.name, input.id);
    // Steps keep their ids when they come back with them (ids guard "once per episode").
    const steps = input.steps === undefined ? before.steps : normaliseSteps(input.steps);
    if (input.steps !== undefined) await assertStepUsers(tx, steps);
    await tx.query(
      `update collection_workflows set name = $2, bucket_id = $3, enabled = $4, steps = $5::jsonb,
              revision = revision + 1, updated_at = now() where id = $1`,
      [
        input.id,
        input.name ?? before.name,
        input.bucketId ?? before.bucketId,
        input.enabled ?? before.enabled,
        JSON.stringify(steps),
      ],
    );
    const after = await getWorkflow(tx, input.id);
    await audit(tx, actor, 'collection_workflow.update', 'collection_workflow', input.id, before, after);
    return after;
  },
});

export const deleteWorkflowInput = z
  .object({ id: z.string().max(100), expectedRevision: z.coerce.number().int().positive().optional() })
  .strict();

export const deleteWorkflowCommand = defineCommand({
  action: 'collection_workflow.delete',
  objectType: 'collection_workflow',
  permission: DELETE,
  input: deleteWorkflowInput,
  run: async (tx, actor, input): Promise<{ id: string }> => {
    const before = await getWorkflow(tx, input.id, true);
    assertRevision(before, input.expectedRevision);
    await tx.query('delete from collection_workflow_runs where workflow_id = $1', [input.id]);
    await tx.query('delete from collection_workflows where id = $1', [input.id]);
    await audit(tx, actor, 'collection_workflow.delete', 'collection_workflow', input.id, before, null);
    return { id: input.id };
  },
});

/** The input of a command on one workflow: the JSON body's fields and the id of the path. */
export function withWorkflowId(id: string) {
  return (body: unknown) => ({ ...(body && typeof body === 'object' && !Array.isArray(body) ? body : {}), id });
}

/** What the workflow form offers: the tenant's active users (assign, assign a task to) and template codes. */
export async function workflowChoices(
  tx: Tx,
): Promise<{ users: { id: string; name: string }[]; templates: { code: string; name: string; channel: string }[] }> {
  const users = await tx.query<{ id: string; name: string }>(
    'select id, display_name as name from users where is_active order by lower(display_name), id',
  );
  const templates = await tx.query<{ code: string; name: string; channel: string }>(
    'select code, name, channel from message_templates order by code',
  );
  return { users, templates };
}

/** A user named by a step (assign, assign the task to) must be one of the tenant's active users. */
async function assertStepUsers(tx: Tx, steps: WorkflowStep[]): Promise<void> {
  for (const [i, s] of steps.entries()) {
    for (const [field, value] of [
      ['userId', s.params.userId],
      ['assignTo', s.params.assignTo],
    ] as const) {
      if (!value || !isUuid(value)) continue;
      const [user] = await tx.query('select 1 from users where id = $1 and is_active', [value]);
      if (!user) throw validationError(`steps[${i}].params.${field}`, 'invalid', {}, 'UNPROCESSABLE');
    }
  }
}
