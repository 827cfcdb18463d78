import { z } from 'zod';
import { recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import type { Db, Tx } from '../db/index.ts';
import type {
  DataQualityFailuresRow,
  DataQualityResultsRow,
  DataQualityRunsRow,
  TenantsRow,
} from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { enqueueJob } from '../jobs/queue.ts';
import { DATA_QUALITY_JOB } from '../jobs/scheduler.ts';
import { registerJobHandler, type JobContext } from '../jobs/worker.ts';
import {
  ENTITY_COUNT,
  KEPT_ROWS,
  RULES,
  overallScore,
  ruleById,
  ruleScore,
  rowHref,
  type Entity,
  type FailingRow,
} from './rules.ts';

/**
 * Data-quality runs (/admin/data/data-quality-check): a run is a job that evaluates every rule of
 * rules.ts, one short tenant transaction per rule (PGlite has one connection; a long run must not hold
 * it), and stores per rule the rows checked, the rows failing, the score, and at most
 * FAILURES_KEPT failing row ids for the drill-down. Started on demand (a command) or nightly (the
 * scheduler, once per tenant and local day). Only the last RUNS_KEPT runs are kept.
 */
export { DATA_QUALITY_JOB };
export const FAILURES_KEPT = KEPT_ROWS;
export const RUNS_KEPT = 20;

export type RunStatus = 'queued' | 'running' | 'done' | 'failed';
export type Run = Omit<DataQualityRunsRow, 'tenant_id' | 'status' | 'score'> & {
  status: RunStatus;
  score: number | null;
};
export type RuleResult = Pick<DataQualityResultsRow, 'rule' | 'position'> & {
  entity: Entity;
  checked: number;
  failing: number;
  score: number;
};
export type Failure = Pick<DataQualityFailuresRow, 'row_id' | 'customer_id' | 'detail'> & { href: string | null };

type RunRow = Omit<DataQualityRunsRow, 'tenant_id' | 'status' | 'score'> & { status: RunStatus; score: string | null };
const RUN_COLUMNS = `id, trigger, status, job_id, requested_by, rules_total, rules_done, score::text as score, error,
  created_at, started_at, finished_at`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const toRun = (r: RunRow): Run => ({ ...r, score: r.score === null ? null : Number(r.score) });

/** Starts a run, or answers the one already queued or running (two clicks make one run). */
export async function startRun(
  tx: Tx,
  tenantId: string,
  input: { trigger: 'manual' | 'nightly'; requestedBy?: string | null },
): Promise<{ run: Run; isNew: boolean }> {
  // One run at a time per tenant: the lock makes two simultaneous starts see each other.
  await tx.query('select pg_advisory_xact_lock(hashtext($1), hashtext($2))', ['data_quality', tenantId]);
  const [open] = await tx.query<RunRow>(
    `select ${RUN_COLUMNS} from data_quality_runs where status in ('queued', 'running') order by created_at desc limit 1`,
  );
  if (open) return { run: toRun(open), isNew: false };
  const { job } = await enqueueJob(tx, {
    name: DATA_QUALITY_JOB,
    tenantId,
    payload: { trigger: input.trigger },
    // jobs.created_by is a user id (uuid); system and test actors have other ids.
    createdBy: input.requestedBy && UUID.test(input.requestedBy) ? input.requestedBy : null,
    maxAttempts: 3,
    priority: 120,
  });
  const [row] = await tx.query<RunRow>(
    `insert into data_quality_runs (tenant_id, trigger, job_id, requested_by, rules_total)
     values ($1, $2, $3, $4, $5) returning ${RUN_COLUMNS}`,
    [tenantId, input.trigger, job.id, input.requestedBy ?? null, RULES.length],
  );
  return { run: toRun(row), isNew: true };
}

/** "Run now" on the page and POST /v1/data-quality/runs: anyone who may see the check may run it. */
export const startRunCommand = defineCommand({
  action: 'data_quality.run',
  objectType: 'data_quality_run',
  permission: need('admin.data_quality_check.view'),
  input: z.object({}).strict(),
  run: async (tx, actor) => {
    const result = await startRun(tx, actor.tenantId, { trigger: 'manual', requestedBy: actor.userId });
    if (result.isNew)
      await recordAudit(tx, {
        tenantId: actor.tenantId,
        actorId: actor.userId,
        actorKind: actor.kind ?? 'user',
        ip: actor.ip,
        requestId: actor.requestId,
        action: 'data_quality.run',
        objectType: 'data_quality_run',
        objectId: result.run.id,
        after: { trigger: 'manual' },
        outcome: 'success',
      });
    return result;
  },
});

async function businessDate(tx: Tx, tenantId: string): Promise<string> {
  const [t] = await tx.query<Pick<TenantsRow, 'business_date'>>('select business_date from tenants where id = $1', [
    tenantId,
  ]);
  return t.business_date;
}

/** Stores one rule's outcome: the counts, the score, and the first FAILURES_KEPT failing rows (by id). */
async function storeResult(
  tx: Tx,
  tenantId: string,
  runId: string,
  position: number,
  rule: (typeof RULES)[number],
  checked: number,
  failing: FailingRow[] | null,
  failingCount?: number,
): Promise<void> {
  const count = failing ? failing.length : (failingCount ?? 0);
  await tx.query(
    `insert into data_quality_results (tenant_id, run_id, rule, entity, position, checked, failing, score)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [tenantId, runId, rule.id, rule.entity, position, checked, count, ruleScore(checked, count)],
  );
  if (failing?.length) {
    const kept = [...failing].sort((a, b) => (a.row_id < b.row_id ? -1 : 1)).slice(0, FAILURES_KEPT);
    await tx.query(
      `insert into data_quality_failures (tenant_id, run_id, rule, row_id, customer_id, detail)
       select $1, $2, $3, f.row_id, f.customer_id, f.detail
         from unnest($4::text[], $5::uuid[], $6::text[]) as f(row_id, customer_id, detail)`,
      [tenantId, runId, rule.id, kept.map((f) => f.row_id), kept.map((f) => f.customer_id), kept.map((f) => f.detail)],
    );
  }
}

/** Evaluates one rule inside the tenant's transaction and stores its result. */
async function evaluateRule(tx: Tx, tenantId: string, runId: string, position: number, asOf: string): Promise<void> {
  const rule = RULES[position];
  const [{ n: checked }] = await tx.query<{ n: number }>(ENTITY_COUNT[rule.entity]);
  if (rule.evaluate) {
    await storeResult(tx, tenantId, runId, position, rule, checked, await rule.evaluate(tx, tenantId));
    return;
  }
  // One statement: the failing rows are counted in full and the first FAILURES_KEPT (by id) stored.
  await tx.query(
    `insert into data_quality_results (tenant_id, run_id, rule, entity, position, checked, failing, score)
     values ($1, $2, $3, $4, $5, $6, 0, 100)`,
    [tenantId, runId, rule.id, rule.entity, position, checked],
  );
  const [{ failing }] = await tx.query<{ failing: number }>(
    `with f as materialized (${rule.failing}),
     kept as (
       insert into data_quality_failures (tenant_id, run_id, rule, row_id, customer_id, detail)
       select $2, $3, $4, row_id, customer_id, left(detail, 500) from f order by row_id limit ${FAILURES_KEPT}
       returning 1)
     select (select count(*) from f)::int as failing, (select count(*) from kept)::int as kept, $1::date as as_of`,
    [asOf, tenantId, runId, rule.id],
  );
  await tx.query(`update data_quality_results set failing = $3, score = $4 where run_id = $1 and rule = $2`, [
    runId,
    rule.id,
    failing,
    ruleScore(checked, failing),
  ]);
}

/**
 * The job: finds (or, for the nightly job, creates) the run of this job, then evaluates the rules not
 * yet stored, one transaction each, reporting progress. A retried job resumes where it stopped.
 */
export async function executeRun(ctx: Pick<JobContext, 'db' | 'job' | 'tenantId' | 'payload' | 'progress' | 'signal'>) {
  const { db, tenantId, job } = ctx;
  if (!tenantId) throw new Error('data quality runs belong to a tenant');
  const trigger = ctx.payload.trigger === 'nightly' ? 'nightly' : 'manual';
  const run = await db.tenant(tenantId, async (tx) => {
    await tx.query(
      `insert into data_quality_runs (tenant_id, trigger, job_id, rules_total) values ($1, $2, $3, $4)
       on conflict (tenant_id, job_id) where job_id is not null do nothing`,
      [tenantId, trigger, job.id, RULES.length],
    );
    const [row] = await tx.query<RunRow>(
      `update data_quality_runs set status = 'running', started_at = coalesce(started_at, now()), error = null
        where job_id = $1 returning ${RUN_COLUMNS}`,
      [job.id],
    );
    return toRun(row);
  });
  try {
    const done = await db.tenant(tenantId, (tx) =>
      tx.query<{ rule: string }>('select rule from data_quality_results where run_id = $1', [run.id]),
    );
    const stored = new Set(done.map((d) => d.rule));
    for (let position = 0; position < RULES.length; position++) {
      if (ctx.signal.aborted) throw new Error('stopped');
      if (stored.has(RULES[position].id)) continue;
      // Repeatable read: the ledger check reads several tables and must see them at one moment.
      await db.tenant(
        tenantId,
        async (tx) => {
          await evaluateRule(tx, tenantId, run.id, position, await businessDate(tx, tenantId));
          await tx.query(
            `update data_quality_runs set rules_done = (select count(*) from data_quality_results where run_id = $1) where id = $1`,
            [run.id],
          );
        },
        { isolation: 'repeatable read' },
      );
      await ctx.progress(position + 1, RULES.length);
    }
    return await db.tenant(tenantId, async (tx) => {
      const scores = await tx.query<{ score: string }>(
        'select score::text as score from data_quality_results where run_id = $1',
        [run.id],
      );
      const score = overallScore(scores.map((s) => Number(s.score)));
      await tx.query(`update data_quality_runs set status = 'done', score = $2, finished_at = now() where id = $1`, [
        run.id,
        score,
      ]);
      await tx.query(
        `delete from data_quality_runs where id in (
           select id from data_quality_runs where status in ('done', 'failed') order by created_at desc offset $1)`,
        [RUNS_KEPT],
      );
      return { runId: run.id, score };
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const isLast = job.attempts >= job.maxAttempts;
    await db.tenant(tenantId, (tx) =>
      tx.query(
        `update data_quality_runs set status = $2, error = $3, finished_at = case when $2 = 'failed' then now() end where id = $1`,
        [run.id, isLast ? 'failed' : 'queued', message.slice(0, 500)],
      ),
    );
    throw error;
  }
}

export function registerDataQualityJob(): void {
  registerJobHandler(DATA_QUALITY_JOB, (ctx) => executeRun(ctx));
}

// ————————————————————————————————————————— reading —————————————————————————————————————————

export async function getRun(tx: Tx, runId: string): Promise<Run> {
  if (!UUID.test(runId)) throw new AppError('NOT_FOUND', 'Run not found', { field: 'runId' });
  const [row] = await tx.query<RunRow>(`select ${RUN_COLUMNS} from data_quality_runs where id = $1`, [runId]);
  if (!row) throw new AppError('NOT_FOUND', 'Run not found', { field: 'runId' });
  return toRun(row);
}

/** The newest runs (the page's history), newest first. */
export async function listRuns(tx: Tx, limit = 10): Promise<Run[]> {
  const rows = await tx.query<RunRow>(
    `select ${RUN_COLUMNS} from data_quality_runs order by created_at desc limit $1`,
    [limit],
  );
  return rows.map(toRun);
}

/** The newest finished run, if any. */
export async function lastFinishedRun(tx: Tx): Promise<Run | null> {
  const [row] = await tx.query<RunRow>(
    `select ${RUN_COLUMNS} from data_quality_runs where status = 'done' order by finished_at desc limit 1`,
  );
  return row ? toRun(row) : null;
}

export async function runResults(tx: Tx, runId: string): Promise<RuleResult[]> {
  const rows = await tx.query<
    Pick<DataQualityResultsRow, 'rule' | 'entity' | 'position'> & { checked: string; failing: string; score: string }
  >(
    `select rule, entity, position, checked::text as checked, failing::text as failing, score::text as score
       from data_quality_results where run_id = $1 order by position`,
    [runId],
  );
  return rows.map((r) => ({
    rule: r.rule,
    position: r.position,
    entity: r.entity as Entity,
    checked: Number(r.checked),
    failing: Number(r.failing),
    score: Number(r.score),
  }));
}

/** A rule's failing rows in a run (ids ordered), with the page each is shown on. */
export async function runFailures(
  tx: Tx,
  runId: string,
  ruleId: string,
  options: { limit?: number; offset?: number } = {},
): Promise<{ rule: RuleResult; rows: Failure[]; kept: number }> {
  const rule = ruleById(ruleId);
  if (!rule) throw new AppError('NOT_FOUND', 'Rule not found', { field: 'rule' });
  const result = (await runResults(tx, runId)).find((r) => r.rule === ruleId);
  if (!result) throw new AppError('NOT_FOUND', 'Rule not found in this run', { field: 'rule' });
  const rows = await tx.query<Pick<DataQualityFailuresRow, 'row_id' | 'customer_id' | 'detail'>>(
    `select row_id, customer_id, detail from data_quality_failures where run_id = $1 and rule = $2
      order by row_id limit $3 offset $4`,
    [runId, ruleId, Math.min(options.limit ?? 100, FAILURES_KEPT), options.offset ?? 0],
  );
  const [{ n: kept }] = await tx.query<{ n: number }>(
    'select count(*)::int as n from data_quality_failures where run_id = $1 and rule = $2',
    [runId, ruleId],
  );
  return { rule: result, rows: rows.map((r) => ({ ...r, href: rowHref(rule.entity, r) })), kept };
}

/** JSON of a run for /v1 (with its results when finished). */
export function runJson(run: Run, results?: RuleResult[]) {
  return {
    id: run.id,
    trigger: run.trigger,
    status: run.status,
    rulesTotal: run.rules_total,
    rulesDone: run.rules_done,
    score: run.score,
    error: run.error,
    createdAt: run.created_at,
    startedAt: run.started_at,
    finishedAt: run.finished_at,
    ...(results ? { results } : {}),
  };
}

export type { Db };
