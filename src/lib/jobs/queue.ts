import type { Db, Tx } from '../db/index.ts';
import type { JobsRow } from '../db/schema.generated.ts';

/**
 * The job queue's table operations (migration 0200_jobs.sql). Every statement is one short
 * transaction so PGlite's single connection is never held across a job's work.
 */

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export type Job = {
  id: bigint;
  name: string;
  tenantId: string | null;
  payload: Record<string, unknown>;
  status: JobStatus;
  priority: number;
  runAt: Date;
  attempts: number;
  maxAttempts: number;
  dedupeKey: string | null;
  lockedBy: string | null;
  leaseUntil: Date | null;
  progressDone: bigint | null;
  progressTotal: bigint | null;
  lastError: string | null;
  result: unknown;
  createdBy: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
};

export type EnqueueInput = {
  name: string;
  tenantId?: string | null;
  payload?: Record<string, unknown>;
  /** Not before this moment; default now. */
  runAt?: Date;
  /** Default 5; 1 means no retry. */
  maxAttempts?: number;
  /** Lower runs first; default 100. */
  priority?: number;
  /** Exactly-once key: a second enqueue with the same key is ignored and answers the first job. */
  dedupeKey?: string;
  createdBy?: string | null;
};

/** A `jobs` row as COLUMNS reads it; the status check constraint and the JSON payload are narrowed. */
type JobRow = Omit<JobsRow, 'heartbeat_at' | 'payload' | 'status'> & {
  payload: Record<string, unknown>;
  status: JobStatus;
};

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    name: row.name,
    tenantId: row.tenant_id,
    payload: row.payload ?? {},
    status: row.status,
    priority: row.priority,
    runAt: row.run_at,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    dedupeKey: row.dedupe_key,
    lockedBy: row.locked_by,
    leaseUntil: row.lease_until,
    progressDone: row.progress_done,
    progressTotal: row.progress_total,
    lastError: row.last_error,
    result: row.result,
    createdBy: row.created_by,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

const COLUMNS = `id, name, tenant_id, payload, status, priority, run_at, attempts, max_attempts, dedupe_key, locked_by,
  lease_until, progress_done, progress_total, last_error, result, created_by, created_at, started_at, finished_at`;

/**
 * Adds a job inside the caller's transaction, so the job exists exactly when the caller's work
 * commits (e.g. a downloads row and its export job). Works in db.tenant and db.system transactions:
 * the jobs table is global. With a dedupe key already present, nothing is inserted and the existing
 * job is answered with `isNew: false`.
 */
export async function enqueueJob(tx: Tx, input: EnqueueInput): Promise<{ job: Job; isNew: boolean }> {
  if (!input.name) throw new Error('enqueueJob: name is required');
  const inserted = await tx.query<JobRow>(
    `insert into jobs (name, tenant_id, payload, run_at, max_attempts, priority, dedupe_key, created_by)
     values ($1, $2, $3::jsonb, coalesce($4::timestamptz, now()), $5, $6, $7, $8)
     on conflict (dedupe_key) do nothing
     returning ${COLUMNS}`,
    [
      input.name,
      input.tenantId ?? null,
      JSON.stringify(input.payload ?? {}),
      input.runAt ?? null,
      input.maxAttempts ?? 5,
      input.priority ?? 100,
      input.dedupeKey ?? null,
      input.createdBy ?? null,
    ],
  );
  if (inserted[0]) return { job: toJob(inserted[0]), isNew: true };
  const existing = await tx.query<JobRow>(`select ${COLUMNS} from jobs where dedupe_key = $1`, [input.dedupeKey]);
  return { job: toJob(existing[0]), isNew: false };
}

export async function getJob(db: Db, id: bigint | number | string): Promise<Job | null> {
  const rows = await db.system((tx) => tx.query<JobRow>(`select ${COLUMNS} from jobs where id = $1`, [String(id)]));
  return rows[0] ? toJob(rows[0]) : null;
}

/**
 * Claims up to `limit` runnable jobs for one worker: queued and due, or running with an expired
 * lease (its worker died). `for update skip locked` lets several servers claim concurrently without
 * ever handing one job to two of them. Each claim counts as an attempt.
 */
export async function claimJobs(
  db: Db,
  input: { workerId: string; names: readonly string[]; limit: number; leaseMs: number },
): Promise<Job[]> {
  if (input.limit <= 0 || input.names.length === 0) return [];
  const rows = await db.system((tx) =>
    tx.query<JobRow>(
      `with picked as (
         select id from jobs
         where name = any($1::text[])
           and ((status = 'queued' and run_at <= now()) or (status = 'running' and lease_until < now()))
         order by priority, run_at, id
         limit $2
         for update skip locked
       )
       update jobs j set status = 'running', attempts = j.attempts + 1, locked_by = $3,
         lease_until = now() + make_interval(secs => $4::double precision / 1000), heartbeat_at = now(),
         started_at = now(), last_error = case when j.status = 'running' then 'lease expired; reclaimed' else j.last_error end
       from picked where j.id = picked.id
       returning ${COLUMNS.split(',')
         .map((c) => `j.${c.trim()}`)
         .join(', ')}`,
      [input.names, input.limit, input.workerId, input.leaseMs],
    ),
  );
  return rows.map(toJob);
}

/**
 * Extends the leases of the given jobs. Only rows still held by this worker change: a worker that
 * lost its lease (paused too long, reclaimed elsewhere) learns it from the missing ids.
 */
export async function heartbeatJobs(
  db: Db,
  workerId: string,
  ids: readonly bigint[],
  leaseMs: number,
): Promise<bigint[]> {
  if (ids.length === 0) return [];
  const rows = await db.system((tx) =>
    tx.query<Pick<JobsRow, 'id'>>(
      `update jobs set lease_until = now() + make_interval(secs => $3::double precision / 1000), heartbeat_at = now()
       where id = any($1::bigint[]) and locked_by = $2 and status = 'running' returning id`,
      [ids.map(String), workerId, leaseMs],
    ),
  );
  return rows.map((r) => r.id);
}

/** Records progress (and renews the lease). Answers false when this worker no longer holds the job. */
export async function reportProgress(
  db: Db,
  workerId: string,
  id: bigint,
  done: number | bigint,
  total: number | bigint,
  leaseMs: number,
): Promise<boolean> {
  const rows = await db.system((tx) =>
    tx.query(
      `update jobs set progress_done = $3, progress_total = $4, heartbeat_at = now(),
         lease_until = now() + make_interval(secs => $5::double precision / 1000)
       where id = $1 and locked_by = $2 and status = 'running' returning id`,
      [String(id), workerId, String(done), String(total), leaseMs],
    ),
  );
  return rows.length > 0;
}

/** Marks a claimed job done. Fenced by the worker id, so a reclaimed job is not completed twice. */
export async function completeJob(db: Db, workerId: string, id: bigint, result: unknown): Promise<boolean> {
  const rows = await db.system((tx) =>
    tx.query(
      `update jobs set status = 'succeeded', result = $3::jsonb, finished_at = now(), locked_by = null, lease_until = null,
         progress_done = coalesce(progress_total, progress_done)
       where id = $1 and locked_by = $2 and status = 'running' returning id`,
      [String(id), workerId, JSON.stringify(result ?? null, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))],
    ),
  );
  return rows.length > 0;
}

/**
 * Exponential back-off: base × 2^(attempt−1), capped. Deterministic so tests and operators can
 * predict when a retry runs.
 */
export function backoffMs(attempt: number, baseMs = 10_000, capMs = 3_600_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * Records a failure: back to 'queued' with a back-off delay while attempts remain (and the error is
 * retryable), otherwise 'failed' for good.
 */
export async function failJob(
  db: Db,
  workerId: string,
  job: Pick<Job, 'id' | 'attempts' | 'maxAttempts'>,
  error: string,
  options: { isRetryable: boolean; backoffBaseMs?: number },
): Promise<JobStatus | null> {
  const willRetry = options.isRetryable && job.attempts < job.maxAttempts;
  const delay = willRetry ? backoffMs(job.attempts, options.backoffBaseMs) : 0;
  const rows = await db.system((tx) =>
    tx.query<Pick<JobRow, 'status'>>(
      `update jobs set status = $3, last_error = $4, locked_by = null, lease_until = null,
         run_at = case when $3 = 'queued' then now() + make_interval(secs => $5::double precision / 1000) else run_at end,
         finished_at = case when $3 = 'failed' then now() else null end
       where id = $1 and locked_by = $2 and status = 'running' returning status`,
      [String(job.id), workerId, willRetry ? 'queued' : 'failed', error.slice(0, 4000), delay],
    ),
  );
  return rows[0]?.status ?? null;
}

/** Cancels a job that has not started yet. Answers whether it was cancelled. */
export async function cancelJob(db: Db, id: bigint): Promise<boolean> {
  const rows = await db.system((tx) =>
    tx.query(
      `update jobs set status = 'cancelled', finished_at = now() where id = $1 and status = 'queued' returning id`,
      [String(id)],
    ),
  );
  return rows.length > 0;
}

/** Deletes finished jobs older than the given age (default 14 days); answers how many. */
export async function pruneJobs(db: Db, olderThanDays = 14): Promise<number> {
  const rows = await db.system((tx) =>
    tx.query(
      `delete from jobs where status in ('succeeded', 'failed', 'cancelled')
         and finished_at < now() - make_interval(days => $1) returning id`,
      [olderThanDays],
    ),
  );
  return rows.length;
}
