import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db, type Tx } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { closeUntil, runDailyClose } from '#lib/close/daily-close.ts';
import { addDays } from '#lib/schedule/dates.ts';
import { POST as closeOfBusiness } from '../../src/pages/v1/close-of-business.ts';

/**
 * The daily close's collection step: cases follow the engine's days past due across the default
 * buckets, promises settle (kept / broken / partly paid = broken), workflow steps run once per loan and
 * episode at their offset (not before, not when disabled, not again on a re-run), bullet loans get
 * their maturity reminders 7 and 1 days before, and POST /v1/close-of-business checks its input.
 */

const T = 'tcc-t1';
const START = '2026-01-01';
const COLLECTOR = '00000000-0000-0000-0000-0000000000c1';

async function insertLoan(
  tx: Tx,
  input: {
    productId: string;
    customerId: string;
    accountNo: string;
    installments: { due: string; principal: bigint }[];
  },
): Promise<string> {
  const principal = input.installments.reduce((s, i) => s + i.principal, 0n);
  const [{ id }] = await tx.query<{ id: string }>(
    `insert into loans (tenant_id, account_no, customer_id, product_id, status, currency, principal, number_of_repayments,
       annual_interest_rate, terms, submitted_on, approved_on, disbursed_on)
     values ($1, $2, $3, $4, 'ACTIVE', 'USD', $5, $6, 0, '{}'::jsonb, $7, $7, $7) returning id`,
    [T, input.accountNo, input.customerId, input.productId, principal, input.installments.length, START],
  );
  let from = START;
  for (const [n, i] of input.installments.entries()) {
    await tx.query(
      `insert into loan_installments (tenant_id, loan_id, number, from_date, due_date, principal_due, interest_due)
       values ($1, $2, $3, $4, $5, $6, 0)`,
      [T, id, n + 1, from, i.due, i.principal],
    );
    from = i.due;
  }
  return id;
}

/** A repayment as the engine would record it (transaction row, installments paid in order). */
async function repay(tx: Tx, loanId: string, date: string, amount: bigint): Promise<void> {
  await tx.query(
    `insert into loan_transactions (tenant_id, loan_id, type, transaction_date, currency, amount, principal_portion)
     values ($1, $2, 'REPAYMENT', $3, 'USD', $4, $4)`,
    [T, loanId, date, amount],
  );
  let left = amount;
  for (const i of await tx.query<{ number: number; owed: string }>(
    `select number, (principal_due - principal_paid)::text as owed from loan_installments
      where loan_id = $1 and obligations_met_on is null order by number`,
    [loanId],
  )) {
    if (left <= 0n) break;
    const pay = BigInt(i.owed) < left ? BigInt(i.owed) : left;
    left -= pay;
    await tx.query(
      `update loan_installments set principal_paid = principal_paid + $3,
              obligations_met_on = case when principal_paid + $3 >= principal_due then $4::date else null end
        where loan_id = $1 and number = $2`,
      [loanId, i.number, pay, date],
    );
  }
}

const admin = (over: Partial<Principal> = {}): Principal => ({
  tenantId: T,
  userId: '00000000-0000-0000-0000-0000000000a1',
  displayName: 'Admin',
  email: 'admin@test',
  isAdmin: true,
  authorities: [],
  dataPermissions: [],
  language: 'en',
  via: 'session',
  sessionId: null,
  passwordChangeRequired: false,
  sessionTimeout: 3600,
  idleTimeout: 900,
  ...over,
});

async function callClose(
  principal: Principal,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const request = new Request('http://localhost/v1/close-of-business', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const response = await closeOfBusiness({
    request,
    url: new URL(request.url),
    params: {},
    locals: { principal, requestId: 'test', language: 'en' },
    clientAddress: '127.0.0.1',
  } as never);
  return { status: response.status, body: JSON.parse(await response.text()) };
}

describe.each(testDbKinds())('collection step of the daily close on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const ids = {
    walk: '',
    kept: '',
    broken: '',
    partial: '',
    bullet: '',
    wf1: '',
    wf2: '',
    wf3: '',
    b1: '',
    b2: '',
    b3: '',
  };
  const q = <R>(sql: string, params: unknown[] = []) => db.tenant(T, (tx) => tx.query<R>(sql, params));
  const today = async () =>
    (await q<{ d: string }>(`select to_char(business_date, 'YYYY-MM-DD') as d from tenants where id = $1`, [T]))[0].d;
  const closeTo = (date: string) => closeUntil(db, T, date, { originate: false });

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind, { checkLedgerOnDrop: false }));
    setDb(db);
    await db.owner((tx) =>
      tx.query(`insert into tenants (id, slug, name, currency, business_date) values ($1, 'tcc', 'TCC', 'USD', $2)`, [
        T,
        START,
      ]),
    );
    await db.tenant(T, async (tx) => {
      const [{ id: productId }] = await tx.query<{ id: string }>(
        `insert into loan_products (tenant_id, code, name, currency, digits_after_decimal, min_principal, max_principal, min_repayments,
           max_repayments, annual_interest_rate, repayment_every, repayment_frequency, schedule_type)
         values ($1, 'P', 'P', 'USD', 2, 100, 100000000, 1, 100, 0, 1, 'MONTHS', 'PROGRESSIVE') returning id`,
        [T],
      );
      const customer = async (name: string) =>
        (
          await tx.query<{ id: string }>(
            `insert into customers (tenant_id, first_name, last_name, email, phone) values ($1, $2, 'Test', $3, '+33600000000') returning id`,
            [T, name, `${name.toLowerCase()}@test`],
          )
        )[0].id;
      const far = addDays(START, 400);
      // Overdue from START + 1 (first installment due START).
      ids.walk = await insertLoan(tx, {
        productId,
        customerId: await customer('Walk'),
        accountNo: 'WALK',
        installments: [
          { due: START, principal: 10000n },
          { due: far, principal: 10000n },
        ],
      });
      for (const key of ['kept', 'broken', 'partial'] as const)
        ids[key] = await insertLoan(tx, {
          productId,
          customerId: await customer(key),
          accountNo: key.toUpperCase(),
          installments: [
            { due: START, principal: 5000n },
            { due: far, principal: 5000n },
          ],
        });
      ids.bullet = await insertLoan(tx, {
        productId,
        customerId: await customer('Bullet'),
        accountNo: 'BULLET',
        installments: [{ due: addDays(START, 20), principal: 50000n }],
      });
      await tx.query(
        `insert into message_templates (tenant_id, code, name, channel, purpose, subject_en, body_en, subject_fr, body_fr)
         values ($1, 'bullet_maturity_reminder', 'Bullet', 'email', 'service', 'Due soon', 'Loan {{loanNumber}} is due on {{dueDate}}',
                 'Bientôt', 'Le prêt {{loanNumber}} arrive à échéance le {{dueDate}}')`,
        [T],
      );
      const buckets = await tx.query<{ id: string }>('select id from collection_buckets order by position');
      [ids.b1, ids.b2, ids.b3] = buckets.map((b) => b.id);
      const wf = async (name: string, bucketId: string, enabled: boolean, steps: unknown[]) =>
        (
          await tx.query<{ id: string }>(
            `insert into collection_workflows (tenant_id, name, bucket_id, enabled, steps, created_by) values ($1, $2, $3, $4, $5::jsonb, 'test') returning id`,
            [T, name, bucketId, enabled, JSON.stringify(steps)],
          )
        )[0].id;
      ids.wf1 = await wf('Early', ids.b1, true, [
        { id: 'call', offsetDays: 0, action: 'create_task', params: { title: 'Call the customer' } },
        { id: 'sms', offsetDays: 1, action: 'send_template', params: { templateCode: 'payment_reminder_sms' } },
        { id: 'day5', offsetDays: 5, action: 'create_task', params: { title: 'Day five follow-up', priority: 'high' } },
      ]);
      ids.wf2 = await wf('Broken promises', ids.b2, true, [
        { id: 'esc', offsetDays: 0, action: 'escalate', params: { title: 'broken promise' }, when: 'promise_broken' },
        { id: 'assign', offsetDays: 1, action: 'assign', params: { userId: COLLECTOR } },
      ]);
      ids.wf3 = await wf('Disabled', ids.b3, false, [
        { id: 'never', offsetDays: 0, action: 'create_task', params: { title: 'Never' } },
      ]);
    });
  });

  afterAll(async () => {
    await drop();
  });

  const caseOf = async (loanId: string) =>
    (
      await q<{ bucket_id: string | null; past_due_days: number; bucket_since: string; broken_promises: number }>(
        `select bucket_id, past_due_days, to_char(bucket_since, 'YYYY-MM-DD') as bucket_since, broken_promises
           from collection_cases where loan_id = $1`,
        [loanId],
      )
    )[0];
  const engineDays = async (loanId: string) =>
    (await q<{ past_due_days: number }>('select past_due_days from loan_delinquency where loan_id = $1', [loanId]))[0]
      ?.past_due_days;
  const tasks = (title: string) =>
    q<{ id: string; loan_id: string; priority: string; source: string; source_key: string }>(
      'select id, loan_id, priority, source, source_key from tasks where title = $1',
      [title],
    );

  it('opens cases in the bucket holding the engine’s days past due, and runs the day-0 step once', async () => {
    await closeTo(addDays(START, 1));
    expect(await engineDays(ids.walk)).toBe(1);
    expect(await caseOf(ids.walk)).toMatchObject({
      bucket_id: ids.b1,
      past_due_days: 1,
      bucket_since: addDays(START, 1),
    });
    const calls = await tasks('Call the customer');
    expect(calls.map((t) => t.loan_id).sort()).toEqual([ids.walk, ids.kept, ids.broken, ids.partial].sort());
    expect(calls.every((t) => t.source === 'workflow' && t.source_key.startsWith(`workflow:${ids.wf1}:call:`))).toBe(
      true,
    );
    const [moves] = await q<{ n: number }>(
      `select count(*)::int as n from collection_activities where kind = 'bucket_move' and loan_id = $1`,
      [ids.walk],
    );
    expect(moves.n).toBe(1);
  });

  it('records a refused template (no such template) on the activity without failing the close', async () => {
    const result = await runDailyClose(db, T, { originate: false });
    expect(result.stats.workflowSteps).toBeGreaterThanOrEqual(4);
    const [step] = await q<{ details: { result: string; action: string } }>(
      `select details from collection_activities where kind = 'workflow_step' and loan_id = $1 and details->>'step' = 'sms'`,
      [ids.walk],
    );
    expect(step.details).toMatchObject({ action: 'send_template', result: 'refused' });
  });

  it('runs a step at offset N on day N of the bucket, not before', async () => {
    // bucket_since = START+1; today START+2: day 1. Day 5 is START+6.
    await closeTo(addDays(START, 5));
    expect(await tasks('Day five follow-up')).toHaveLength(0);
    await closeTo(addDays(START, 6));
    const five = await tasks('Day five follow-up');
    expect(five).toHaveLength(4);
    expect(five[0].priority).toBe('high');
  });

  it('settles promises: paid in full = kept, unpaid = broken, partly paid = broken', async () => {
    const day = await today();
    await db.tenant(T, async (tx) => {
      for (const [key, amount] of [
        ['kept', 5000n],
        ['broken', 5000n],
        ['partial', 5000n],
      ] as const) {
        const [{ id }] = await tx.query<{ id: string }>(
          `insert into collection_activities (tenant_id, loan_id, customer_id, kind, promise_date, promise_amount, promise_status,
             business_date, actor)
           select $1, l.id, l.customer_id, 'promise', $3, $4, 'open', $5, 'test' from loans l where l.id = $2 returning id`,
          [T, ids[key], addDays(day, 1), amount, day],
        );
        await tx.query('update collection_cases set open_promise_id = $2 where loan_id = $1', [ids[key], id]);
      }
      await repay(tx, ids.kept, day, 5000n);
      await repay(tx, ids.partial, day, 2000n);
    });
    // The promise date is day+1: settled by the close that moves the date to day+2.
    await closeTo(addDays(day, 1));
    const [open] = await q<{ n: number }>(
      `select count(*)::int as n from collection_activities where promise_status = 'open'`,
    );
    expect(open.n).toBe(3);
    const result = await runDailyClose(db, T, { originate: false });
    expect(result.stats).toMatchObject({ promisesKept: 1, promisesBroken: 2 });
    const statuses = await q<{ loan_id: string; promise_status: string; promise_settled_on: string }>(
      `select loan_id, promise_status, to_char(promise_settled_on, 'YYYY-MM-DD') as promise_settled_on
         from collection_activities where kind = 'promise'`,
    );
    const byLoan = Object.fromEntries(statuses.map((s) => [s.loan_id, s.promise_status]));
    expect(byLoan).toEqual({ [ids.kept]: 'kept', [ids.broken]: 'broken', [ids.partial]: 'broken' });
    expect(statuses[0].promise_settled_on).toBe(addDays(day, 2));
    expect((await caseOf(ids.broken)).broken_promises).toBe(1);
    expect((await caseOf(ids.partial)).broken_promises).toBe(1);
    expect(await caseOf(ids.kept)).toBeUndefined(); // repaid its overdue installment: cured
    const [events] = await q<{ kept: number; broken: number; open: number }>(
      `select count(*) filter (where kind = 'promise_kept')::int as kept, count(*) filter (where kind = 'promise_broken')::int as broken,
              (select count(*)::int from collection_cases where open_promise_id is not null) as open
         from collection_activities`,
    );
    expect(events).toEqual({ kept: 1, broken: 2, open: 0 });
  });

  it('walks a loan across 30/31/60/61/90/91 days as the engine counts them', async () => {
    const seen: Record<number, string | null> = {};
    for (const days of [30, 31, 60, 61, 90, 91]) {
      await closeTo(addDays(START, days));
      expect(await engineDays(ids.walk)).toBe(days);
      const c = await caseOf(ids.walk);
      expect(c.past_due_days).toBe(days);
      seen[days] = c.bucket_id;
    }
    const [b4] = await q<{ id: string }>('select id from collection_buckets where position = 4');
    expect(seen).toEqual({ 30: ids.b1, 31: ids.b2, 60: ids.b2, 61: ids.b3, 90: ids.b3, 91: b4.id });
    expect((await caseOf(ids.walk)).bucket_since).toBe(addDays(START, 91));
    const [moves] = await q<{ n: number }>(
      `select count(*)::int as n from collection_activities where kind = 'bucket_move' and loan_id = $1`,
      [ids.walk],
    );
    expect(moves.n).toBe(4); // entry, 31, 61, 91
  });

  it('escalates a broken promise in 31–60 exactly once, whatever the re-runs', async () => {
    const esc = await tasks('Escalation: broken promise');
    // broken and partial entered 31–60 with a promise broken in their episode; walk had none.
    expect(esc.map((t) => t.loan_id).sort()).toEqual([ids.broken, ids.partial].sort());
    expect(esc.every((t) => t.priority === 'high')).toBe(true);
    const before = await today();
    const again = await runDailyClose(db, T, { businessDate: addDays(before, -1), originate: false });
    expect(again.wasAlreadyClosed).toBe(true);
    await closeTo(addDays(before, 2));
    expect(await tasks('Escalation: broken promise')).toHaveLength(2);
    const [runs] = await q<{ n: number }>(
      `select count(*)::int as n from collection_workflow_runs where workflow_id = $1`,
      [ids.wf2],
    );
    expect(runs.n).toBe(6); // escalation: broken and partial; assignment: every loan a day into 31–60
    const assigned = await q<{ loan_id: string; assignee_id: string; details: { action: string; result: string } }>(
      `select loan_id, assignee_id, details from collection_activities
        where kind = 'workflow_step' and workflow_id = $1 and details->>'step' = 'assign'`,
      [ids.wf2],
    );
    // Every loan that spent a day in 31–60 (walk and the overdue bullet included) got the collector, once.
    expect(assigned.map((a) => a.loan_id).sort()).toEqual([ids.walk, ids.broken, ids.partial, ids.bullet].sort());
    expect(assigned.every((a) => a.assignee_id === COLLECTOR && a.details.result === 'assigned')).toBe(true);
    const [collector] = await q<{ collector_id: string }>(
      'select collector_id from collection_cases where loan_id = $1',
      [ids.broken],
    );
    expect(collector.collector_id).toBe(COLLECTOR);
  });

  it('runs nothing for a disabled workflow', async () => {
    expect(await tasks('Never')).toHaveLength(0);
    const [runs] = await q<{ n: number }>(
      `select count(*)::int as n from collection_workflow_runs where workflow_id = $1`,
      [ids.wf3],
    );
    expect(runs.n).toBe(0);
  });

  it('reminds a bullet loan 7 and 1 days before its due date, once each', async () => {
    const reminders = await q<{ business_date: string; details: { daysBefore: number; result: string } }>(
      `select to_char(business_date, 'YYYY-MM-DD') as business_date, details from collection_activities
        where kind = 'reminder' and loan_id = $1 order by business_date`,
      [ids.bullet],
    );
    expect(reminders.map((r) => [r.business_date, r.details.daysBefore, r.details.result])).toEqual([
      [addDays(START, 13), 7, 'message_queued'],
      [addDays(START, 19), 1, 'message_queued'],
    ]);
    const [messages] = await q<{ n: number }>(
      `select count(*)::int as n from conversation_messages m join conversations c on c.id = m.conversation_id
        where c.loan_id = $1 and m.status = 'queued'`,
      [ids.bullet],
    );
    expect(messages.n).toBe(2);
  });

  it('POST /v1/close-of-business: validation, admins only, closes up to the date', async () => {
    const day = await today();
    const past = await callClose(admin(), { until: addDays(day, -1) });
    expect(past.status).toBe(422);
    expect(past.body.error).toMatchObject({ field: 'until' });
    const far = await callClose(admin(), { until: addDays(day, 32) });
    expect(far.status).toBe(422);
    expect(far.body.error).toMatchObject({ field: 'until' });
    const bad = await callClose(admin(), { until: '2026-02-30' });
    expect(bad.status).toBe(400);
    const denied = await callClose(admin({ isAdmin: false, authorities: ['admin.collection_workflow.edit'] }), {
      until: addDays(day, 1),
    });
    expect(denied.status).toBe(403);
    expect(await today()).toBe(day);
    const ok = await callClose(admin(), { until: addDays(day, 3) });
    expect(ok).toEqual({ status: 200, body: { businessDate: addDays(day, 3), closedDays: 3 } });
    const same = await callClose(admin(), { until: addDays(day, 3) });
    expect(same.body).toEqual({ businessDate: addDays(day, 3), closedDays: 0 });
    const [audit] = await q<{ n: number }>(
      `select count(*)::int as n from audit_log where action = 'close.run' and outcome = 'success'`,
    );
    expect(audit.n).toBe(2);
  });
});
