import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { runCommand } from '#lib/http/command.ts';
import { getJob } from '#lib/jobs/queue.ts';
import { schedulerTick } from '#lib/jobs/scheduler.ts';
import type { Job } from '#lib/jobs/queue.ts';
import {
  DATA_QUALITY_JOB,
  executeRun,
  getRun,
  runFailures,
  runResults,
  startRunCommand,
} from '#lib/data-quality/run.ts';
import { RULES } from '#lib/data-quality/rules.ts';
import { readAvailability, readFlow, readUsage } from '#lib/data-flow/read.ts';
import { ApiCallCounter, addApiCalls, localMonth } from '#lib/data-flow/api-calls.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

/** Runs the queued job of a run the way the worker does (claim aside). */
async function runJob(db: Db, jobId: bigint | string) {
  const job = (await getJob(db, jobId))! as Job;
  return executeRun({
    db,
    job: { ...job, attempts: 1 },
    tenantId: job.tenantId,
    payload: job.payload,
    progress: async () => {},
    signal: new AbortController().signal,
  });
}

describe.each(testDbKinds())('data pages on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let driftLoan: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    // The test tampers with a loan's installments on purpose: the ledger check on drop would fail.
    ({ db, drop } = await createTestDb(kind, { checkLedgerOnDrop: false }));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    await db.tenant(f.tenantId, async (tx) => {
      await tx.query(`update customers set email = 'ada@example.com' where id = $1`, [f.customerId]);
      const mk = async (key: string, input: Parameters<typeof createCustomer>[2]) => {
        ids[key] = (await createCustomer(tx, f.maker, input)).id;
      };
      // Two spellings of one national id (the unique index is on the raw text; the match key is normalised).
      await mk('dupA', {
        firstName: 'Dup',
        lastName: 'One',
        nationalId: 'AB-123',
        phone: '+33100000001',
        email: 'dup1@example.com',
      });
      await mk('dupB', {
        firstName: 'Dup',
        lastName: 'Two',
        nationalId: 'ab 123',
        phone: '+33100000002',
        email: 'dup2@example.com',
      });
      await mk('badMail', {
        firstName: 'Bad',
        lastName: 'Mail',
        nationalId: 'CD-456',
        phone: '+33100000003',
        email: 'x@y',
      });
    });
    ({ loanId: driftLoan } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 }));
    await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 6 });
    await db.owner((tx) =>
      tx.query(`update loan_installments set principal_paid = principal_paid + 1 where loan_id = $1 and number = 2`, [
        driftLoan,
      ]),
    );
  });
  afterAll(async () => drop());
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);

  test('a run finds exactly the seeded defects, scores each rule and lists the failing rows', async () => {
    const call = { db, actor: f.admin, permissionSubject: { isAdmin: true, authorities: [] } };
    const { run, isNew } = await runCommand(call, startRunCommand, () => ({}));
    expect(isNew).toBe(true);
    // A second click while it is queued answers the same run.
    const again = await runCommand(call, startRunCommand, () => ({}));
    expect(again).toMatchObject({ isNew: false, run: { id: run.id } });
    // Without the permission: 403.
    await expect(
      runCommand(
        { db, actor: f.maker, permissionSubject: { isAdmin: false, authorities: ['loans.loans.view'] } },
        startRunCommand,
        () => ({}),
      ),
    ).rejects.toMatchObject({ status: 403 });

    const outcome = await runJob(db, run.job_id!);
    const done = await t((tx) => getRun(tx, run.id));
    expect(done).toMatchObject({ status: 'done', rules_done: RULES.length, trigger: 'manual' });
    expect(outcome.score).toBe(done.score);

    const results = await t((tx) => runResults(tx, run.id));
    expect(results.map((r) => r.rule)).toEqual(RULES.map((r) => r.id));
    const failing = Object.fromEntries(results.filter((r) => r.failing > 0).map((r) => [r.rule, r]));
    // 4 customers, 2 loans: exactly these rules fail, with these scores.
    expect(Object.keys(failing).sort()).toEqual(
      ['customers.duplicate_national_id', 'customers.invalid_email', 'loans.ledger_drift'].sort(),
    );
    expect(failing['customers.duplicate_national_id']).toMatchObject({ checked: 4, failing: 2, score: 50 });
    expect(failing['customers.invalid_email']).toMatchObject({ checked: 4, failing: 1, score: 75 });
    expect(failing['loans.ledger_drift']).toMatchObject({ checked: 2, failing: 1, score: 50 });
    for (const r of results.filter((x) => x.failing === 0)) expect(r.score).toBe(100);
    // Overall: the mean of the rule scores.
    const mean = results.reduce((a, r) => a + r.score, 0) / results.length;
    expect(done.score).toBeCloseTo(mean, 2);

    const dup = await t((tx) => runFailures(tx, run.id, 'customers.duplicate_national_id'));
    expect(dup.rows.map((r) => r.row_id).sort()).toEqual([ids.dupA, ids.dupB].sort());
    expect(dup.rows.find((r) => r.row_id === ids.dupA)?.href).toBe(`/admin/customer/profile/${ids.dupA}`);
    const mail = await t((tx) => runFailures(tx, run.id, 'customers.invalid_email'));
    expect(mail.rows).toEqual([
      expect.objectContaining({ row_id: ids.badMail, detail: 'x@y', href: `/admin/customer/profile/${ids.badMail}` }),
    ]);
    const drift = await t((tx) => runFailures(tx, run.id, 'loans.ledger_drift'));
    expect(drift.rows).toEqual([
      expect.objectContaining({
        row_id: driftLoan,
        href: `/admin/customer/profile/${f.customerId}/loans/${driftLoan}`,
        detail: expect.stringContaining('LOAN_PORTFOLIO'),
      }),
    ]);
    await expect(t((tx) => runFailures(tx, run.id, 'nope'))).rejects.toMatchObject({ status: 404 });
    await expect(t((tx) => getRun(tx, '00000000-0000-0000-0000-000000000000'))).rejects.toMatchObject({ status: 404 });
  });

  test('the nightly run is enqueued once per tenant and local day, and runs as a nightly run', async () => {
    const now = new Date('2026-03-10T12:00:00Z');
    await Promise.all([schedulerTick(db, now), schedulerTick(db, now)]);
    await schedulerTick(db, new Date('2026-03-10T20:00:00Z'));
    const jobs = () =>
      db.system((tx) =>
        tx.query<{ id: string; dedupe_key: string }>(
          `select id::text as id, dedupe_key from jobs where name = $1 and tenant_id = $2 and dedupe_key is not null order by dedupe_key`,
          [DATA_QUALITY_JOB, f.tenantId],
        ),
      );
    expect((await jobs()).map((j) => j.dedupe_key)).toEqual([`${DATA_QUALITY_JOB}:nightly:${f.tenantId}:2026-03-10`]);
    await schedulerTick(db, new Date('2026-03-11T01:00:00Z'));
    const both = await jobs();
    expect(both.map((j) => j.dedupe_key)).toEqual([
      `${DATA_QUALITY_JOB}:nightly:${f.tenantId}:2026-03-10`,
      `${DATA_QUALITY_JOB}:nightly:${f.tenantId}:2026-03-11`,
    ]);
    const { runId } = await runJob(db, both[0].id);
    expect(await t((tx) => getRun(tx, runId))).toMatchObject({ trigger: 'nightly', status: 'done' });
  });

  test('availability: period, freshness, items and the gap months of each source', async () => {
    await t(async (tx) => {
      const file = async (kind: string, at: string) => {
        const [row] = await tx.query<{ id: string }>(
          `insert into customer_files (tenant_id, customer_id, kind, file_name, content_type, size_bytes, sha256, storage_key, uploaded_by, created_at)
           values ($1, $2, $3, 'f.pdf', 'application/pdf', 1000, 'x', 'k', 'test', $4) returning id`,
          [f.tenantId, f.customerId, kind, at],
        );
        return row.id;
      };
      // Bureau files in January, February and May 2025: March and April are a gap.
      for (const at of ['2025-01-10T10:00:00Z', '2025-02-10T10:00:00Z', '2025-05-20T10:00:00Z'])
        await file('bureau_pdf', at);
      // Statements covering Jan–Feb and Apr 2025: March is a gap.
      const statement = await file('bank_statement', '2025-05-01T10:00:00Z');
      for (const [first, last] of [
        ['2025-01-01', '2025-02-28'],
        ['2025-04-01', '2025-04-30'],
      ])
        await tx.query(
          `insert into bank_statement_imports (tenant_id, customer_id, file_id, currency, row_count, first_date, last_date, imported_by)
           values ($1, $2, $3, 'USD', 3, $4, $5, 'test')`,
          [f.tenantId, f.customerId, statement, first, last],
        );
    });
    const sources = await t((tx) => readAvailability(tx, new Date('2025-06-01T00:00:00Z')));
    const by = Object.fromEntries(sources.map((s) => [s.id, s]));
    expect(by.bureau_files.coverage).toMatchObject({
      from: '2025-01-10',
      to: '2025-05-20',
      items: 3,
      gaps: [{ from: '2025-03-01', to: '2025-04-30' }],
    });
    expect(by.bureau_files.isStale).toBe(false);
    expect(by.bank_statements.coverage).toMatchObject({
      from: '2025-01-01',
      to: '2025-04-30',
      items: 2,
      gaps: [{ from: '2025-03-01', to: '2025-03-31' }],
    });
    expect(by.form_submissions.coverage).toMatchObject({ items: 0, from: null, gaps: [] });
    // Loan activity: the fixture's disbursements, on its business date.
    expect(by.loan_activity.coverage).toMatchObject({ from: '2026-01-15', to: '2026-01-15', gaps: [] });
    expect(by.loan_activity.error).toBeNull();
    // Stale once past its threshold.
    const later = await t((tx) => readAvailability(tx, new Date('2025-09-01T00:00:00Z')));
    expect(later.find((s) => s.id === 'bureau_files')?.isStale).toBe(true);
  });

  test('usage by month in the tenant zone; the API-call counter counts and flushes', async () => {
    await db.owner((tx) => tx.query(`update tenants set time_zone = 'Europe/Paris' where id = $1`, [f.tenantId]));
    // 23:30 UTC on 31 March is 1 April in Paris.
    expect(localMonth(new Date('2026-03-31T23:30:00Z'), 'Europe/Paris')).toBe('2026-04-01');
    expect(localMonth(new Date('2026-03-31T23:30:00Z'), 'Nope/Zone')).toBe('2026-03-01');
    const counter = new ApiCallCounter(async () => db, { flushMs: 60_000 });
    for (let i = 0; i < 5; i++) counter.count(f.tenantId, 'Europe/Paris', new Date('2026-03-15T10:00:00Z'));
    counter.count(f.tenantId, 'Europe/Paris', new Date('2026-03-31T23:30:00Z'));
    expect(counter.waiting).toBe(6);
    expect(await t((tx) => tx.query('select * from api_call_counts'))).toEqual([]);
    await counter.flush();
    expect(counter.waiting).toBe(0);
    counter.count(f.tenantId, 'Europe/Paris', new Date('2026-03-16T10:00:00Z'));
    await counter.flush();
    await t((tx) => addApiCalls(tx, f.tenantId, new Map([['2026-02-01', 10]])));
    // Known rows: customers created in two months, downloads (exports) and events.
    await t(async (tx) => {
      await tx.query(`update customers set created_at = '2026-02-10T12:00:00Z' where id = $1`, [ids.dupA]);
      await tx.query(`update customers set created_at = '2026-03-31T23:30:00Z' where id = $1`, [ids.dupB]);
      await tx.query(`update customers set created_at = '2025-01-01T00:00:00Z' where id not in ($1, $2)`, [
        ids.dupA,
        ids.dupB,
      ]);
      await tx.query(`update loans set created_at = '2026-03-01T12:00:00Z'`);
      const users = await tx.query<{ id: string }>(
        `insert into users (tenant_id, email, display_name) values ($1, 'u@example.com', 'U') returning id`,
        [f.tenantId],
      );
      await tx.query(
        `insert into downloads (tenant_id, user_id, kind, file_name, created_at, expires_at)
           values ($1, $2, 'loans-export', 'a.csv', '2026-03-05T10:00:00Z', now() + interval '1 day')`,
        [f.tenantId, users[0].id],
      );
    });
    const usage = await t((tx) => readUsage(tx, f.tenantId, new Date('2026-04-10T10:00:00Z')));
    expect(usage.timeZone).toBe('Europe/Paris');
    expect(usage.months).toHaveLength(12);
    expect(usage.months.at(-1)).toBe('2026-04');
    expect(usage.months[0]).toBe('2025-05');
    const m = Object.fromEntries(usage.measures.map((x) => [x.id, x]));
    expect(m.api_calls.values).toMatchObject({ '2026-02': 10, '2026-03': 6, '2026-04': 1, '2026-01': 0 });
    // Customers existing at each month's end: 2 before February, +1 in February, +1 in April (Paris).
    expect(m['rows.customers'].values).toMatchObject({ '2026-01': 2, '2026-02': 3, '2026-03': 3, '2026-04': 4 });
    expect(m['rows.loans'].values).toMatchObject({ '2026-02': 0, '2026-03': 2, '2026-04': 2 });
    expect(m.exports.values).toMatchObject({ '2026-03': 1, '2026-04': 0 });
    expect(m.exports.limit).toBeNull();
    expect(m.events.values['2026-04']).toBe(0);
    for (const x of usage.measures) expect(x.error, x.id).toBeNull();
  });

  test('a rule counts every failing row but keeps the first 1,000 (by id) for the drill-down', async () => {
    await t((tx) =>
      tx.query(
        `insert into customers (tenant_id, first_name, last_name, phone)
         select $1, 'No', 'Id ' || n, '+3360000' || lpad(n::text, 4, '0') from generate_series(1, 1005) n`,
        [f.tenantId],
      ),
    );
    const call = { db, actor: f.admin, permissionSubject: { isAdmin: true, authorities: [] } };
    const { run } = await runCommand(call, startRunCommand, () => ({}));
    await runJob(db, run.job_id!);
    const missing = (await t((tx) => runResults(tx, run.id))).find((r) => r.rule === 'customers.missing_national_id')!;
    const total = await t((tx) => tx.query<{ n: number }>('select count(*)::int as n from customers'));
    expect(missing).toMatchObject({ checked: total[0].n, failing: 1005 });
    expect(missing.score).toBeCloseTo(((total[0].n - 1005) / total[0].n) * 100, 2);
    const page = await t((tx) => runFailures(tx, run.id, 'customers.missing_national_id', { limit: 1000 }));
    expect(page.kept).toBe(1000);
    expect(page.rows).toHaveLength(1000);
    const ids = page.rows.map((r) => r.row_id);
    expect(ids).toEqual([...ids].sort());
  });

  test('the data flow: every core link with its status and volumes', async () => {
    const flow = await t((tx) => readFlow(tx, new Date()));
    const ids = flow.links.map((l) => l.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'forms.submissions',
        'staff.commands',
        'bank_statements.imports',
        'bureau.files',
        'product.downloads',
        'product.messages',
      ]),
    );
    const staff = flow.links.find((l) => l.id === 'staff.commands')!;
    // The fixture's commands (customers, applications, approvals, disbursements) were audited just now.
    expect(staff.status).toBe('ok');
    expect(staff.day).toBeGreaterThan(0);
    expect(staff.month).toBeGreaterThanOrEqual(staff.day);
    expect(flow.links.find((l) => l.id === 'product.messages')).toMatchObject({ status: 'idle', day: 0 });
    for (const l of flow.links) expect(l.status, `${l.id}: ${l.detail}`).not.toBe('error');
  });
});
