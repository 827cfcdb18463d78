import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { resolveDatasetDef } from '#lib/analytics/datasets.ts';
import { listDownloads, openDownload } from '#lib/downloads/downloads.ts';
import { LIST_EXPORT_JOB, listExportHandler, requestListExport } from '#lib/exports/export-job.ts';
import { startWorker } from '#lib/jobs/worker.ts';
import { schedulerTick } from '#lib/jobs/scheduler.ts';
import { registerSchedulerStep } from '#lib/jobs/scheduler.ts';
import { findList } from '#lib/lists/registry.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import { AppError } from '#lib/errors/app-error.ts';
import {
  createScheduledExport,
  exportJson,
  getRun,
  getScheduledExport,
  listRuns,
  type ExportInput,
  type SaveActor,
} from '#lib/scheduled-exports/model.ts';
import {
  requestRunNow,
  scheduleDueExports,
  scheduledExportHandler,
  SCHEDULED_EXPORT_JOB,
} from '#lib/scheduled-exports/run.ts';
import { subjectOf } from '#lib/scheduled-exports/model.ts';
import { probeSftp, sftpKeyCommand } from '#lib/scheduled-exports/commands.ts';
import { runCommand } from '#lib/http/command.ts';
import { startSftpStandIn, type SftpStandIn } from './sftp-stand-in.ts';
import { FLOW_LINKS, USAGE_MEASURES } from '#lib/data-flow/registry.ts';

process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';

const A = DEMO_TENANTS.demo;
const ZONE = 'Europe/Paris';

type Receiver = {
  url: string;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[];
  answer: { status: number; headers?: Record<string, string> };
  close(): Promise<void>;
};

/** An HTTP receiver on 127.0.0.1 that records every request and answers `answer`. */
async function startReceiver(status = 200): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const state = { status, headers: {} as Record<string, string> };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      res.writeHead(state.status, state.headers);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/upload`,
    requests,
    get answer() {
      return state;
    },
    set answer(v) {
      state.status = v.status;
      state.headers = v.headers ?? {};
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(testDbKinds())('scheduled exports on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let dataDir: string;
  let admin: SaveActor;
  let analystId: string;
  let noRightsId: string;
  const allowPrivate = { allowPrivate: true };

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scheduled-exports-test-'));
    // A short simulated history, so the lists have loans in every state.
    const saved = { ...process.env };
    Object.assign(process.env, { DEMO_HISTORY: '1', DEMO_HISTORY_CUSTOMERS: '4', DEMO_HISTORY_MONTHS: '2' });
    try {
      await seedDemo(db, { password: 'Scheduled-Exports-Test-1' });
    } finally {
      for (const key of ['DEMO_HISTORY', 'DEMO_HISTORY_CUSTOMERS', 'DEMO_HISTORY_MONTHS']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
    await db.owner((tx) => tx.query('update tenants set time_zone = $2 where id = $1', [A, ZONE]));
    await db.tenant(A, async (tx) => {
      const id = async (email: string) =>
        (await tx.query<{ id: string }>('select id::text as id from users where lower(email) = $1', [email]))[0]!.id;
      admin = { tenantId: A, userId: await id('admin@demo.test') };
      analystId = await id('analyst@demo.test');
      const [user] = await tx.query<{ id: string }>(
        `insert into users (tenant_id, email, display_name) values ($1, 'norights@demo.test', 'No Rights') returning id::text as id`,
        [A],
      );
      noRightsId = user!.id;
    });
  }, 600_000);

  afterAll(async () => {
    await drop?.();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const options = () => ({ dataDir, mail: { dataDir }, ...allowPrivate });

  function input(overrides: Partial<ExportInput> = {}): ExportInput {
    return {
      name: `export ${Math.random().toString(36).slice(2, 8)}`,
      source: { kind: 'list', list: 'loans' },
      format: 'csv',
      cron: '0 6 * * *',
      targets: { downloads: true },
      ...overrides,
    };
  }

  const create = (raw: ExportInput) => db.tenant(A, (tx) => createScheduledExport(tx, admin, raw, allowPrivate));

  /** Runs queued jobs until the run has ended (retries with a short back-off). */
  async function runUntilDone(runId: string) {
    const worker = startWorker(db, {
      handlers: new Map([
        [SCHEDULED_EXPORT_JOB, scheduledExportHandler(options())],
        [LIST_EXPORT_JOB, listExportHandler({ dataDir, resolveList: resolveDatasetDef })],
      ]),
      pollMs: 10,
      concurrency: 1,
      backoffBaseMs: 5,
    });
    try {
      for (let i = 0; i < 400; i++) {
        await worker.idle();
        const run = await db.tenant(A, (tx) => getRun(tx, runId));
        if (run && (run.status === 'succeeded' || run.status === 'failed')) return run;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('the run did not end');
    } finally {
      await worker.stop();
    }
  }

  it('evaluates the cron in the tenant time zone across the daylight-saving changes, one run per time', async () => {
    const e = await create(input({ cron: '30 2 * * *' }));
    // 2026-03-29: 02:30 does not exist in Paris (02:00 → 03:00); the run is at the first minute after
    // the gap, 03:00 CEST = 01:00 UTC. The day before, 02:30 CET = 01:30 UTC; the day after, 00:30 UTC.
    await db.tenant(A, (tx) =>
      tx.query('update scheduled_exports set next_run_at = $2 where id = $1', [e.id, new Date('2026-03-28T01:30:00Z')]),
    );
    const tick = (iso: string) => scheduleDueExports(db, new Date(iso));
    expect(await tick('2026-03-28T01:29:59Z')).toEqual([]);
    expect(await tick('2026-03-28T01:30:00Z')).toEqual([`export.scheduled:${e.id}:2026-03-28T01:30:00.000Z`]);
    expect((await db.tenant(A, (tx) => getScheduledExport(tx, e.id))).nextRunAt?.toISOString()).toBe(
      '2026-03-29T01:00:00.000Z',
    );
    expect(await tick('2026-03-29T00:59:00Z')).toEqual([]);
    expect(await tick('2026-03-29T01:00:30Z')).toEqual([`export.scheduled:${e.id}:2026-03-29T01:00:00.000Z`]);
    expect((await db.tenant(A, (tx) => getScheduledExport(tx, e.id))).nextRunAt?.toISOString()).toBe(
      '2026-03-30T00:30:00.000Z',
    );
    // Autumn: 2026-10-25 02:30 happens twice (CEST then CET); it runs once, at the first (00:30 UTC).
    await db.tenant(A, (tx) =>
      tx.query('update scheduled_exports set next_run_at = $2 where id = $1', [e.id, new Date('2026-10-25T00:30:00Z')]),
    );
    expect(await tick('2026-10-25T00:31:00Z')).toEqual([`export.scheduled:${e.id}:2026-10-25T00:30:00.000Z`]);
    expect(await tick('2026-10-25T01:31:00Z')).toEqual([]);
    expect((await db.tenant(A, (tx) => getScheduledExport(tx, e.id))).nextRunAt?.toISOString()).toBe(
      '2026-10-26T01:30:00.000Z',
    );
    const runs = await db.tenant(A, (tx) => listRuns(tx, e.id));
    expect(runs.map((r) => r.scheduledFor.toISOString()).sort()).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-10-25T00:30:00.000Z',
    ]);
    await db.tenant(A, (tx) => tx.query('update scheduled_exports set is_enabled = false where id = $1', [e.id]));
  });

  it('enqueues a due run exactly once however often and by however many servers the scheduler ticks', async () => {
    const e = await create(input({ cron: '0 * * * *' }));
    await db.tenant(A, (tx) =>
      tx.query('update scheduled_exports set next_run_at = $2 where id = $1', [e.id, new Date('2026-04-01T10:00:00Z')]),
    );
    const now = new Date('2026-04-01T10:00:05Z');
    // Through the platform's tick (the step registered as the runtime does), twice, then twice at once.
    registerSchedulerStep('scheduled-exports', scheduleDueExports);
    const key = `export.scheduled:${e.id}:2026-04-01T10:00:00.000Z`;
    expect((await schedulerTick(db, now)).enqueued).toContain(key);
    expect((await schedulerTick(db, now)).enqueued).not.toContain(key);
    await db.tenant(A, (tx) =>
      tx.query('update scheduled_exports set next_run_at = $2 where id = $1', [e.id, new Date('2026-04-01T10:00:00Z')]),
    );
    const both = await Promise.all([scheduleDueExports(db, now), scheduleDueExports(db, now)]);
    expect(both.flat()).toEqual([]);
    const jobs = await db.system((tx) =>
      tx.query<{ n: number }>('select count(*)::int as n from jobs where dedupe_key = $1', [key]),
    );
    expect(jobs[0]!.n).toBe(1);
    const runs = await db.tenant(A, (tx) => listRuns(tx, e.id));
    expect(runs).toHaveLength(1);
    await db.tenant(A, (tx) => tx.query('update scheduled_exports set is_enabled = false where id = $1', [e.id]));
    // The queued run is done by the worker (its file lands in the downloads list).
    expect((await runUntilDone(runs[0]!.id)).status).toBe('succeeded');
  });

  it('a run of the loans list writes the same rows as the manual export and lands in the downloads list', async () => {
    const e = await create(input({ name: 'Loans daily' }));
    const run = await db.tenant(A, (tx) => requestRunNow(tx, A, e.id, admin.userId));
    const done = await runUntilDone(run.id);
    expect(done.status).toBe('succeeded');
    expect(done.targets.downloads?.status).toBe('ok');
    expect(done.rows).toBeGreaterThan(0);

    const date = await db.tenant(A, (tx) => businessDate(tx, A));
    const manual = await requestListExport(db, {
      tenantId: A,
      userId: admin.userId,
      def: findList('loans')!.def,
      query: '',
      format: 'csv',
      language: 'en',
      fileBaseName: 'loans',
      businessDate: date,
    });
    const worker = startWorker(db, {
      handlers: new Map([[LIST_EXPORT_JOB, listExportHandler({ dataDir, resolveList: resolveDatasetDef })]]),
      pollMs: 10,
    });
    await worker.idle();
    await worker.stop();
    const manualFile = await openDownload(db, { tenantId: A, userId: admin.userId, id: manual.id, dataDir });
    const scheduledFile = await openDownload(db, { tenantId: A, userId: admin.userId, id: done.downloadId!, dataDir });
    expect(scheduledFile.download.kind).toBe('scheduled-export');
    expect(scheduledFile.download.fileName).toMatch(/^loans-\d{8}-\d{6}\.csv$/);
    const manualText = fs.readFileSync(manualFile.path, 'utf8');
    const scheduledText = fs.readFileSync(scheduledFile.path, 'utf8');
    expect(scheduledText.split('\r\n').length - 2).toBe(done.rows);
    expect(scheduledText).toBe(manualText);
    expect(Number(done.bytes)).toBe(Buffer.byteLength(scheduledText));
    const mine = await listDownloads(db, { tenantId: A, userId: admin.userId });
    expect(mine.map((d) => d.id)).toContain(done.downloadId);
    // The kept file is removed once the run has ended.
    expect(done.filePath).toBeNull();
  });

  it('delivers the file to an HTTP receiver with the sealed header, and to an SFTP server with host-key pinning', async () => {
    const receiver = await startReceiver(201);
    const sftpServer: SftpStandIn = await startSftpStandIn({ username: 'drop', password: 'sftp-Pass-1' });
    try {
      const e = await create(
        input({
          name: 'Loans everywhere',
          format: 'xlsx',
          targets: {
            downloads: true,
            email: { recipients: ['finance@example.com'] },
            http: { url: receiver.url, method: 'PUT', headerName: 'Authorization', headerValue: 'Bearer t0ken' },
            sftp: {
              host: '127.0.0.1',
              port: sftpServer.port,
              username: 'drop',
              password: 'sftp-Pass-1',
              directory: '/in',
            },
          },
        }),
      );
      // Secrets are sealed at rest and never answered.
      const stored = await db.tenant(A, (tx) =>
        tx.query<{ targets: string }>('select targets::text as targets from scheduled_exports where id = $1', [e.id]),
      );
      expect(stored[0]!.targets).not.toContain('Bearer t0ken');
      expect(stored[0]!.targets).not.toContain('sftp-Pass-1');
      const json = JSON.stringify(exportJson(e, []));
      expect(json).not.toContain('t0ken');
      expect(json).not.toContain('enc:v1');

      // "Test connection" pins the key the server shows (the page's path: probe, then the command);
      // a run then accepts only that key.
      const { fingerprint } = await probeSftp(db, A, e.id, allowPrivate);
      expect(fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
      const subject = await db.tenant(A, (tx) => subjectOf(tx, A, admin.userId));
      await runCommand({ db, actor: { ...admin, isAdmin: true }, permissionSubject: subject }, sftpKeyCommand, () => ({
        id: e.id,
        fingerprint,
      }));
      expect((await db.tenant(A, (tx) => getScheduledExport(tx, e.id))).targets.sftp?.hostKeySha256).toBe(fingerprint);

      const run = await db.tenant(A, (tx) => requestRunNow(tx, A, e.id, admin.userId));
      const done = await runUntilDone(run.id);
      expect(done.status, JSON.stringify(done.targets)).toBe('succeeded');
      const file = await openDownload(db, { tenantId: A, userId: admin.userId, id: done.downloadId!, dataDir });
      const content = fs.readFileSync(file.path);
      expect(content.subarray(0, 2).toString()).toBe('PK');
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]!.method).toBe('PUT');
      expect(receiver.requests[0]!.headers.authorization).toBe('Bearer t0ken');
      expect(receiver.requests[0]!.headers['content-type']).toContain('spreadsheetml');
      expect(receiver.requests[0]!.body.equals(content)).toBe(true);
      // The e-mail carries the file as an attachment (written to the outbox without SMTP_URL).
      expect(done.targets.email?.status).toBe('ok');
      const mails = fs
        .readdirSync(path.join(dataDir, 'outbox'))
        .map((f) => fs.readFileSync(path.join(dataDir, 'outbox', f), 'utf8'))
        .filter((m) => m.includes('finance@example.com'));
      expect(mails).toHaveLength(1);
      expect(mails[0]).toContain(`filename=${done.fileName}`);
      expect(mails[0]).toContain(content.subarray(0, 30).toString('base64').slice(0, 20));
      const remote = `/in/${done.fileName}`;
      expect([...sftpServer.files.keys()]).toEqual([remote]);
      expect(sftpServer.files.get(remote)!.equals(content)).toBe(true);

      // Another key than the pinned one is refused (a permanent failure, no retry).
      await db.tenant(A, (tx) =>
        tx.query(
          `update scheduled_exports set targets = jsonb_set(targets, '{sftp,hostKeySha256}', '"SHA256:someoneelse"') where id = $1`,
          [e.id],
        ),
      );
      const again = await runUntilDone((await db.tenant(A, (tx) => requestRunNow(tx, A, e.id, admin.userId))).id);
      expect(again.status).toBe('failed');
      expect(again.attempts).toBe(1);
      expect(again.targets.sftp?.error).toContain('host key changed');
      expect(again.targets.http?.status).toBe('ok');
    } finally {
      await receiver.close();
      await sftpServer.close();
    }
  });

  it('retries a failing target without a second file, then fails the run and alerts the recipients', async () => {
    const receiver = await startReceiver(503);
    try {
      const e = await create(
        input({
          name: 'Failing target',
          targets: {
            downloads: true,
            http: { url: receiver.url, method: 'POST', headerName: null, headerValue: null },
          },
          alertUserIds: [analystId],
          alertEmails: ['ops@example.com'],
        }),
      );
      const run = await db.tenant(A, (tx) => requestRunNow(tx, A, e.id, admin.userId));
      const done = await runUntilDone(run.id);
      expect(done.status).toBe('failed');
      expect(done.attempts).toBe(5);
      expect(receiver.requests).toHaveLength(5);
      expect(done.targets.downloads?.status).toBe('ok');
      expect(done.targets.http).toMatchObject({ status: 'failed', isTransient: true });
      expect(done.error).toContain('http: the target answered 503');
      // One file on the downloads list for the run, however many attempts.
      const files = (await listDownloads(db, { tenantId: A, userId: admin.userId })).filter(
        (d) => d.fileName.startsWith('loans-') && d.kind === 'scheduled-export' && d.id === done.downloadId,
      );
      expect(files).toHaveLength(1);
      const scheduledCount = await db.tenant(A, (tx) =>
        tx.query<{ n: number }>(
          `select count(*)::int as n from downloads where kind = 'scheduled-export' and file_name = $1 and created_at >= $2`,
          [done.fileName, done.createdAt],
        ),
      );
      expect(scheduledCount[0]!.n).toBe(1);
      const notes = await db.tenant(A, (tx) =>
        tx.query<{ title: string; link: string }>('select title, link from notifications where user_id = $1', [
          analystId,
        ]),
      );
      expect(notes).toHaveLength(1);
      expect(notes[0]!.title).toContain('Failing target');
      expect(notes[0]!.link).toBe(`/admin/notifications/scheduled-exports/update/${e.id}`);
      const outbox = fs
        .readdirSync(path.join(dataDir, 'outbox'))
        .map((f) => fs.readFileSync(path.join(dataDir, 'outbox', f), 'utf8'));
      expect(outbox.some((m) => m.includes('ops@example.com') && m.includes('Failing target'))).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('does not follow a redirect from an HTTP target: the run fails at once', async () => {
    const elsewhere = await startReceiver(200);
    const receiver = await startReceiver(302);
    receiver.answer = { status: 302, headers: { location: elsewhere.url } };
    try {
      const e = await create(
        input({
          name: 'Redirected',
          targets: {
            downloads: false,
            http: { url: receiver.url, method: 'PUT', headerName: null, headerValue: null },
          },
        }),
      );
      const done = await runUntilDone((await db.tenant(A, (tx) => requestRunNow(tx, A, e.id, admin.userId))).id);
      expect(done.status).toBe('failed');
      expect(done.attempts).toBe(1);
      expect(done.targets.http?.error).toContain('redirect');
      expect(receiver.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await receiver.close();
      await elsewhere.close();
    }
  });

  it('runs as the owner: an owner who lost the permission fails the run with the reason', async () => {
    const e = await create(input({ name: 'Owner check' }));
    await db.tenant(A, (tx) =>
      tx.query('update scheduled_exports set owner_id = $2 where id = $1', [e.id, noRightsId]),
    );
    const done = await runUntilDone((await db.tenant(A, (tx) => requestRunNow(tx, A, e.id, admin.userId))).id);
    expect(done.status).toBe('failed');
    expect(done.error).toBe('No Rights may not export the loans list.');
    expect(done.downloadId).toBeNull();
  });

  it('refuses a schedule more frequent than every 15 minutes, and names the field', async () => {
    for (const cron of ['*/5 * * * *', '0,10 * * * *', '* * * * *', '0 6 * * * *', 'banana']) {
      const error = await create(input({ cron })).catch((e: unknown) => e);
      expect(error, cron).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(400);
      expect((error as AppError).field).toBe('cron');
    }
    const ok = await create(input({ cron: '*/15 * * * *' }));
    expect(ok.cron).toBe('*/15 * * * *');
  });

  it('shows its runs on the data-flow link and in the usage measures', async () => {
    const runs = await db.tenant(A, (tx) =>
      tx.query<{ month: string; n: number; rows: number }>(
        `select to_char(started_at at time zone 'Europe/Paris', 'YYYY-MM') as month, count(*)::int as n,
                coalesce(sum(rows), 0)::int as rows
           from scheduled_export_runs where started_at is not null group by 1`,
      ),
    );
    expect(runs.length).toBeGreaterThan(0);
    const month = runs[0]!.month;
    const measure = (id: string) => USAGE_MEASURES.find((m) => m.id === id)!;
    const counted = await db.tenant(A, (tx) => measure('scheduled-export-runs').read(tx, [month, '2000-01']));
    expect(counted).toEqual({ [month]: runs[0]!.n });
    const rows = await db.tenant(A, (tx) => measure('scheduled-export-rows').read(tx, [month]));
    expect(rows[month]).toBe(runs[0]!.rows);
    const link = FLOW_LINKS.find((l) => l.id === 'scheduled-exports')!;
    expect(link).toMatchObject({ from: 'product', to: 'exports' });
    const state = await db.tenant(A, (tx) => link.read(tx, new Date(0)));
    expect(state.volume).toBeGreaterThan(0);
    // The last run to end (the owner check above) failed.
    expect(state.status).toBe('error');
    expect(state.detail).toMatch(/failed/);
  });
});
