import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { AppError } from '#lib/errors/app-error.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { DEMO_ROLES } from '#lib/auth/permissions.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { createOffer } from '#lib/lending/offers.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import {
  assignTaskCommand,
  completeTaskCommand,
  createTaskCommand,
  deleteTaskCommand,
  updateTaskCommand,
} from '#lib/tasks/commands.ts';
import { findTask, listTasks, taskTabCounts, type TaskItem } from '#lib/tasks/tasks.ts';
import { tasksAfterClose } from '#lib/tasks/after-close.ts';
import { readAllNotificationsCommand, readNotificationCommand, unreadInbox } from '#lib/notifications/inbox.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

// Tasks (issue 14): the four tabs in the caller's scope, the manage rule ("assign to others") held
// on the server, validation naming the field with 422, the revision (409), delete, the bell, and the
// tasks and notifications the daily close leaves behind (once, however often it runs).

type Refusal = { status: number; field?: string };

async function refusal(run: Promise<unknown>): Promise<Refusal | 'ok'> {
  try {
    await run;
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, field: error.field };
    throw error;
  }
}

describe.each(testDbKinds())('tasks on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const u = { officerA: '', colleagueA: '', collectorA: '', officerB: '', admin: '' };
  const ids = { branchA: '', branchB: '', officerNodeA: '', customerA: '', customerB: '', loanA: '', loanB: '' };
  const actors: Record<keyof typeof u, Actor & { authorities: string[] }> = {} as never;
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);

  function run<I, O>(who: keyof typeof u, command: Command<I, O>, input: unknown): Promise<O> {
    const actor = actors[who];
    return runCommand(
      {
        db,
        actor,
        permissionSubject: { isAdmin: actor.isAdmin, authorities: actor.authorities },
        objectId: (input as { id?: string }).id ?? null,
        language: 'en',
      },
      command,
      () => input,
    );
  }
  const tab = (who: keyof typeof u, name: 'mine' | 'team' | 'overdue' | 'done', today = f.businessDate) =>
    t((tx) => listTasks(tx, actors[who], today, name));
  const titles = (rows: TaskItem[]) => rows.map((r) => r.title).sort();

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    await t(async (tx) => {
      const node = async (level: string, code: string, parent: string | null = null, userId: string | null = null) =>
        (
          await tx.query<{ id: string }>(
            `insert into hierarchy_nodes (tenant_id, level, code, name, parent_id, user_id) values ($1, $2, $3, $3, $4, $5) returning id`,
            [f.tenantId, level, code, parent, userId],
          )
        )[0].id;
      const role = async (name: keyof typeof DEMO_ROLES) =>
        (
          await tx.query<{ id: string }>(
            'insert into roles (tenant_id, name, is_admin, authorities) values ($1, $2, $3, $4) returning id::text as id',
            [f.tenantId, name, DEMO_ROLES[name].isAdmin, [...DEMO_ROLES[name].authorities]],
          )
        )[0].id;
      const roles = {
        officer: await role('loan_officer'),
        collector: await role('collector'),
        admin: await role('administrator'),
      };
      const user = async (key: keyof typeof u, roleId: string, branch: string | null) => {
        const [row] = await tx.query<{ id: string }>(
          `insert into users (tenant_id, email, display_name, language) values ($1, $2, $3, 'en-US') returning id::text as id`,
          [f.tenantId, `${key.toLowerCase()}@tasks.test`, key],
        );
        await tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
          f.tenantId,
          row.id,
          roleId,
        ]);
        if (branch)
          await tx.query(
            `insert into user_data_permissions (tenant_id, user_id, field, value) values ($1, $2, 'branch', $3)`,
            [f.tenantId, row.id, branch],
          );
        u[key] = row.id;
        const isAdmin = key === 'admin';
        const authorities = [
          ...(key === 'collectorA'
            ? DEMO_ROLES.collector
            : isAdmin
              ? DEMO_ROLES.administrator
              : DEMO_ROLES.loan_officer
          ).authorities,
        ];
        actors[key] = {
          tenantId: f.tenantId,
          userId: row.id,
          isAdmin,
          authorities,
          dataPermissions: branch ? [{ field: 'branch', value: branch }] : [],
          language: 'en-US',
        };
      };
      await user('officerA', roles.officer, 'BR-A');
      await user('colleagueA', roles.officer, 'BR-A');
      await user('collectorA', roles.collector, 'BR-A');
      await user('officerB', roles.officer, 'BR-B');
      await user('admin', roles.admin, null);
      ids.branchA = await node('branch', 'BR-A');
      ids.branchB = await node('branch', 'BR-B');
      ids.officerNodeA = await node('officer', 'OF-A', ids.branchA, u.officerA);
      ids.customerA = (
        await createCustomer(tx, f.admin, {
          firstName: 'Anna',
          lastName: 'Alpha',
          branchId: ids.branchA,
          officerId: ids.officerNodeA,
        })
      ).id;
      ids.customerB = (
        await createCustomer(tx, f.admin, { firstName: 'Bruno', lastName: 'Beta', branchId: ids.branchB })
      ).id;
    });
    ids.loanA = (await f.disbursedLoan({ customerId: ids.customerA })).loanId;
    ids.loanB = (await f.disbursedLoan({ customerId: ids.customerB })).loanId;
  });
  afterAll(async () => drop());

  test('an officer creates a task for a loan and gives it to a colleague, who sees it under "mine" and in the bell', async () => {
    const task = await run('officerA', createTaskCommand, {
      title: 'Call about the first installment',
      loanId: ids.loanA,
      assigneeUserId: u.colleagueA,
      dueDate: f.businessDate,
      priority: 'high',
    });
    expect(task.customer_id).toBe(ids.customerA);
    expect(task.loan_id).toBe(ids.loanA);
    expect(task.assignee_user_id).toBe(u.colleagueA);
    expect(task.source).toBe('manual');
    expect(titles(await tab('colleagueA', 'mine'))).toEqual(['Call about the first installment']);
    expect(titles(await tab('officerA', 'team'))).toContain('Call about the first installment');
    expect(titles(await tab('officerA', 'mine'))).not.toContain('Call about the first installment');
    const inbox = await t((tx) => unreadInbox(tx, u.colleagueA));
    expect(inbox.unread).toBe(1);
    expect(inbox.items[0]).toMatchObject({ kind: 'task_assigned', link: `/loans/tasks/edit/${task.id}` });
    const audit = await t((tx) =>
      tx.query<{ action: string }>(`select action from audit_log where object_id = $1 order by occurred_at`, [task.id]),
    );
    expect(audit.map((a) => a.action)).toEqual(['task.create']);
    // The bell: reading one, then all.
    await run('colleagueA', readNotificationCommand, { id: inbox.items[0].id });
    expect((await t((tx) => unreadInbox(tx, u.colleagueA))).unread).toBe(0);
    expect(await refusal(run('officerB', readNotificationCommand, { id: inbox.items[0].id }))).toMatchObject({
      status: 404,
    });
    expect(await run('colleagueA', readAllNotificationsCommand, {})).toEqual({ read: 0 });
  });

  test('a one-branch user never sees another branch’s tasks: not in any tab, and 404 on their ids', async () => {
    const taskB = await run('officerB', createTaskCommand, { title: 'Branch B follow-up', customerId: ids.customerB });
    const unlinkedB = await run('officerB', createTaskCommand, { title: 'B private note' });
    for (const name of ['mine', 'team', 'overdue', 'done'] as const) {
      const seen = titles(await tab('officerA', name));
      expect(seen).not.toContain('Branch B follow-up');
      expect(seen).not.toContain('B private note');
    }
    expect(await t((tx) => findTask(tx, actors.officerA, taskB.id))).toBeNull();
    expect(await t((tx) => findTask(tx, actors.officerA, unlinkedB.id))).toBeNull();
    expect(
      await refusal(run('officerA', updateTaskCommand, { id: taskB.id, expectedRevision: 1, title: 'x' })),
    ).toMatchObject({ status: 404 });
    expect(await refusal(run('officerA', completeTaskCommand, { id: unlinkedB.id }))).toMatchObject({ status: 404 });
    // The administrator (no hierarchy restriction) sees both.
    const adminTeam = titles(await tab('admin', 'team'));
    expect(adminTeam).toEqual(expect.arrayContaining(['Branch B follow-up', 'B private note']));
    const countsA = await t((tx) => taskTabCounts(tx, actors.officerA, f.businessDate));
    const countsB = await t((tx) => taskTabCounts(tx, actors.officerB, f.businessDate));
    expect(countsB.mine).toBe(2);
    expect(countsA.mine + countsA.team).toBe(
      (await tab('officerA', 'mine')).length + (await tab('officerA', 'team')).length,
    );
  });

  test('assigning to anyone else needs loans.tasks.manage, on the server, even with a forged request', async () => {
    // The collector holds create/edit but not manage: a forged assignee is refused, naming the field.
    expect(
      await refusal(run('collectorA', createTaskCommand, { title: 'Forged', assigneeUserId: u.officerA })),
    ).toEqual({ status: 403, field: 'assigneeUserId' });
    expect(
      await refusal(run('collectorA', createTaskCommand, { title: 'Forged team', assigneeNodeId: ids.branchA })),
    ).toEqual({ status: 403, field: 'assigneeNodeId' });
    const own = await run('collectorA', createTaskCommand, { title: 'My own reminder', assigneeUserId: u.collectorA });
    expect(own.assignee_user_id).toBe(u.collectorA);
    expect(
      await refusal(
        run('collectorA', updateTaskCommand, { id: own.id, expectedRevision: 1, assigneeUserId: u.officerA }),
      ),
    ).toEqual({ status: 403, field: 'assigneeUserId' });
    expect(
      await refusal(run('collectorA', assignTaskCommand, { id: own.id, assigneeUserId: u.officerA })),
    ).toMatchObject({ status: 403 });
    // An officer (manage) may; a team of another branch stays out of reach (403), a colleague who
    // cannot see the customer is refused (422).
    const assigned = await run('officerA', assignTaskCommand, { id: own.id, assigneeNodeId: ids.branchA });
    expect(assigned.assignee_node_id).toBe(ids.branchA);
    expect(assigned.assignee_user_id).toBeNull();
    expect(await refusal(run('officerA', assignTaskCommand, { id: own.id, assigneeNodeId: ids.branchB }))).toEqual({
      status: 403,
      field: 'assigneeNodeId',
    });
    expect(
      await refusal(run('officerA', createTaskCommand, { title: 'x', loanId: ids.loanA, assigneeUserId: u.officerB })),
    ).toEqual({ status: 422, field: 'assigneeUserId' });
  });

  test('validation: 422 naming the field; unknown or foreign linked objects 404 naming the field', async () => {
    expect(await refusal(run('officerA', createTaskCommand, { title: '  ' }))).toEqual({ status: 422, field: 'title' });
    expect(await refusal(run('officerA', createTaskCommand, { title: 'x'.repeat(201) }))).toEqual({
      status: 422,
      field: 'title',
    });
    expect(await refusal(run('officerA', createTaskCommand, { title: 'x', description: 'd'.repeat(4001) }))).toEqual({
      status: 422,
      field: 'description',
    });
    expect(await refusal(run('officerA', createTaskCommand, { title: 'x', dueDate: '2026-01-14' }))).toEqual({
      status: 422,
      field: 'dueDate',
    });
    expect(await refusal(run('officerA', createTaskCommand, { title: 'x', dueDate: '2026-02-31' }))).toEqual({
      status: 422,
      field: 'dueDate',
    });
    expect(await refusal(run('officerA', createTaskCommand, { title: 'x', priority: 'asap' }))).toEqual({
      status: 422,
      field: 'priority',
    });
    expect(
      await refusal(run('officerA', createTaskCommand, { title: 'x', loanId: '00000000-0000-4000-8000-000000000000' })),
    ).toEqual({ status: 404, field: 'loanId' });
    expect(await refusal(run('officerA', createTaskCommand, { title: 'x', loanId: ids.loanB }))).toEqual({
      status: 404,
      field: 'loanId',
    });
    expect(await refusal(run('officerA', createTaskCommand, { title: 'x', customerId: ids.customerB }))).toEqual({
      status: 404,
      field: 'customerId',
    });
    // The message is in the caller's language.
    try {
      await runCommand(
        {
          db,
          actor: actors.officerA,
          permissionSubject: { isAdmin: false, authorities: actors.officerA.authorities },
          language: 'fr',
        },
        createTaskCommand,
        () => ({ title: '' }),
      );
      expect.unreachable();
    } catch (error) {
      const { describeError } = await import('#lib/errors/messages.ts');
      expect(describeError(error, 'fr')?.body.message).toBe('Titre est obligatoire.');
    }
    expect(await refusal(run('officerA', createTaskCommand, { title: 'x'.repeat(200), dueDate: f.businessDate }))).toBe(
      'ok',
    );
  });

  test('editing keeps a revision: a stale form is a 409 and changes nothing', async () => {
    const task = await run('officerA', createTaskCommand, { title: 'Revision test', customerId: ids.customerA });
    const saved = await run('officerA', updateTaskCommand, {
      id: task.id,
      expectedRevision: 1,
      title: 'Revision test, saved',
      status: 'in_progress',
    });
    expect(saved.revision).toBe(2);
    expect(saved.status).toBe('in_progress');
    expect(
      await refusal(run('colleagueA', updateTaskCommand, { id: task.id, expectedRevision: 1, title: 'Stale' })),
    ).toEqual({ status: 409, field: 'expectedRevision' });
    expect((await t((tx) => findTask(tx, actors.officerA, task.id)))?.title).toBe('Revision test, saved');
  });

  test('overdue and done tabs; completing moves a task to done; delete needs the permission and is audited', async () => {
    const task = await run('officerA', createTaskCommand, { title: 'Due today', dueDate: f.businessDate });
    expect(titles(await tab('officerA', 'overdue'))).not.toContain('Due today');
    expect(titles(await tab('officerA', 'overdue', '2026-01-16'))).toContain('Due today');
    const done = await run('officerA', completeTaskCommand, { id: task.id });
    expect(done.status).toBe('done');
    expect(done.completed_at).not.toBeNull();
    expect(titles(await tab('officerA', 'mine'))).not.toContain('Due today');
    expect((await tab('officerA', 'done'))[0].title).toBe('Due today');
    expect(titles(await tab('officerA', 'overdue', '2026-01-16'))).not.toContain('Due today');
    // The officer role has no delete; the administrator has.
    expect(await refusal(run('officerA', deleteTaskCommand, { id: task.id }))).toMatchObject({ status: 403 });
    expect(await run('admin', deleteTaskCommand, { id: task.id })).toEqual({ id: task.id });
    expect(await t((tx) => findTask(tx, actors.admin, task.id))).toBeNull();
    const audit = await t((tx) =>
      tx.query<{ action: string; outcome: string }>(
        `select action, outcome from audit_log where object_id = $1 order by occurred_at`,
        [task.id],
      ),
    );
    expect(audit).toEqual([
      { action: 'task.create', outcome: 'success' },
      { action: 'task.complete', outcome: 'success' },
      { action: 'task.delete', outcome: 'denied' },
      { action: 'task.delete', outcome: 'success' },
    ]);
  });

  test('after the close: task_due once, one decision task per waiting application, one offers task per officer and day', async () => {
    const day = '2026-01-20';
    const due = await run('officerA', createTaskCommand, {
      title: 'Due on the 20th',
      assigneeUserId: u.colleagueA,
      dueDate: day,
    });
    const submitted = await t((tx) =>
      submitApplication(tx, f.admin, {
        customerId: ids.customerA,
        productId: f.productId,
        principal: '700.00',
        numberOfRepayments: 6,
      }),
    );
    await t((tx) =>
      createOffer(tx, f.admin, {
        customerId: ids.customerA,
        productId: f.productId,
        principal: '900.00',
        numberOfRepayments: 6,
        expiresOn: '2026-03-15',
      }),
    );
    // A close ran after the submission (the previous business day): the application has waited through it.
    await db.owner((tx) =>
      tx.query(
        `insert into close_runs (tenant_id, business_date, new_business_date, started_at, finished_at, stats)
         values ($1, '2026-01-18', '2026-01-19', now() + interval '1 second', now() + interval '2 seconds', '{}'::jsonb)`,
        [f.tenantId],
      ),
    );
    const first = await tasksAfterClose(db, f.tenantId, day);
    const second = await tasksAfterClose(db, f.tenantId, day);
    // Due today: the colleague's task (the officer's new "propose offers" task told them by its
    // assignment; the team's decision task notifies nobody).
    expect(first).toMatchObject({ dueNotified: 1, applicationTasks: 1, offerTasks: 1 });
    expect(second).toEqual({ dueNotified: 0, applicationTasks: 0, offerTasks: 0 });
    const notes = await t((tx) =>
      tx.query<{ kind: string; dedupe_key: string }>(
        `select kind, dedupe_key from notifications where user_id = $1 and kind = 'task_due'`,
        [u.colleagueA],
      ),
    );
    expect(notes).toEqual([{ kind: 'task_due', dedupe_key: `task_due:${due.id}:${day}` }]);
    const events = await t((tx) =>
      tx.query<{ source_key: string; assignee_node_id: string | null; assignee_user_id: string | null; title: string }>(
        `select source_key, assignee_node_id, assignee_user_id, title from tasks where source = 'event' order by source_key`,
      ),
    );
    expect(events).toEqual([
      {
        source_key: `application:${submitted.application.id}:decision`,
        assignee_node_id: ids.branchA,
        assignee_user_id: null,
        title: 'Decide on the loan application of Anna Alpha',
      },
      {
        source_key: `offers:${ids.officerNodeA}:${day}`,
        assignee_node_id: null,
        assignee_user_id: u.officerA,
        title: 'Propose 1 new offer',
      },
    ]);
    // The next day's run supersedes the officer's open "propose offers" task.
    expect(await tasksAfterClose(db, f.tenantId, '2026-01-21')).toMatchObject({ offerTasks: 1 });
    const offers = await t((tx) =>
      tx.query<{ source_key: string; status: string }>(
        `select source_key, status from tasks where source_key like 'offers:%' order by source_key`,
      ),
    );
    expect(offers).toEqual([
      { source_key: `offers:${ids.officerNodeA}:${day}`, status: 'cancelled' },
      { source_key: `offers:${ids.officerNodeA}:2026-01-21`, status: 'open' },
    ]);
    // The officer of branch A sees the branch's decision task in "team"; branch B does not.
    expect(titles(await tab('officerA', 'team'))).toContain('Decide on the loan application of Anna Alpha');
    expect(titles(await tab('officerB', 'team'))).not.toContain('Decide on the loan application of Anna Alpha');
  });
});
