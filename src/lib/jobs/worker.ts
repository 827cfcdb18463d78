import crypto from 'node:crypto';
import os from 'node:os';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { logger } from '../observability/log.ts';
import { claimJobs, completeJob, failJob, heartbeatJobs, reportProgress, type Job } from './queue.ts';

export type JobContext = {
  db: Db;
  job: Job;
  /** The job's tenant (null for platform jobs). Run tenant work inside db.tenant(tenantId, …). */
  tenantId: string | null;
  payload: Record<string, unknown>;
  /** Records progress for the UI (downloads list) and renews the lease. */
  progress(done: number | bigint, total: number | bigint): Promise<void>;
  /** Aborted when the worker stops or loses the lease; long jobs should check it between batches. */
  signal: AbortSignal;
};

export type JobHandler = (ctx: JobContext) => Promise<unknown>;

/** Throw from a handler to fail a job at once, without retries (bad input, missing record). */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

// The Astro bundle and the boot script load this module as two copies; the registry lives on
// globalThis so a handler registered by either is seen by the one worker the boot started.
const REGISTRY_KEY = Symbol.for('lending.jobs.handlers');
type RegistrySlot = { [REGISTRY_KEY]?: Map<string, JobHandler> };

function registry(): Map<string, JobHandler> {
  const slot = globalThis as RegistrySlot;
  slot[REGISTRY_KEY] ??= new Map();
  return slot[REGISTRY_KEY];
}

/**
 * Registers the handler for a job name (process-wide). A worker claims only names it has a
 * handler for, so a job enqueued before its handler's module loaded simply waits.
 */
export function registerJobHandler(name: string, handler: JobHandler): void {
  registry().set(name, handler);
}

export function jobHandlerNames(): string[] {
  return [...registry().keys()];
}

export type WorkerOptions = {
  /** Jobs run at once by this worker. Default 2 (PGlite: one connection, keep it small). */
  concurrency?: number;
  /** Idle poll interval. Default 1000 ms. */
  pollMs?: number;
  /** Lease length; heartbeats renew it every leaseMs / 3. Default 60 s. */
  leaseMs?: number;
  /** Retry back-off base (doubles per attempt). Default 10 s. */
  backoffBaseMs?: number;
  /** Handlers for this worker only (tests); default: the process-wide registry. */
  handlers?: Map<string, JobHandler>;
  workerId?: string;
};

export type Worker = {
  readonly id: string;
  /** Polls now instead of waiting for the next interval (after an in-process enqueue). */
  wake(): void;
  /** Stops claiming, waits for running jobs (up to timeoutMs), then returns. */
  stop(timeoutMs?: number): Promise<void>;
  /** Resolves once nothing is queued-and-due for this worker's names and nothing runs (tests). */
  idle(): Promise<void>;
};

function isRetryable(error: unknown): boolean {
  if (error instanceof PermanentJobError) return false;
  // Client-side errors will not fix themselves on retry.
  if (error instanceof AppError) return error.status >= 500 || error.code === 'CONFLICT';
  return true;
}

/**
 * An in-process worker: polls the queue, runs claimed jobs with a lease kept alive by heartbeats,
 * retries failures with back-off. Safe to run in several processes against one Postgres.
 */
export function startWorker(db: Db, options: WorkerOptions = {}): Worker {
  const id = options.workerId ?? `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
  const concurrency = options.concurrency ?? 2;
  const pollMs = options.pollMs ?? 1000;
  const leaseMs = options.leaseMs ?? 60_000;
  const handlers = () => options.handlers ?? registry();
  const running = new Map<bigint, { controller: AbortController; done: Promise<void> }>();
  let isStopping = false;
  let wakeUp: (() => void) | undefined;
  let idleWaiters: (() => void)[] = [];

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wakeUp = undefined;
        resolve();
      }, ms);
      wakeUp = () => {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      };
    });

  const heartbeat = setInterval(
    () => {
      const ids = [...running.keys()];
      if (ids.length === 0) return;
      heartbeatJobs(db, id, ids, leaseMs)
        .then((held) => {
          const kept = new Set(held.map(String));
          for (const jobId of ids)
            if (!kept.has(String(jobId))) running.get(jobId)?.controller.abort(new Error('lease lost'));
        })
        .catch((error) => logger.warn('job heartbeat failed', { worker: id, error }));
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref();

  const run = (job: Job) => {
    const handler = handlers().get(job.name);
    const controller = new AbortController();
    const started = Date.now();
    const done = (async () => {
      try {
        if (!handler) throw new PermanentJobError(`no handler for job ${job.name}`);
        const result = await handler({
          db,
          job,
          tenantId: job.tenantId,
          payload: job.payload,
          signal: controller.signal,
          async progress(doneCount, total) {
            const isHeld = await reportProgress(db, id, job.id, doneCount, total, leaseMs);
            if (!isHeld) controller.abort(new Error('lease lost'));
          },
        });
        await completeJob(db, id, job.id, result ?? null);
        logger.info('job succeeded', {
          job: String(job.id),
          name: job.name,
          tenant: job.tenantId,
          ms: Date.now() - started,
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const status = await failJob(db, id, job, message, {
          isRetryable: isRetryable(error),
          backoffBaseMs: options.backoffBaseMs,
        }).catch((failError) => {
          logger.error('job failure not recorded', { job: String(job.id), error: failError });
          return null;
        });
        logger.warn('job failed', {
          job: String(job.id),
          name: job.name,
          tenant: job.tenantId,
          attempt: job.attempts,
          next: status,
          error: message,
        });
      } finally {
        running.delete(job.id);
        wakeUp?.();
      }
    })();
    running.set(job.id, { controller, done });
  };

  const loop = (async () => {
    while (!isStopping) {
      let claimed: Job[] = [];
      const free = concurrency - running.size;
      if (free > 0) {
        try {
          claimed = await claimJobs(db, { workerId: id, names: [...handlers().keys()], limit: free, leaseMs });
        } catch (error) {
          if (isStopping) break;
          logger.warn('job claim failed', { worker: id, error });
        }
      }
      for (const job of claimed) run(job);
      if (claimed.length === 0) {
        if (running.size === 0) {
          const waiters = idleWaiters;
          idleWaiters = [];
          for (const resolve of waiters) resolve();
        }
        if (!isStopping) await sleep(pollMs);
      }
    }
  })();

  return {
    id,
    wake: () => wakeUp?.(),
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        wakeUp?.();
      });
    },
    async stop(timeoutMs = 10_000) {
      isStopping = true;
      wakeUp?.();
      await loop;
      const pending = [...running.values()].map((r) => r.done);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([Promise.all(pending), timedOut]);
      clearTimeout(timer);
      // Whatever still runs is abandoned: its lease expires and another worker (or the next start) retries it.
      for (const r of running.values()) r.controller.abort(new Error('worker stopping'));
      clearInterval(heartbeat);
      for (const resolve of idleWaiters) resolve();
      idleWaiters = [];
    },
  };
}
