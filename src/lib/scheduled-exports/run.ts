import fs from 'node:fs';
import path from 'node:path';
import type { Db, Tx } from '../db/index.ts';
import type { TenantsRow, UsersRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { sendMail, type MailerConfig } from '../auth/mailer.ts';
import { completeDownload, createDownload } from '../downloads/downloads.ts';
import { writeListExportFile } from '../exports/export-job.ts';
import { CONTENT_TYPES } from '../exports/write-list-export.ts';
import { resolveDatasetDef } from '../analytics/datasets.ts';
import { getT, languageOf } from '../i18n/index.ts';
import { enqueueJob } from '../jobs/queue.ts';
import { PermanentJobError, type JobContext, type JobHandler } from '../jobs/worker.ts';
import type { TargetOptions } from '../net/outbound.ts';
import { notify } from '../notifications/notify.ts';
import { logger } from '../observability/log.ts';
import { consumeUsage } from '../plans/plans.ts';
import { latestRunAtOrBefore, nextRuns } from './cron.ts';
import {
  getRun,
  getScheduledExport,
  openTargets,
  resolveSource,
  subjectOf,
  toRun,
  RUN_COLUMNS,
  type ExportRun,
  type RunTargets,
  type ScheduledExport,
  type TargetName,
} from './model.ts';
import { deliverHttp, deliverSftp, failed, ok, type DeliveryOutcome } from './targets.ts';

/**
 * Running a scheduled export. The scheduler's tick (`scheduleDueExports`) inserts one run row per
 * export and cron time and enqueues its job with the dedupe key `export.scheduled:<id>:<iso time>`,
 * both unique, so a time runs once however many servers tick. The job (`exports.scheduled`):
 *  1. reads the owner's grants now: a disabled owner, or one who lost the right to export the
 *     source, fails the run with that reason;
 *  2. writes the file once with the manual export's producer (`writeListExportFile`, the same CSV and
 *     XLSX writers, formula cells neutralised) and keeps it with the run between attempts;
 *  3. delivers it to each target not yet delivered (the downloads list once; e-mail with the file
 *     attached; SFTP; HTTP), recording each target's outcome;
 *  4. a transient failure (network, 5xx, 429) is retried by the job queue's back-off, delivering only
 *     to the targets still missing; a permanent one, or the last attempt, fails the run and alerts
 *     the alert recipients (a notification, and e-mail when addresses are set).
 */

export const SCHEDULED_EXPORT_JOB = 'exports.scheduled';
export const MAX_ATTEMPTS = 5;
/** An e-mail carries the file as an attachment up to this size; bigger files fail the e-mail target. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export type RunnerOptions = TargetOptions & {
  dataDir: string;
  mail: MailerConfig;
  batchSize?: number;
};

const runFile = (dataDir: string, tenantId: string, runId: string, format: string) =>
  path.join(dataDir, 'scheduled-exports', tenantId.replace(/[^\w-]/g, '_'), `${runId}.${format}`);

async function updateRun(db: Db, tenantId: string, id: string, set: Record<string, unknown>): Promise<void> {
  const keys = Object.keys(set);
  const assignments = keys.map((k, i) => `${k} = $${i + 2}${k === 'targets' ? '::jsonb' : ''}`).join(', ');
  await db.tenant(tenantId, (tx) =>
    tx.query(`update scheduled_export_runs set ${assignments} where id = $1`, [
      id,
      ...keys.map((k) => (k === 'targets' ? JSON.stringify(set[k]) : set[k])),
    ]),
  );
}

function runName(e: ScheduledExport, run: ExportRun, format: string, fileBase: string): string {
  const stamp = run.scheduledFor.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
  return `${fileBase}-${stamp}.${format}`;
}

async function alertFailure(
  db: Db,
  tenantId: string,
  e: ScheduledExport,
  run: ExportRun,
  error: string,
  options: RunnerOptions,
): Promise<void> {
  const link = `/admin/notifications/scheduled-exports/update/${e.id}`;
  try {
    await db.tenant(tenantId, async (tx) => {
      const users = await tx.query<Pick<UsersRow, 'id' | 'language'>>(
        'select id, language from users where id = any($1::uuid[]) and is_active',
        [e.alertUserIds],
      );
      for (const u of users) {
        const t = await getT(languageOf(u.language));
        await notify(tx, tenantId, {
          userId: u.id,
          kind: 'escalation',
          title: t('schedexports:alert.title', { name: e.name, error }),
          link,
          dedupeKey: `scheduled-export-failed:${run.id}`,
        });
      }
    });
  } catch (alertError) {
    logger.warn('scheduled export alert not recorded', { export: e.id, error: String(alertError) });
  }
  if (e.alertEmails.length) {
    const t = await getT('en');
    const origin = process.env.PUBLIC_URL ?? '';
    try {
      await sendMail(options.mail, {
        to: e.alertEmails.join(', '),
        subject: t('schedexports:alert.subject', { name: e.name }),
        text: `${t('schedexports:alert.title', { name: e.name, error })}\n\n${origin}${link}\n`,
      });
    } catch (mailError) {
      logger.warn('scheduled export alert e-mail not sent', { export: e.id, error: String(mailError) });
    }
  }
}

/** The job's work; options let tests point it at their own data directory, mailer and private receivers. */
export function scheduledExportHandler(options: RunnerOptions): JobHandler {
  return async (ctx: JobContext) => {
    const runId = typeof ctx.payload.runId === 'string' ? ctx.payload.runId : '';
    const tenantId = ctx.tenantId;
    if (!tenantId || !runId) throw new PermanentJobError('malformed scheduled export payload');
    const { db } = ctx;
    const loaded = await db.tenant(tenantId, async (tx) => {
      const run = await getRun(tx, runId);
      if (!run) return null;
      return { run, e: await getScheduledExport(tx, run.exportId).catch(() => null) };
    });
    // The export was deleted with its runs, or the run already ended: nothing to do.
    if (!loaded?.e || loaded.run.status === 'succeeded' || loaded.run.status === 'failed') return { skipped: true };
    const { e } = loaded;
    let run = loaded.run;
    const isLastAttempt = ctx.job.attempts >= ctx.job.maxAttempts;
    await updateRun(db, tenantId, run.id, {
      status: 'running',
      started_at: run.startedAt ?? new Date(),
      attempts: ctx.job.attempts,
    });
    const finish = async (status: 'succeeded' | 'failed', targets: RunTargets, error: string | null) => {
      await updateRun(db, tenantId, run.id, {
        status,
        finished_at: new Date(),
        targets,
        error,
        file_path: null,
      });
      if (run.filePath) await fs.promises.rm(run.filePath, { force: true });
    };

    // 1–2: the owner's grants now, and the file (once).
    let content: Buffer;
    let fileName: string;
    try {
      const { owner, source } = await db.tenant(tenantId, async (tx) => {
        const owner = await subjectOf(tx, tenantId, e.ownerId);
        return { owner, source: await resolveSource(tx, owner, e.source) };
      });
      if (run.filePath && run.fileName && fs.existsSync(run.filePath)) {
        content = await fs.promises.readFile(run.filePath);
        fileName = run.fileName;
      } else {
        fileName = runName(e, run, e.format, source.fileBase);
        const target = runFile(options.dataDir, tenantId, run.id, e.format);
        await fs.promises.mkdir(path.dirname(target), { recursive: true });
        // The plan's export limit counts a scheduled run as one export, like a manual one (once per
        // run: a retry that writes the file again after a failure does not count it twice).
        if (ctx.job.attempts === 1) await db.tenant(tenantId, (tx) => consumeUsage(tx, tenantId, 'exports'));
        const result = await writeListExportFile(
          db,
          tenantId,
          { userId: owner.userId, list: source.list, query: source.query, format: e.format, language: owner.language },
          target,
          {
            resolveList: resolveDatasetDef,
            batchSize: options.batchSize,
            signal: ctx.signal,
            onProgress: (d, t) => ctx.progress(d, t),
          },
        );
        content = await fs.promises.readFile(target);
        await updateRun(db, tenantId, run.id, {
          rows: result.rows,
          bytes: content.length,
          file_name: fileName,
          file_path: target,
        });
        run = { ...run, filePath: target, fileName, rows: result.rows, bytes: BigInt(content.length) };
      }
    } catch (error) {
      const isPermanent = error instanceof PermanentJobError || (error instanceof AppError && error.status < 500);
      const message = error instanceof Error ? error.message : String(error);
      if (isPermanent || isLastAttempt) {
        await finish('failed', run.targets, message);
        await alertFailure(db, tenantId, e, run, message, options);
        throw new PermanentJobError(message, { cause: error });
      }
      await updateRun(db, tenantId, run.id, { status: 'retrying', error: message });
      throw error;
    }

    // 3: every target not delivered yet.
    const outcomes: RunTargets = { ...run.targets };
    const plain = openTargets(e.targets);
    const contentType = CONTENT_TYPES[e.format];
    const wanted: TargetName[] = [];
    if (e.targets.downloads) wanted.push('downloads');
    if (e.targets.email) wanted.push('email');
    if (plain.sftp) wanted.push('sftp');
    if (plain.http) wanted.push('http');
    for (const name of wanted) {
      if (outcomes[name]?.status === 'ok') continue;
      let outcome: DeliveryOutcome;
      try {
        if (name === 'downloads') {
          const download = await createDownload(db, {
            tenantId,
            userId: e.ownerId,
            kind: 'scheduled-export',
            fileName,
            contentType,
          });
          await completeDownload(db, { tenantId, id: download.id, dataDir: options.dataDir, content });
          await updateRun(db, tenantId, run.id, { download_id: download.id });
          outcome = ok(download.id);
        } else if (name === 'email') {
          if (content.length > MAX_ATTACHMENT_BYTES) {
            outcome = failed(`the file (${content.length} bytes) is larger than the 10 MB an e-mail may carry`, false);
          } else {
            const t = await getT('en');
            await sendMail(options.mail, {
              to: e.targets.email!.recipients.join(', '),
              subject: t('schedexports:mail.subject', { name: e.name }),
              text: t('schedexports:mail.body', { name: e.name, rows: run.rows ?? 0, file: fileName }),
              attachments: [{ filename: fileName, content, contentType }],
            });
            outcome = ok(`${e.targets.email!.recipients.length} recipient(s), file attached`);
          }
        } else if (name === 'sftp') {
          outcome = await deliverSftp(plain.sftp!, fileName, content, options);
        } else {
          outcome = await deliverHttp(plain.http!, { name: fileName, content, contentType }, options);
        }
      } catch (error) {
        outcome = failed(error instanceof Error ? error.message : String(error), true);
      }
      outcomes[name] = outcome;
      await updateRun(db, tenantId, run.id, { targets: outcomes });
    }

    // 4: the outcome of the run.
    const failures = wanted.filter((n) => outcomes[n]?.status !== 'ok');
    if (!failures.length) {
      await finish('succeeded', outcomes, null);
      return { rows: run.rows, targets: wanted };
    }
    const summary = failures.map((n) => `${n}: ${outcomes[n]?.error ?? 'failed'}`).join('; ');
    const canRetry = failures.some((n) => outcomes[n]?.isTransient) && !isLastAttempt;
    if (canRetry) {
      await updateRun(db, tenantId, run.id, { status: 'retrying', error: summary });
      throw new Error(summary);
    }
    await finish('failed', outcomes, summary);
    await alertFailure(db, tenantId, e, { ...run, targets: outcomes }, summary, options);
    throw new PermanentJobError(summary);
  };
}

/** Queues a run at once ("run now"): its own run row and job, whatever the schedule. */
export async function requestRunNow(tx: Tx, tenantId: string, exportId: string, userId: string): Promise<ExportRun> {
  const e = await getScheduledExport(tx, exportId);
  const [row] = await tx.query<Parameters<typeof toRun>[0]>(
    `insert into scheduled_export_runs (tenant_id, export_id, trigger, scheduled_for, requested_by)
     values ($1, $2, 'manual', now(), $3) returning ${RUN_COLUMNS}`,
    [tenantId, e.id, userId],
  );
  const run = toRun(row!);
  await enqueueJob(tx, {
    name: SCHEDULED_EXPORT_JOB,
    tenantId,
    payload: { runId: run.id },
    maxAttempts: MAX_ATTEMPTS,
    dedupeKey: `export.manual:${run.id}`,
    createdBy: userId,
  });
  return run;
}

/**
 * The scheduler's step: for every tenant, each enabled export whose next run time has come gets a
 * run for the latest cron time at or before `now` (a server that was down catches up with one run,
 * not one per missed time), and its next run time moves on. The run row and the job's dedupe key are
 * both unique per export and time, so ticking twice, or on two servers at once, enqueues once.
 */
export async function scheduleDueExports(db: Db, now: Date = new Date()): Promise<string[]> {
  const enqueued: string[] = [];
  const tenants = await db.system((tx) =>
    tx.query<Pick<TenantsRow, 'id' | 'time_zone'>>('select id, time_zone from tenants where is_active order by id'),
  );
  for (const tenant of tenants) {
    await db.tenant(tenant.id, async (tx) => {
      const due = await tx.query<{ id: string; cron: string; next_run_at: Date; owner_id: string }>(
        `select id, cron, next_run_at, owner_id from scheduled_exports
          where is_enabled and next_run_at <= $1 order by next_run_at limit 100 for update skip locked`,
        [now],
      );
      for (const e of due) {
        const zone = tenant.time_zone || 'UTC';
        const at = latestRunAtOrBefore(e.cron, zone, now) ?? e.next_run_at;
        const time = at < e.next_run_at ? e.next_run_at : at;
        const key = `export.scheduled:${e.id}:${time.toISOString()}`;
        const [run] = await tx.query<{ id: string }>(
          `insert into scheduled_export_runs (tenant_id, export_id, trigger, scheduled_for)
           values ($1, $2, 'schedule', $3)
           on conflict (tenant_id, export_id, scheduled_for) where trigger = 'schedule' do nothing returning id::text as id`,
          [tenant.id, e.id, time],
        );
        if (run) {
          const { isNew } = await enqueueJob(tx, {
            name: SCHEDULED_EXPORT_JOB,
            tenantId: tenant.id,
            payload: { runId: run.id },
            runAt: now,
            maxAttempts: MAX_ATTEMPTS,
            dedupeKey: key,
            createdBy: e.owner_id,
          });
          if (isNew) enqueued.push(key);
        }
        await tx.query('update scheduled_exports set last_scheduled_at = $2, next_run_at = $3 where id = $1', [
          e.id,
          time,
          nextRuns(e.cron, zone, 1, now)[0] ?? null,
        ]);
      }
    });
  }
  return enqueued;
}
