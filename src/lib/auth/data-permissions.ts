/**
 * Data permissions on writes: the one place where a command learns whether the object it acts on,
 * and the place it puts a new object, are inside the caller's hierarchy scope (its
 * data_permissions on region / branch / officer; src/lib/tenancy/scope.ts turns them into a node set).
 *
 * Every mutating verb goes through this family instead of checking ad hoc:
 *
 *   await assertInScope(tx, actor, 'loan', loanId);                       // before locking / reading it
 *   await assertPlacementInScope(tx, actor, { branchId, officerId });     // fields that place a new object
 *
 * Rules:
 *  - The object is looked up through the scope: a missing id and another branch's id both answer
 *    NOT_FOUND (404) with the same message, so ids cannot be probed. Objects reached through another
 *    (a loan, offer, application, collateral or file through its customer; a loan transaction through
 *    its loan) inherit their customer's branch and officer; a loan is also in scope through its own officer.
 *  - A field that places an object (branchId, officerId, regionId, customerId) outside the scope is
 *    FORBIDDEN (403) with a message naming the field, in the actor's language (English or French).
 *    A missing node or customer answers the same 403 to a restricted caller (no probing).
 *  - An administrator, a caller without hierarchy data permissions, and system actors (jobs, the
 *    simulator, seeds: no `dataPermissions`) are unrestricted; the checks then only confirm existence.
 *  - The node set is resolved once per transaction and caller.
 */
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { languageOf } from '../i18n/index.ts';
import { RESOURCES } from '../i18n/resources.ts';
import { resolveScopeNodes, type HierarchyLevel } from '../tenancy/scope.ts';
import type { DataPermission } from './principal.ts';
import type { HierarchyNodesRow } from '../db/schema.generated.ts';

/** Who acts: the lending Actor and the Principal both fit. */
export type ScopeHolder = {
  isAdmin: boolean;
  /** Absent for system actors (jobs, simulator, seeds): no hierarchy restriction. */
  dataPermissions?: readonly DataPermission[];
  /** Locale such as 'fr-FR', for the 403 message. */
  language?: string | null;
};

/** The kinds of objects a command can act on, each placed in the hierarchy through its customer. */
export const SCOPED_KINDS = [
  'customer',
  'loan',
  'offer',
  'application',
  'collateral',
  'customer_file',
  'loan_transaction',
] as const;
export type ScopedKind = (typeof SCOPED_KINDS)[number];

type KindSql = { from: string; alias: string; extra?: string; notFound: string; field: string };

/** `c` is always the customer the object belongs to; `extra` adds columns of the object's own placement. */
const KIND_SQL: Record<ScopedKind, KindSql> = {
  customer: { from: 'customers c', alias: 'c', notFound: 'Customer not found', field: 'customerId' },
  loan: {
    from: 'loans l join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id',
    alias: 'l',
    extra: 'l.officer_id',
    notFound: 'Loan not found',
    field: 'loanId',
  },
  offer: {
    from: 'offers o join customers c on c.tenant_id = o.tenant_id and c.id = o.customer_id',
    alias: 'o',
    notFound: 'Offer not found',
    field: 'offerId',
  },
  application: {
    from: 'loan_applications a join customers c on c.tenant_id = a.tenant_id and c.id = a.customer_id',
    alias: 'a',
    notFound: 'Loan application not found',
    field: 'applicationId',
  },
  collateral: {
    from: 'collaterals k join customers c on c.tenant_id = k.tenant_id and c.id = k.customer_id',
    alias: 'k',
    notFound: 'Collateral not found',
    field: 'collateralId',
  },
  customer_file: {
    from: 'customer_files f join customers c on c.tenant_id = f.tenant_id and c.id = f.customer_id',
    alias: 'f',
    notFound: 'File not found',
    field: 'fileId',
  },
  loan_transaction: {
    from: `loan_transactions t join loans l on l.tenant_id = t.tenant_id and l.id = t.loan_id
           join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id`,
    alias: 't',
    extra: 'l.officer_id',
    notFound: 'Transaction not found',
    field: 'transactionId',
  },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const cache = new WeakMap<Tx, Map<ScopeHolder, Promise<string[] | null>>>();

/** The hierarchy nodes the holder may act on, or null when unrestricted. Resolved once per transaction. */
export function scopeNodesFor(tx: Tx, holder: ScopeHolder): Promise<string[] | null> {
  if (holder.isAdmin || !holder.dataPermissions || holder.dataPermissions.length === 0) return Promise.resolve(null);
  let perTx = cache.get(tx);
  if (!perTx) cache.set(tx, (perTx = new Map()));
  let nodes = perTx.get(holder);
  if (!nodes) {
    nodes = resolveScopeNodes(tx, { isAdmin: holder.isAdmin, dataPermissions: holder.dataPermissions }, null);
    perTx.set(holder, nodes);
  }
  return nodes;
}

/**
 * Whether the object exists and lies in the node set (null = unrestricted: existence only). The
 * core every other check and the older `is…InScope` helpers use.
 */
export async function isInNodes(
  tx: Tx,
  kind: ScopedKind,
  id: string,
  nodes: readonly string[] | null,
): Promise<boolean> {
  if (typeof id !== 'string' || !UUID.test(id)) return false;
  const k = KIND_SQL[kind];
  const columns = ['c.branch_id', 'c.officer_id', ...(k.extra ? [k.extra] : [])];
  const rows = await tx.query(
    `select 1 from ${k.from} where ${k.alias}.id = $1 and ($2::uuid[] is null or ${columns.map((c) => `${c} = any($2::uuid[])`).join(' or ')})`,
    [id, nodes],
  );
  return rows.length > 0;
}

/**
 * Whether another staff member (by user id) sees the object through their own scope: an assignee, a
 * mentioned colleague. Inactive or unknown users see nothing.
 */
export async function userSeesObject(tx: Tx, userId: string, kind: ScopedKind, id: string): Promise<boolean> {
  if (!UUID.test(userId)) return false;
  const [user] = await tx.query<{ is_admin: boolean }>(
    `select coalesce(bool_or(r.is_admin), false) as is_admin
       from users u left join user_roles ur on ur.user_id = u.id left join roles r on r.id = ur.role_id
      where u.id = $1 and u.is_active group by u.id`,
    [userId],
  );
  if (!user) return false;
  const permissions = await tx.query<{ field: string; value: string }>(
    'select field, value from user_data_permissions where user_id = $1',
    [userId],
  );
  const nodes = await resolveScopeNodes(tx, { isAdmin: user.is_admin, dataPermissions: permissions }, null);
  return isInNodes(tx, kind, id, nodes);
}

/** Whether the holder may act on the object (it exists and is in their scope). */
export async function isInScope(tx: Tx, holder: ScopeHolder, kind: ScopedKind, id: string): Promise<boolean> {
  return isInNodes(tx, kind, id, await scopeNodesFor(tx, holder));
}

/** The 404 a command answers for an object outside the caller's scope, identical to a missing one. */
export function notFoundError(kind: ScopedKind): AppError {
  return new AppError('NOT_FOUND', KIND_SQL[kind].notFound, { field: KIND_SQL[kind].field });
}

/** Loads nothing, answers nothing: throws the kind's 404 unless the object exists inside the holder's scope. */
export async function assertInScope(tx: Tx, holder: ScopeHolder, kind: ScopedKind, id: string): Promise<void> {
  if (!(await isInScope(tx, holder, kind, id))) throw notFoundError(kind);
}

/** Fields that place an object, and what they name. */
const PLACEMENT_FIELDS = {
  regionId: 'region',
  branchId: 'branch',
  officerId: 'officer',
  customerId: 'customer',
} as const satisfies Record<string, HierarchyLevel | 'customer'>;
export type PlacementField = keyof typeof PLACEMENT_FIELDS;
export type Placement = Partial<Record<PlacementField, string | null | undefined>>;

function scopeText(holder: ScopeHolder, key: 'outside' | 'unknown' | 'unplaced', field: string): string {
  const language = languageOf(holder.language ?? null);
  const text = RESOURCES[language].errors.scope[key];
  return text.replaceAll('{{field}}', field);
}

/** The 403 for a placement field outside the scope, naming the field, in the holder's language. */
export function outsideScopeError(holder: ScopeHolder, field: string): AppError {
  return new AppError('FORBIDDEN', scopeText(holder, 'outside', field), {
    field,
    details: { reason: 'outside_data_permissions' },
  });
}

/**
 * Checks every placement field that is set: a hierarchy id must name a node of its level, a
 * customerId an existing customer, and, for a restricted holder, inside their scope (else 403 naming
 * the field). With `mustLand`, a restricted holder must also place the object somewhere they can
 * still see (at least one of branchId / officerId / regionId set inside the scope).
 */
export async function assertPlacementInScope(
  tx: Tx,
  holder: ScopeHolder,
  placement: Placement,
  options: { mustLand?: boolean } = {},
): Promise<void> {
  const nodes = await scopeNodesFor(tx, holder);
  let isLanded = false;
  for (const field of Object.keys(PLACEMENT_FIELDS) as PlacementField[]) {
    const value = placement[field];
    if (value === undefined || value === null || value === '') continue;
    const level = PLACEMENT_FIELDS[field];
    if (level === 'customer') {
      if (await isInNodes(tx, 'customer', value, nodes)) continue;
      if (nodes !== null) throw outsideScopeError(holder, field);
      throw notFoundError('customer');
    }
    const exists =
      UUID.test(value) &&
      (await tx.query(`select 1 from hierarchy_nodes where id = $1 and level = $2`, [value, level])).length > 0;
    if (nodes !== null && (!exists || !nodes.includes(value))) throw outsideScopeError(holder, field);
    if (!exists) throw new AppError('BAD_REQUEST', scopeText(holder, 'unknown', field), { field });
    isLanded = true;
  }
  if (options.mustLand && nodes !== null && !isLanded) {
    throw new AppError('FORBIDDEN', scopeText(holder, 'unplaced', 'branchId'), {
      field: 'branchId',
      details: { reason: 'outside_data_permissions' },
    });
  }
}

/**
 * A `scope=level:id` parameter in a request that creates something (an export of a list): naming a
 * node outside the holder's scope is a 403 on the field 'scope', as a placement field is, instead of
 * a silently empty file. Reads keep answering an empty list (src/lib/tenancy/scope.ts).
 */
export async function assertScopeParamInScope(
  tx: Tx,
  holder: ScopeHolder,
  scope: { hierarchy_level: HierarchyLevel; hierarchy_id: string } | null,
): Promise<void> {
  if (!scope) return;
  const nodes = await scopeNodesFor(tx, holder);
  if (nodes === null) return;
  const id = UUID.test(scope.hierarchy_id) ? scope.hierarchy_id : null;
  const rows = await tx.query<Pick<HierarchyNodesRow, 'id'>>(
    `select id::text as id from hierarchy_nodes where level = $1 and (id = $2::uuid or code = $3)`,
    [scope.hierarchy_level, id, id ? null : scope.hierarchy_id],
  );
  if (rows.length === 0 || !rows.every((r) => nodes.includes(r.id))) throw outsideScopeError(holder, 'scope');
}
