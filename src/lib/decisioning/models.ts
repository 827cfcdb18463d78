import { recordAudit, auditActor } from '../audit/record-audit.ts';
import type { Tx } from '../db/index.ts';
import type { DecisionModelsRow, DecisionModelVersionsRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import type { Actor } from '../lending/actor.ts';
import { assertUuid } from '../lending/loans.ts';
import { assertJdm, assertJsonDepth, evaluateJdm, forgetCompiled, type Evaluation, type JdmContent } from './zen.ts';

/**
 * Decision models: a name and a kind, and numbered versions of a JDM document with the test cases
 * saved beside it. Saving a version runs its test cases first and refuses it (422, with the report)
 * when one fails. A version that has taken part in a decision (`used_at`) is immutable: editing it is
 * a 409 `version_in_use`, and the change becomes a new version instead (`addVersion`).
 */

export const MODEL_KINDS = ['table', 'expression', 'scorecard', 'graph'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

export type TestCase = { name: string; input: Record<string, unknown>; expected: Record<string, unknown> };
export type TestCaseResult = {
  name: string;
  pass: boolean;
  expected: Record<string, unknown>;
  actual: unknown;
  error?: string;
};
export type TestReport = { passed: number; failed: number; cases: TestCaseResult[]; ranAt: string };

export type ModelRow = Omit<DecisionModelsRow, 'kind'> & { kind: ModelKind };
export type VersionRow = Omit<DecisionModelVersionsRow, 'content' | 'test_cases' | 'test_report'> & {
  content: JdmContent;
  test_cases: TestCase[];
  test_report: TestReport | null;
};
export type ModelSummary = ModelRow & {
  latest_version: number;
  latest_version_id: string;
  versions: number;
  in_use: boolean;
  /** The latest version's last test run. */
  latest_test_report: TestReport | null;
};

const MAX_TEST_CASES = 100;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** Checks the test cases' shape: a name, an input object and the expected output fields. */
export function assertTestCases(value: unknown): asserts value is TestCase[] {
  if (!Array.isArray(value)) throw new AppError('BAD_REQUEST', 'testCases must be a list', { field: 'testCases' });
  if (value.length > MAX_TEST_CASES)
    throw new AppError('BAD_REQUEST', `At most ${MAX_TEST_CASES} test cases`, { field: 'testCases' });
  assertJsonDepth(value, 'testCases');
  value.forEach((c, i) => {
    if (!isPlainObject(c) || typeof c.name !== 'string' || !c.name.trim() || c.name.length > 120)
      throw new AppError('BAD_REQUEST', `Test case ${i + 1} needs a name of at most 120 characters`, {
        field: 'testCases',
      });
    if (!isPlainObject(c.input) || !isPlainObject(c.expected))
      throw new AppError('BAD_REQUEST', `Test case "${c.name}" needs an input object and an expected object`, {
        field: 'testCases',
      });
  });
}

/** Expected values are compared field by field (nested objects too); numbers within 1e-9. */
export function matchesExpected(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'number' && typeof actual === 'number') return Math.abs(expected - actual) < 1e-9;
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return false;
    return Object.entries(expected).every(([k, v]) => matchesExpected(v, actual[k]));
  }
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      expected.length === actual.length &&
      expected.every((v, i) => matchesExpected(v, actual[i]))
    );
  return expected === actual || (expected === null && actual === undefined);
}

export async function runTestCases(content: JdmContent, cases: TestCase[]): Promise<TestReport> {
  const results: TestCaseResult[] = [];
  for (const c of cases) {
    try {
      const { result } = await evaluateJdm(content, c.input);
      results.push({ name: c.name, expected: c.expected, actual: result, pass: matchesExpected(c.expected, result) });
    } catch (error) {
      results.push({
        name: c.name,
        expected: c.expected,
        actual: null,
        pass: false,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  const passed = results.filter((r) => r.pass).length;
  return { passed, failed: results.length - passed, cases: results, ranAt: new Date().toISOString() };
}

/** Validates the document, runs the test cases and refuses (422 with the report in `details.report`) if one fails. */
async function checkedVersion(
  content: unknown,
  testCases: unknown,
): Promise<{ content: JdmContent; testCases: TestCase[]; report: TestReport }> {
  assertJdm(content);
  assertTestCases(testCases);
  const report = await runTestCases(content, testCases);
  if (report.failed > 0)
    throw new AppError(
      'UNPROCESSABLE',
      `${report.failed} of ${report.cases.length} test case(s) failed: ${report.cases
        .filter((c) => !c.pass)
        .map((c) => c.name)
        .join(', ')}`,
      { field: 'testCases', details: { report } },
    );
  return { content, testCases, report };
}

function assertName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim() || name.trim().length > 120)
    throw new AppError('BAD_REQUEST', 'A name of 1 to 120 characters is required', { field: 'name' });
  return name.trim();
}

export async function createModel(
  tx: Tx,
  actor: Actor,
  input: { name: string; kind: ModelKind; description?: string; content: unknown; testCases?: unknown },
): Promise<{ model: ModelRow; version: VersionRow }> {
  const name = assertName(input.name);
  if (!MODEL_KINDS.includes(input.kind))
    throw new AppError('BAD_REQUEST', `kind must be one of ${MODEL_KINDS.join(', ')}`, { field: 'kind' });
  const description = (input.description ?? '').trim();
  if (description.length > 2000)
    throw new AppError('BAD_REQUEST', 'The description is longer than 2000 characters', { field: 'description' });
  const checked = await checkedVersion(input.content, input.testCases ?? []);
  const taken = await tx.query(`select 1 from decision_models where lower(name) = lower($1)`, [name]);
  if (taken.length)
    throw new AppError('ALREADY_EXISTS', `A decision model named "${name}" already exists`, { field: 'name' });
  const [model] = await tx.query<ModelRow>(
    `insert into decision_models (tenant_id, name, kind, description, created_by) values ($1, $2, $3, $4, $5) returning *`,
    [actor.tenantId, name, input.kind, description, actor.userId],
  );
  const [version] = await tx.query<VersionRow>(
    `insert into decision_model_versions (tenant_id, model_id, version, content, test_cases, test_report, created_by)
     values ($1, $2, 1, $3::jsonb, $4::jsonb, $5::jsonb, $6) returning *`,
    [
      actor.tenantId,
      model.id,
      JSON.stringify(checked.content),
      JSON.stringify(checked.testCases),
      JSON.stringify(checked.report),
      actor.userId,
    ],
  );
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'decision_model.create',
    objectType: 'decision_model',
    objectId: model.id,
    after: { name, kind: input.kind, version: 1, testCases: checked.testCases.length },
    outcome: 'success',
  });
  return { model, version };
}

/** Edits a version that has not been used yet; a used one is a 409 `version_in_use` (make a new version). */
export async function updateVersion(
  tx: Tx,
  actor: Actor,
  versionId: string,
  input: { content: unknown; testCases?: unknown },
): Promise<VersionRow> {
  const current = await getVersion(tx, versionId, { lock: true });
  if (current.used_at)
    throw new AppError(
      'CONFLICT',
      `Version ${current.version} is in use and cannot be edited; save it as a new version`,
      {
        field: 'version',
        details: { code: 'version_in_use' },
      },
    );
  const checked = await checkedVersion(input.content, input.testCases ?? current.test_cases);
  const [row] = await tx.query<VersionRow>(
    `update decision_model_versions set content = $2::jsonb, test_cases = $3::jsonb, test_report = $4::jsonb, updated_at = now()
      where id = $1 returning *`,
    [versionId, JSON.stringify(checked.content), JSON.stringify(checked.testCases), JSON.stringify(checked.report)],
  );
  forgetCompiled(versionId);
  await tx.query(`update decision_models set updated_at = now() where id = $1`, [current.model_id]);
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'decision_model.version_update',
    objectType: 'decision_model',
    objectId: current.model_id,
    before: { version: current.version, content: current.content, testCases: current.test_cases },
    after: { version: row.version, content: row.content, testCases: row.test_cases },
    outcome: 'success',
  });
  return row;
}

/** Supersedes: a new version numbered after the last one. */
export async function addVersion(
  tx: Tx,
  actor: Actor,
  modelId: string,
  input: { content: unknown; testCases?: unknown },
): Promise<VersionRow> {
  const model = await getModelRow(tx, modelId, { lock: true });
  const latest = await latestVersion(tx, model.id);
  const checked = await checkedVersion(input.content, input.testCases ?? latest.test_cases);
  const [row] = await tx.query<VersionRow>(
    `insert into decision_model_versions (tenant_id, model_id, version, content, test_cases, test_report, created_by)
     values ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7) returning *`,
    [
      actor.tenantId,
      model.id,
      latest.version + 1,
      JSON.stringify(checked.content),
      JSON.stringify(checked.testCases),
      JSON.stringify(checked.report),
      actor.userId,
    ],
  );
  await tx.query(`update decision_models set updated_at = now() where id = $1`, [model.id]);
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'decision_model.version_create',
    objectType: 'decision_model',
    objectId: model.id,
    before: { version: latest.version },
    after: { version: row.version, content: row.content, testCases: row.test_cases },
    outcome: 'success',
  });
  return row;
}

/** Saves the model's work: edits the latest version while it is unused, otherwise supersedes it. */
export async function saveModel(
  tx: Tx,
  actor: Actor,
  modelId: string,
  input: { content: unknown; testCases?: unknown; description?: string },
): Promise<VersionRow> {
  const latest = await latestVersion(tx, modelId);
  if (input.description !== undefined) {
    const description = input.description.trim();
    if (description.length > 2000)
      throw new AppError('BAD_REQUEST', 'The description is longer than 2000 characters', { field: 'description' });
    await tx.query(`update decision_models set description = $2 where id = $1`, [modelId, description]);
  }
  return latest.used_at ? addVersion(tx, actor, modelId, input) : updateVersion(tx, actor, latest.id, input);
}

async function getModelRow(tx: Tx, modelId: string, opts: { lock?: boolean } = {}): Promise<ModelRow> {
  assertUuid(modelId, 'id');
  const [row] = await tx.query<ModelRow>(
    `select * from decision_models where id = $1${opts.lock ? ' for update' : ''}`,
    [modelId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Decision model not found', { field: 'id' });
  return row;
}

export async function getVersion(tx: Tx, versionId: string, opts: { lock?: boolean } = {}): Promise<VersionRow> {
  assertUuid(versionId, 'versionId');
  const [row] = await tx.query<VersionRow>(
    `select * from decision_model_versions where id = $1${opts.lock ? ' for update' : ''}`,
    [versionId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Decision model version not found', { field: 'versionId' });
  return row;
}

export async function latestVersion(tx: Tx, modelId: string): Promise<VersionRow> {
  assertUuid(modelId, 'id');
  const [row] = await tx.query<VersionRow>(
    `select * from decision_model_versions where model_id = $1 order by version desc limit 1`,
    [modelId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Decision model not found', { field: 'id' });
  return row;
}

/** A model with every version (newest first). */
export async function getModel(tx: Tx, modelId: string): Promise<{ model: ModelRow; versions: VersionRow[] }> {
  const model = await getModelRow(tx, modelId);
  const versions = await tx.query<VersionRow>(
    `select * from decision_model_versions where model_id = $1 order by version desc`,
    [model.id],
  );
  return { model, versions };
}

export async function listModels(tx: Tx): Promise<ModelSummary[]> {
  return tx.query<ModelSummary>(
    `select m.*, v.version as latest_version, v.id as latest_version_id, v.test_report as latest_test_report,
            c.versions, c.in_use
       from decision_models m
       join lateral (select id, version, test_report from decision_model_versions where model_id = m.id order by version desc limit 1) v on true
       join lateral (select count(*)::int as versions, bool_or(used_at is not null) as in_use
                       from decision_model_versions where model_id = m.id) c on true
      order by lower(m.name), m.id`,
  );
}

/** Evaluates a stored version; `{ modelId, versionId, version }` say which one answered. */
export async function evaluateVersion(
  tx: Tx,
  versionId: string,
  input: unknown,
): Promise<Evaluation & { modelId: string; versionId: string; version: number }> {
  const version = await getVersion(tx, versionId);
  const evaluation = await evaluateJdm(version.content, input, version.used_at ? version.id : null);
  return { ...evaluation, modelId: version.model_id, versionId: version.id, version: version.version };
}

/** Marks a version as used (immutable from now on); idempotent. */
export async function markVersionUsed(tx: Tx, versionId: string): Promise<void> {
  await tx.query(`update decision_model_versions set used_at = now() where id = $1 and used_at is null`, [versionId]);
}
