/**
 * Reading tasks (/loans/tasks and GET /v1/tasks): the four tabs, their counts, one task, and the
 * choices of the assignee picker. Every read goes through `taskVisibility`:
 *  - a task linked to a customer is seen through the customer's branch / officer copied on the task
 *    (`customer_branch_id` / `customer_officer_id`, written by createTask), with `scopeFilter`;
 *  - an unlinked task is seen by its assignee, its creator, the team (branch node) it is assigned to,
 *    and the colleagues whose scope covers its assignee (the assignee's data permissions or officer node);
 *  - administrators and holders without hierarchy data permissions see every task.
 * A task outside that answers 404, exactly like a missing id.
 */
import type { Tx } from '../db/index.ts';
import type { TasksRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { scopeNodesFor, type ScopeHolder } from '../auth/data-permissions.ts';
import { scopeFilter } from '../tenancy/scope.ts';
import { QueryReader } from '../http/query-params.ts';
import { parseDateInput } from '../dates/parse-date.ts';
import { validationError } from '../errors/messages.ts';

export const TASK_TABS = ['mine', 'team', 'overdue', 'done'] as const;
export type TaskTab = (typeof TASK_TABS)[number];
export const TASK_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const TASK_STATUSES = ['open', 'in_progress', 'done', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TASK_PAGE_SIZE = 25;
/** Tab counts stop here ("1,000+"), as the loans lists do. */
export const TASK_COUNT_CAP = 1000;

/** Who reads: their user id and their scope (an Actor fits). */
export type TaskViewer = ScopeHolder & { userId: string };

export type TaskFilters = {
  priority?: string | null;
  status?: string | null;
  dueFrom?: string | null;
  dueTo?: string | null;
  /** A customer's name, a loan account number or words of the title. */
  q?: string | null;
};

export type TaskItem = Pick<
  TasksRow,
  | 'id'
  | 'title'
  | 'description'
  | 'assignee_user_id'
  | 'assignee_node_id'
  | 'due_date'
  | 'priority'
  | 'status'
  | 'customer_id'
  | 'loan_id'
  | 'application_id'
  | 'offer_id'
  | 'source'
  | 'source_key'
  | 'created_by'
  | 'created_at'
  | 'updated_at'
  | 'completed_at'
  | 'revision'
> & {
  customer_name: string | null;
  loan_account_no: string | null;
  offer_code: string | null;
  application_loan_id: string | null;
  assignee_name: string | null;
  team_name: string | null;
};

type Sql = { sql: string; params: unknown[] };

/** The visibility predicate on `t` (tasks), with its parameters numbered from `firstParam`. */
export async function taskVisibility(tx: Tx, viewer: TaskViewer, firstParam: number): Promise<Sql> {
  const nodes = await scopeNodesFor(tx, viewer);
  if (nodes === null) return { sql: 'true', params: [] };
  const linked = await scopeFilter(
    tx,
    { isAdmin: viewer.isAdmin, dataPermissions: viewer.dataPermissions ?? [] },
    null,
    { columns: ['t.customer_branch_id', 't.customer_officer_id'], firstParam },
  );
  const params = [...linked.params, viewer.userId, nodes];
  const me = `$${firstParam + linked.params.length}`;
  const teams = `$${firstParam + linked.params.length + 1}::uuid[]`;
  return {
    sql: `((t.customer_id is not null and ${linked.sql})
        or (t.customer_id is null and (t.assignee_user_id = ${me}::uuid or t.created_by = ${me}::text
                                       or t.assignee_node_id = any(${teams})
                                       or exists (select 1 from user_data_permissions p
                                                    join hierarchy_nodes hn on hn.level = p.field and hn.code = p.value
                                                   where p.user_id = t.assignee_user_id and hn.id = any(${teams}))
                                       or exists (select 1 from hierarchy_nodes hn
                                                   where hn.user_id = t.assignee_user_id and hn.id = any(${teams})))))`,
    params,
  };
}

type Add = (value: unknown) => string;

function tabWhere(tab: TaskTab, viewer: TaskViewer, today: string, add: Add): string {
  switch (tab) {
    case 'mine':
      return `t.assignee_user_id = ${add(viewer.userId)}::uuid and t.status in ('open', 'in_progress')`;
    case 'team':
      // The team's open work that is not the viewer's own: tasks of a team (branch node), of colleagues,
      // and unassigned ones, all within the viewer's visibility.
      return `t.assignee_user_id is distinct from ${add(viewer.userId)}::uuid and t.status in ('open', 'in_progress')`;
    case 'overdue':
      return `t.due_date < ${add(today)}::date and t.status in ('open', 'in_progress')`;
    case 'done':
      return `t.status in ('done', 'cancelled')`;
  }
}

function filterWhere(filters: TaskFilters, params: unknown[]): string[] {
  const where: string[] = [];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filters.priority && (TASK_PRIORITIES as readonly string[]).includes(filters.priority))
    where.push(`t.priority = ${add(filters.priority)}`);
  if (filters.status && (TASK_STATUSES as readonly string[]).includes(filters.status))
    where.push(`t.status = ${add(filters.status)}`);
  if (filters.dueFrom) where.push(`t.due_date >= ${add(filters.dueFrom)}::date`);
  if (filters.dueTo) where.push(`t.due_date <= ${add(filters.dueTo)}::date`);
  const q = filters.q?.trim();
  if (q) {
    const like = add(`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const exact = add(q);
    where.push(`(t.title ilike ${like}
      or exists (select 1 from customers c where c.id = t.customer_id
                  and (c.first_name || ' ' || c.last_name) ilike ${like})
      or exists (select 1 from loans l where l.id = t.loan_id and l.account_no = ${exact}))`);
  }
  return where;
}

async function baseWhere(
  tx: Tx,
  viewer: TaskViewer,
  filters: TaskFilters,
): Promise<{ params: unknown[]; parts: string[]; add: Add }> {
  const visibility = await taskVisibility(tx, viewer, 1);
  const params: unknown[] = [...visibility.params];
  const parts = [visibility.sql, ...filterWhere(filters, params)];
  const add: Add = (value) => {
    params.push(value);
    return `$${params.length}`;
  };
  return { params, parts, add };
}

/** The count of each tab (capped at TASK_COUNT_CAP), with the same filters as the list. */
export async function taskTabCounts(
  tx: Tx,
  viewer: TaskViewer,
  today: string,
  filters: TaskFilters = {},
): Promise<Record<TaskTab, number>> {
  const base = await baseWhere(tx, viewer, filters);
  const selects = TASK_TABS.map(
    (tab) =>
      `(select count(*)::int from (select 1 from tasks t where ${[...base.parts, tabWhere(tab, viewer, today, base.add)].join(' and ')} limit ${TASK_COUNT_CAP}) x) as "${tab}"`,
  );
  const [row] = await tx.query<Record<TaskTab, number>>(`select ${selects.join(', ')}`, base.params);
  return row;
}

const ITEM_COLUMNS = `t.id, t.title, t.description, t.assignee_user_id, t.assignee_node_id, t.due_date, t.priority,
  t.status, t.customer_id, t.loan_id, t.application_id, t.offer_id, t.source, t.source_key, t.created_by,
  t.created_at, t.updated_at, t.completed_at, t.revision,
  nullif(trim(coalesce(c.first_name, '') || ' ' || coalesce(c.last_name, '')), '') as customer_name,
  l.account_no as loan_account_no, o.code as offer_code, a.loan_id as application_loan_id,
  u.display_name as assignee_name, n.name as team_name`;

const ITEM_JOINS = `left join customers c on c.tenant_id = t.tenant_id and c.id = t.customer_id
  left join loans l on l.tenant_id = t.tenant_id and l.id = t.loan_id
  left join offers o on o.tenant_id = t.tenant_id and o.id = t.offer_id
  left join loan_applications a on a.tenant_id = t.tenant_id and a.id = t.application_id
  left join users u on u.tenant_id = t.tenant_id and u.id = t.assignee_user_id
  left join hierarchy_nodes n on n.tenant_id = t.tenant_id and n.id = t.assignee_node_id`;

/** One page of a tab: open tabs by due date (none last) then priority; done newest first. */
export async function listTasks(
  tx: Tx,
  viewer: TaskViewer,
  today: string,
  tab: TaskTab,
  filters: TaskFilters = {},
  page = 1,
): Promise<TaskItem[]> {
  const base = await baseWhere(tx, viewer, filters);
  const order =
    tab === 'done'
      ? 'coalesce(t.completed_at, t.updated_at) desc, t.id'
      : `t.due_date asc nulls last, array_position(array['urgent','high','normal','low'], t.priority), t.created_at, t.id`;
  const offset = (Math.max(1, page) - 1) * TASK_PAGE_SIZE;
  return tx.query<TaskItem>(
    `select ${ITEM_COLUMNS} from tasks t ${ITEM_JOINS}
      where ${[...base.parts, tabWhere(tab, viewer, today, base.add)].join(' and ')}
      order by ${order} limit ${TASK_PAGE_SIZE} offset ${offset}`,
    base.params,
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One task the viewer may see, or null (missing and out of sight are the same). */
export async function findTask(tx: Tx, viewer: TaskViewer, id: string): Promise<TaskItem | null> {
  if (!UUID.test(id)) return null;
  const visibility = await taskVisibility(tx, viewer, 2);
  const [row] = await tx.query<TaskItem>(
    `select ${ITEM_COLUMNS} from tasks t ${ITEM_JOINS} where t.id = $1 and ${visibility.sql}`,
    [id, ...visibility.params],
  );
  return row ?? null;
}

/** One task the viewer may see; 404 otherwise. */
export async function getTask(tx: Tx, viewer: TaskViewer, id: string): Promise<TaskItem> {
  const task = await findTask(tx, viewer, id);
  if (!task) throw new AppError('NOT_FOUND', 'Task not found', { field: 'id' });
  return task;
}

export type AssigneeChoices = {
  users: { id: string; name: string }[];
  teams: { id: string; name: string }[];
};

/**
 * Whom the viewer may assign a task to: everyone active in the tenant and the branches (teams) in
 * their scope when they manage tasks; only themselves otherwise (the server enforces the same).
 */
export async function assigneeChoices(tx: Tx, viewer: TaskViewer, canManage: boolean): Promise<AssigneeChoices> {
  if (!canManage) {
    const me = await tx.query<{ id: string; name: string }>(
      'select id::text as id, display_name as name from users where id = $1',
      [viewer.userId],
    );
    return { users: me, teams: [] };
  }
  const nodes = await scopeNodesFor(tx, viewer);
  const users = await tx.query<{ id: string; name: string }>(
    `select id::text as id, display_name as name from users where is_active order by display_name, email limit 500`,
  );
  const teams = await tx.query<{ id: string; name: string }>(
    `select id::text as id, name from hierarchy_nodes
      where level = 'branch' and ($1::uuid[] is null or id = any($1::uuid[])) order by name limit 500`,
    [nodes],
  );
  return { users, teams };
}

/** Where a task's linked objects open (null: nothing linked of that kind). */
export function taskLinks(task: TaskItem): {
  customer: string | null;
  loan: string | null;
  application: string | null;
  offer: string | null;
  related: string | null;
} {
  const profile = task.customer_id ? `/loans/customer/profile/${task.customer_id}` : null;
  const offersOf = task.source_key?.match(/^offers:([0-9a-f-]{36}):/i);
  return {
    customer: profile,
    loan: profile && task.loan_id ? `${profile}/loans/${task.loan_id}` : null,
    application:
      profile && task.application_id && task.application_loan_id
        ? `${profile}/processing-loans/${task.application_loan_id}`
        : null,
    offer: profile && task.offer_id ? `${profile}/offers/${task.offer_id}` : null,
    // Event tasks "propose N new offers" open the officer's offers to propose.
    related: offersOf ? `/loans/offers?tab=to_propose&scope=officer:${offersOf[1]}` : null,
  };
}

/** The tab, filters and page of /loans/tasks and GET /v1/tasks, read once (400 naming a malformed parameter). */
export function readTaskQuery(search: URLSearchParams): { tab: TaskTab; filters: TaskFilters; page: number } {
  const params = new QueryReader(search);
  const date = (name: string) => {
    const raw = params.one(name)?.trim();
    if (!raw) return null;
    const parsed = parseDateInput(raw);
    if (!parsed.ok) throw validationError(name, parsed.problem.key, parsed.problem.params);
    return parsed.date;
  };
  return {
    tab: params.oneOf('tab', TASK_TABS) ?? 'mine',
    filters: {
      priority: params.oneOf('priority', TASK_PRIORITIES) ?? null,
      status: params.oneOf('status', TASK_STATUSES) ?? null,
      dueFrom: date('dueFrom'),
      dueTo: date('dueTo'),
      q: params.text('q', { max: 200 }) ?? null,
    },
    page: params.int('page', { min: 1, max: 10_000, fallback: 1 }),
  };
}
