import type { Db, Tx } from '../db/index.ts';
import { addDays } from '../schedule/dates.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { createTask } from '../tasks/create.ts';
import { createCollateral } from '../lending/collaterals.ts';
import { submitApplication } from '../lending/commands/submit-application.ts';
import type { Actor } from '../lending/actor.ts';
import type { CustomersRow, LoanProductsRow, LoansRow } from '../db/schema.generated.ts';

/**
 * Issue 14's demo data, after the simulated history (src/lib/simulator/demo-history.ts, whose overdue
 * samples put loans of every branch in every default bucket): promises to pay (kept, broken, open),
 * contact attempts, tasks (the officer's, the collector's, the branch team's; overdue, due, done),
 * conversations (e-mail and SMS threads with replies and an internal note), and, for the one-branch
 * officer's branch, submitted applications and collaterals so every loans list has rows.
 * Deterministic (ordered reads, dates from the business date), and fast: a few dozen statements.
 * Promises and messages are past events, inserted as rows dated in the past; tasks, applications and
 * collaterals go through the domain (createTask, submitApplication, createCollateral).
 */
export async function seedDemoTeamWork(db: Db, tenantId: string, options: { branchCode: string }): Promise<void> {
  await db.tenant(tenantId, async (tx) => {
    const today = await businessDate(tx, tenantId);
    const users = await tx.query<{ id: string; email: string; is_admin: boolean }>(
      `select u.id::text as id, lower(u.email) as email,
              coalesce((select bool_or(r.is_admin) from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
                         where ur.tenant_id = u.tenant_id and ur.user_id = u.id), false) as is_admin
         from users u order by u.created_at, u.email`,
    );
    const admin = users.find((u) => u.is_admin);
    if (!admin) return;
    const officer = users.find((u) => u.email.startsWith('officer@')) ?? admin;
    const collector = users.find((u) => u.email.startsWith('collector@')) ?? admin;
    const actor: Actor = { tenantId, userId: admin.id, isAdmin: true, kind: 'system' };
    const [branch] = await tx.query<{ id: string }>(
      `select id::text as id from hierarchy_nodes where level = 'branch' and code = $1`,
      [options.branchCode],
    );
    await seedPromises(tx, tenantId, today, collector.id);
    await seedTasks(tx, tenantId, today, { officer: officer.id, collector: collector.id, admin: admin.id }, branch?.id);
    await seedConversations(tx, tenantId, today, officer.id, branch?.id ?? null);
    if (branch) await seedBranchLending(tx, actor, today, branch.id);
  });
}

type OverdueLoan = Pick<LoansRow, 'id' | 'customer_id' | 'account_no' | 'customer_branch_id'> & {
  past_due_days: number;
  amount: bigint;
};

async function overdueLoans(tx: Tx, today: string): Promise<OverdueLoan[]> {
  return tx.query<OverdueLoan>(
    `select l.id::text as id, l.customer_id::text as customer_id, l.account_no, l.customer_branch_id::text as customer_branch_id,
            ($1::date - l.oldest_unpaid_due_date) as past_due_days,
            greatest(l.outstanding / 4, 100)::int8 as amount
       from loans l
      where l.status = 'ACTIVE' and l.oldest_unpaid_due_date < $1::date
      order by l.customer_branch_id, ($1::date - l.oldest_unpaid_due_date), l.account_no`,
    [today],
  );
}

/**
 * Promises: kept ones on loans that paid (the promise date is a real repayment's date, its amount
 * that repayment's), broken ones on loans that have not paid since their first missed installment,
 * open ones due today and in a few days on loans 1–60 days past due.
 */
async function seedPromises(tx: Tx, tenantId: string, today: string, collectorId: string): Promise<void> {
  const insert = (row: {
    loanId: string;
    customerId: string;
    kind: string;
    on: string;
    outcome?: string | null;
    note: string;
    promiseDate?: string | null;
    promiseAmount?: bigint | null;
    promiseStatus?: string | null;
    settledOn?: string | null;
  }) =>
    tx.query<{ id: string }>(
      `insert into collection_activities (tenant_id, loan_id, customer_id, kind, channel, outcome, note, promise_date,
         promise_amount, promise_status, promise_settled_on, business_date, actor, created_at)
       values ($1, $2, $3, $4, case when $4 in ('contact', 'promise') then 'phone' end, $5, $6, $7, $8, $9, $10, $11, $12,
               ($11::date + time '10:00') at time zone 'UTC')
       returning id::text as id`,
      [
        tenantId,
        row.loanId,
        row.customerId,
        row.kind,
        row.outcome ?? null,
        row.note,
        row.promiseDate ?? null,
        row.promiseAmount ?? null,
        row.promiseStatus ?? null,
        row.settledOn ?? null,
        row.on,
        row.kind.startsWith('promise_') ? 'system:close' : collectorId,
      ],
    );

  // Kept: the last repayments (the borrower had promised to pay that day, that amount).
  const paid = await tx.query<{ loan_id: string; customer_id: string; on: string; amount: bigint }>(
    `select t.loan_id::text as loan_id, l.customer_id::text as customer_id, t.transaction_date::text as on, t.amount
       from loan_transactions t join loans l on l.tenant_id = t.tenant_id and l.id = t.loan_id
      where t.type = 'REPAYMENT' and t.amount > 0 and t.transaction_date < $1::date - 3
        and not exists (select 1 from loan_transactions r where r.tenant_id = t.tenant_id and r.reverses_id = t.id)
      order by t.transaction_date desc, l.account_no limit 3`,
    [today],
  );
  for (const p of paid) {
    const made = addDays(p.on, -4);
    await insert({
      loanId: p.loan_id,
      customerId: p.customer_id,
      kind: 'contact',
      on: made,
      outcome: 'promised',
      note: 'Reached the borrower; will pay at the end of the week.',
    });
    await insert({
      loanId: p.loan_id,
      customerId: p.customer_id,
      kind: 'promise',
      on: made,
      note: 'Promise to pay',
      promiseDate: p.on,
      promiseAmount: p.amount,
      promiseStatus: 'kept',
      settledOn: p.on,
    });
    await insert({
      loanId: p.loan_id,
      customerId: p.customer_id,
      kind: 'promise_kept',
      on: p.on,
      note: 'Paid as promised.',
    });
  }

  const overdue = await overdueLoans(tx, today);
  // Broken: loans more than 30 days past due, promised 10 days after their first missed due date.
  for (const loan of overdue.filter((l) => l.past_due_days > 30)) {
    const missed = addDays(today, -loan.past_due_days);
    const made = addDays(missed, 5);
    const due = addDays(missed, 10);
    await insert({
      loanId: loan.id,
      customerId: loan.customer_id,
      kind: 'contact',
      on: addDays(missed, 2),
      outcome: 'no_answer',
      note: 'No answer.',
    });
    await insert({
      loanId: loan.id,
      customerId: loan.customer_id,
      kind: 'promise',
      on: made,
      outcome: 'promised',
      note: 'Promise to pay',
      promiseDate: due,
      promiseAmount: loan.amount,
      promiseStatus: 'broken',
      settledOn: addDays(due, 1),
    });
    await insert({
      loanId: loan.id,
      customerId: loan.customer_id,
      kind: 'promise_broken',
      on: addDays(due, 1),
      note: 'No payment by the promised date.',
    });
  }
  // Open: loans 1–60 days past due promise to pay today (the first of each branch) or in three days.
  const seen = new Set<string>();
  for (const loan of overdue.filter((l) => l.past_due_days <= 60)) {
    const promiseDate = seen.has(loan.customer_id) ? addDays(today, 3) : today;
    seen.add(loan.customer_id);
    await insert({
      loanId: loan.id,
      customerId: loan.customer_id,
      kind: 'promise',
      on: addDays(today, -1),
      outcome: 'promised',
      note: 'Promise to pay',
      promiseDate,
      promiseAmount: loan.amount,
      promiseStatus: 'open',
    });
  }
}

async function seedTasks(
  tx: Tx,
  tenantId: string,
  today: string,
  people: { officer: string; collector: string; admin: string },
  branchId: string | undefined,
): Promise<void> {
  // The tasks are about loans of the given branch (its officer and team see them), else of any branch.
  const all = await overdueLoans(tx, today);
  const ofBranch = all.filter((l) => l.customer_branch_id === branchId);
  const overdue = ofBranch.length ? ofBranch : all;
  const loan = (i: number) => overdue[i % Math.max(1, overdue.length)];
  const specs = [
    { title: 'Call back about the missed installment', user: people.officer, due: -3, i: 0, priority: 'high' as const },
    { title: 'Check the new payslip', user: people.officer, due: 0, i: 1, priority: 'normal' as const },
    { title: 'Prepare the renewal offer', user: people.officer, due: 7, i: 2, priority: 'low' as const },
    { title: 'Visit the borrower', user: people.officer, due: -10, i: 3, priority: 'normal' as const, done: true },
    { title: 'Second reminder call', user: people.collector, due: -1, i: 4, priority: 'urgent' as const },
    { title: 'Confirm the promised payment', user: people.collector, due: 0, i: 5, priority: 'high' as const },
    { title: 'Send the formal notice', user: people.collector, due: 5, i: 6, priority: 'normal' as const },
    {
      title: 'Log the payment received',
      user: people.collector,
      due: -6,
      i: 7,
      priority: 'normal' as const,
      done: true,
    },
    { title: 'Review the branch arrears', node: branchId, due: -2, i: 8, priority: 'normal' as const },
    { title: 'Update customer phone numbers', node: branchId, due: 2, i: 9, priority: 'low' as const },
  ];
  for (const spec of specs) {
    const target = loan(spec.i);
    const { id } = await createTask(tx, tenantId, {
      title: spec.title,
      description: 'Demo task',
      assigneeUserId: 'user' in spec ? spec.user : null,
      assigneeNodeId: 'node' in spec ? (spec.node ?? null) : null,
      dueDate: addDays(today, spec.due),
      priority: spec.priority,
      customerId: target?.customer_id ?? null,
      loanId: target?.id ?? null,
      source: 'manual',
      createdBy: people.admin,
    });
    if (id && 'done' in spec && spec.done) {
      await tx.query(
        `update tasks set status = 'done', completed_at = ($2::date + time '16:00') at time zone 'UTC', completed_by = $3,
                updated_at = now(), revision = revision + 1 where id = $1`,
        [id, addDays(today, spec.due), 'user' in spec ? spec.user : people.admin],
      );
    }
  }
}

/** Past threads: an e-mail with a reply and an internal note, an SMS with a reply. */
async function seedConversations(
  tx: Tx,
  tenantId: string,
  today: string,
  officerId: string,
  branchId: string | null,
): Promise<void> {
  const customers = await tx.query<
    Pick<CustomersRow, 'id' | 'first_name' | 'branch_id' | 'officer_id'> & { loan_id: string | null }
  >(
    `select c.id::text as id, c.first_name, c.branch_id::text as branch_id, c.officer_id::text as officer_id,
            (select l.id::text from loans l where l.customer_id = c.id and l.status = 'ACTIVE' order by l.account_no limit 1) as loan_id
       from customers c
      where ($1::uuid is null or c.branch_id = $1) and c.email is not null and c.phone is not null
      order by c.last_name, c.first_name, c.id limit 2`,
    [branchId],
  );
  const at = (days: number, hour: string) => `${addDays(today, days)}T${hour}:00Z`;
  const threads: { channel: 'email' | 'sms'; subject: string; messages: [string, string, string][] }[] = [
    {
      channel: 'email',
      subject: 'Your next installment',
      messages: [
        ['outbound', 'Hello {name}, a reminder that your next installment is due soon.', at(-6, '09:00')],
        ['inbound', 'Thank you, I will pay on Friday.', at(-5, '14:30')],
        ['note', 'Customer usually pays a few days late; no action needed.', at(-5, '15:00')],
      ],
    },
    {
      channel: 'sms',
      subject: 'Payment reminder',
      messages: [
        ['outbound', 'Hello {name}, your installment is overdue. Please call us.', at(-3, '10:00')],
        ['inbound', 'OK, calling tomorrow.', at(-3, '11:15')],
      ],
    },
  ];
  for (const [i, thread] of threads.entries()) {
    const customer = customers[i % Math.max(1, customers.length)];
    if (!customer) return;
    const last = thread.messages[thread.messages.length - 1]![2];
    const [conversation] = await tx.query<{ id: string }>(
      `insert into conversations (tenant_id, customer_id, loan_id, customer_branch_id, customer_officer_id, subject, channel,
                                  last_message_at, created_by, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning id::text as id`,
      [
        tenantId,
        customer.id,
        customer.loan_id,
        customer.branch_id,
        customer.officer_id,
        thread.subject,
        thread.channel,
        last,
        officerId,
        thread.messages[0]![2],
      ],
    );
    for (const [kind, text, when] of thread.messages) {
      await tx.query(
        `insert into conversation_messages (tenant_id, conversation_id, kind, channel, purpose, subject, body, status, author_id,
                                            created_at, sent_at)
         values ($1, $2, $3, $4, 'service', $5, $6, $7, $8, $9, $10)`,
        [
          tenantId,
          conversation!.id,
          kind,
          kind === 'note' ? 'note' : thread.channel,
          thread.channel === 'email' && kind !== 'note' ? thread.subject : '',
          text.replace('{name}', customer.first_name),
          kind === 'outbound' ? 'sent' : kind === 'inbound' ? 'received' : 'note',
          kind === 'inbound' ? null : officerId,
          when,
          kind === 'outbound' ? when : null,
        ],
      );
    }
  }
}

/** The one-branch officer's lists: submitted applications and collaterals of the branch's customers. */
async function seedBranchLending(tx: Tx, actor: Actor, today: string, branchId: string): Promise<void> {
  const [product] = await tx.query<
    Pick<
      LoanProductsRow,
      | 'id'
      | 'currency'
      | 'min_principal'
      | 'max_principal'
      | 'default_principal'
      | 'min_repayments'
      | 'max_repayments'
      | 'default_repayments'
    >
  >(
    `select id::text as id, currency, min_principal, max_principal, default_principal, min_repayments, max_repayments, default_repayments
       from loan_products where is_active and repayment_frequency = 'MONTHS' order by code limit 1`,
  );
  const customers = await tx.query<Pick<CustomersRow, 'id'> & { loan_id: string | null }>(
    `select c.id::text as id,
            (select l.id::text from loans l where l.customer_id = c.id and l.status = 'ACTIVE' order by l.account_no limit 1) as loan_id
       from customers c where c.branch_id = $1 order by c.last_name, c.first_name, c.id limit 4`,
    [branchId],
  );
  const [type] = await tx.query<{ code: string }>(
    `select code from collateral_types where is_active order by code limit 1`,
  );
  for (const [i, customer] of customers.entries()) {
    if (type && product) {
      await createCollateral(tx, actor, {
        customerId: customer.id,
        type: type.code,
        description: ['Car', 'Savings deposit', 'Equipment', 'Guarantor'][i % 4]!,
        currency: product.currency,
        value: product.max_principal / 2n + BigInt(i) * 10_000n,
        valuationDate: addDays(today, -30 * (i + 1)),
      });
    }
    if (product && i < 3) {
      const principal = product.default_principal ?? product.min_principal * 2n;
      await submitApplication(tx, actor, {
        customerId: customer.id,
        productId: product.id,
        principal: principal > product.max_principal ? product.max_principal : principal,
        numberOfRepayments:
          product.default_repayments ?? Math.min(product.max_repayments, Math.max(product.min_repayments, 12)),
        formData: { purpose: 'personal', source: 'demo' },
      });
    }
  }
}
