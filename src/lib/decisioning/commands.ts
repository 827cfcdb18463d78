import { z } from 'zod';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { assertUuid } from '../lending/loans.ts';
import { templateFor } from './editor-model.ts';
import {
  MODEL_KINDS,
  addVersion,
  createModel,
  evaluateVersion,
  getModel,
  latestVersion,
  saveModel,
  updateVersion,
  type ModelKind,
  type ModelRow,
  type ModelSummary,
  type VersionRow,
} from './models.ts';
import { assertJsonDepth } from './zen.ts';

/**
 * The decision-model writes as commands (src/lib/http/command.ts), run by /v1/decision-models and by
 * the new-model form of /admin/business/decision-models. API design:
 *  - `PUT /v1/decision-models/{id}` saves the editor's work: the latest version is edited while it is
 *    unused, else the work becomes a new version (the answer says which: `superseded`);
 *  - `POST /v1/decision-models/{id}/versions` always makes a new version;
 *  - `PATCH /v1/decision-models/{id}/versions/{n}` edits version n, a 409 `version_in_use` once used;
 *  - `POST /v1/decision-models/{id}/evaluate` is a test run (view permission): it marks nothing used.
 * Every save runs the version's test cases; a failing one is a 422 with `details.report`.
 */

const EDIT = need('admin.decision_models.edit');
const VIEW = need('admin.decision_models.view');

const name = z.string().max(200);
const description = z.string().max(2000);
const kind = z.enum(MODEL_KINDS);
const idField = z.string().max(100);

export const createModelInput = z
  .object({
    name,
    kind: kind.optional(),
    description: description.optional(),
    /** A JDM document; a new model of a kind without one starts from that kind's template. */
    content: z.unknown().optional(),
    testCases: z.unknown().optional(),
  })
  .strict();

export const createModelCommand = defineCommand({
  action: 'decision_model.create',
  objectType: 'decision_model',
  permission: EDIT,
  input: createModelInput,
  run: async (tx, actor, input) => {
    // A raw JDM document posted as { name, content } is an imported graph.
    const k: ModelKind = input.kind ?? (input.content === undefined ? 'table' : 'graph');
    return createModel(tx, actor, {
      name: input.name,
      kind: k,
      description: input.description,
      content: input.content === undefined ? templateFor(k) : input.content,
      testCases: input.testCases ?? [],
    });
  },
});

export type SaveAnswer = { version: VersionRow; superseded: boolean; previous: number };

export const saveModelInput = z
  .object({
    modelId: idField,
    content: z.unknown(),
    testCases: z.unknown().optional(),
    description: description.optional(),
    /** The version number the editor started from: a newer one saved meanwhile is a 409 (reload first). */
    baseVersion: z.number().int().positive().optional(),
  })
  .strict();

export const saveModelCommand = defineCommand({
  action: 'decision_model.save',
  objectType: 'decision_model',
  permission: EDIT,
  input: saveModelInput,
  run: async (tx, actor, input): Promise<SaveAnswer> => {
    assertUuid(input.modelId, 'id');
    await tx.query(`select 1 from decision_models where id = $1 for update`, [input.modelId]);
    const before = await latestVersion(tx, input.modelId);
    if (input.baseVersion !== undefined && input.baseVersion !== before.version)
      throw new AppError(
        'CONFLICT',
        `Version ${before.version} was saved since you opened version ${input.baseVersion}; reload the page`,
        { field: 'version', details: { code: 'stale_version', latest: before.version } },
      );
    const version = await saveModel(tx, actor, input.modelId, input);
    return { version, superseded: version.id !== before.id, previous: before.version };
  },
});

export const addVersionInput = z
  .object({ modelId: idField, content: z.unknown(), testCases: z.unknown().optional() })
  .strict();

export const addVersionCommand = defineCommand({
  action: 'decision_model.version_create',
  objectType: 'decision_model',
  permission: EDIT,
  input: addVersionInput,
  run: (tx, actor, input) => addVersion(tx, actor, input.modelId, input),
});

export const updateVersionInput = z
  .object({
    modelId: idField,
    version: z.coerce.number().int().positive().max(1_000_000),
    content: z.unknown(),
    testCases: z.unknown().optional(),
  })
  .strict();

async function versionNumbered(tx: Tx, modelId: string, version: number): Promise<VersionRow> {
  const { versions } = await getModel(tx, modelId);
  const row = versions.find((v) => v.version === version);
  if (!row) throw new AppError('NOT_FOUND', `Version ${version} not found`, { field: 'version' });
  return row;
}

export const updateVersionCommand = defineCommand({
  action: 'decision_model.version_update',
  objectType: 'decision_model',
  permission: EDIT,
  input: updateVersionInput,
  run: async (tx, actor, input) => {
    const row = await versionNumbered(tx, input.modelId, input.version);
    return updateVersion(tx, actor, row.id, input);
  },
});

export const evaluateInput = z
  .object({
    modelId: idField,
    input: z.record(z.string(), z.unknown()),
    version: z.number().int().positive().max(1_000_000).optional(),
  })
  .strict();

/** A test run of a version (the latest by default); marks nothing used, so it is not audited on success. */
export const evaluateModelCommand = defineCommand({
  action: 'decision_model.evaluate',
  objectType: 'decision_model',
  permission: VIEW,
  input: evaluateInput,
  run: async (tx, _actor, input) => {
    assertJsonDepth(input.input, 'input');
    const row =
      input.version === undefined
        ? await latestVersion(tx, input.modelId)
        : await versionNumbered(tx, input.modelId, input.version);
    const evaluation = await evaluateVersion(tx, row.id, input.input);
    return { result: evaluation.result, trace: evaluation.trace, version: evaluation.version, ms: evaluation.ms };
  },
});

/** The input of a command on one model: the JSON body's fields and the model id of the path. */
export function withModelId(modelId: string, extra: Record<string, unknown> = {}) {
  return (body: unknown) => ({
    ...(body && typeof body === 'object' && !Array.isArray(body) ? body : {}),
    ...extra,
    modelId,
  });
}

// ---------------------------------------------------------------------------------------------
// JSON views

/** Display names of the given user ids (authors of versions). */
export async function authorNames(tx: Tx, ids: string[]): Promise<Record<string, string>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return {};
  const rows = await tx.query<{ id: string; name: string }>(
    `select id::text as id, coalesce(nullif(display_name, ''), email) as name from users where id::text = any($1::text[])`,
    [unique],
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.name]));
}

export function versionJson(v: VersionRow, authors: Record<string, string> = {}) {
  return {
    id: v.id,
    version: v.version,
    content: v.content,
    testCases: v.test_cases,
    testReport: v.test_report,
    createdBy: v.created_by,
    author: authors[v.created_by] ?? v.created_by,
    createdAt: new Date(v.created_at).toISOString(),
    updatedAt: new Date(v.updated_at).toISOString(),
    usedAt: v.used_at ? new Date(v.used_at).toISOString() : null,
    inUse: !!v.used_at,
  };
}
export type VersionJson = ReturnType<typeof versionJson>;

export function modelJson(m: ModelRow) {
  return {
    id: m.id,
    name: m.name,
    kind: m.kind,
    description: m.description,
    createdAt: new Date(m.created_at).toISOString(),
    updatedAt: new Date(m.updated_at).toISOString(),
  };
}
export type ModelJson = ReturnType<typeof modelJson>;

export function summaryJson(m: ModelSummary) {
  const report = m.latest_test_report;
  return {
    ...modelJson(m),
    latestVersion: m.latest_version,
    latestVersionId: m.latest_version_id,
    versions: m.versions,
    inUse: m.in_use,
    tests: report ? { passed: report.passed, failed: report.failed } : { passed: 0, failed: 0 },
  };
}

export async function modelWithVersions(tx: Tx, modelId: string) {
  const { model, versions } = await getModel(tx, modelId);
  const authors = await authorNames(
    tx,
    versions.map((v) => v.created_by),
  );
  return { ...modelJson(model), versions: versions.map((v) => versionJson(v, authors)) };
}
export type ModelDetailJson = Awaited<ReturnType<typeof modelWithVersions>>;
