import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import type { CustomersRow, HierarchyNodesRow } from '../db/schema.generated.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { Actor } from './actor.ts';
import { assertUuid, isUuid } from './loans.ts';
import { storedValues } from '../forms/custom-fields.ts';
import { assertInScope, assertPlacementInScope, isInNodes } from '../auth/data-permissions.ts';

/** A `customers` row; the opt-in check constraint narrows its status. */
export type CustomerRow = Omit<CustomersRow, 'opt_in_status'> & { opt_in_status: 'opted_in' | 'opted_out' };

export type CustomerInput = {
  firstName: string;
  lastName: string;
  externalId?: string | null;
  nationalId?: string | null;
  phone?: string | null;
  email?: string | null;
  dateOfBirth?: string | null;
  branchId?: string | null;
  officerId?: string | null;
  segment?: string | null;
  riskClass?: string | null;
  optInStatus?: 'opted_in' | 'opted_out';
  /** Customized values, already checked by the caller (src/lib/forms/custom-fields.ts). */
  customFields?: Record<string, unknown>;
};

function required(value: string | undefined, field: string): string {
  const text = value?.trim();
  if (!text) throw new AppError('BAD_REQUEST', `${field} is required`, { field });
  return text;
}

export async function createCustomer(tx: Tx, actor: Actor, input: CustomerInput): Promise<CustomerRow> {
  const firstName = required(input.firstName, 'firstName');
  const lastName = required(input.lastName, 'lastName');
  if (input.email && !/^[^@\s]+@[^@\s]+$/.test(input.email))
    throw new AppError('BAD_REQUEST', 'email is not a valid address', { field: 'email' });
  // Placed only where the caller's data permissions reach (403 naming the field otherwise).
  await assertPlacementInScope(tx, actor, { branchId: input.branchId, officerId: input.officerId });
  // A customer created by a loan officer is theirs (and their branch's) unless placed elsewhere, so
  // the officer's hierarchy data permissions keep covering the customers they bring in.
  let branchId = input.branchId ?? null;
  let officerId = input.officerId ?? null;
  if (!branchId && !officerId) {
    const own = await tx.query<Pick<HierarchyNodesRow, 'id' | 'parent_id'>>(
      `select id, parent_id from hierarchy_nodes where level = 'officer' and user_id::text = $1 order by code limit 1`,
      [actor.userId],
    );
    if (own[0]) {
      officerId = own[0].id;
      branchId = own[0].parent_id;
    }
  }
  // …and never where the caller could no longer see it (a one-branch officer without an officer node).
  await assertPlacementInScope(tx, actor, { branchId, officerId }, { mustLand: true });
  const [row] = await tx.query<CustomerRow>(
    `insert into customers (tenant_id, external_id, first_name, last_name, national_id, phone, email, date_of_birth, branch_id, officer_id,
       segment, opt_in_status, risk_class, custom_fields)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb) returning *`,
    [
      actor.tenantId,
      input.externalId ?? null,
      firstName,
      lastName,
      input.nationalId ?? null,
      input.phone ?? null,
      input.email ?? null,
      input.dateOfBirth ?? null,
      branchId,
      officerId,
      input.segment ?? null,
      input.optInStatus ?? 'opted_in',
      input.riskClass ?? null,
      JSON.stringify(input.customFields ?? {}),
    ],
  );
  await tx.query(
    `insert into customer_opt_in_history (tenant_id, customer_id, status, reason, changed_by) values ($1, $2, $3, 'created', $4)`,
    [actor.tenantId, row.id, row.opt_in_status, actor.userId],
  );
  if (row.risk_class) {
    await tx.query(
      `insert into customer_risk_class_history (tenant_id, customer_id, risk_class, reason, changed_by) values ($1, $2, $3, 'created', $4)`,
      [actor.tenantId, row.id, row.risk_class, actor.userId],
    );
  }
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action: 'customer.create',
    objectType: 'customer',
    objectId: row.id,
    after: { firstName, lastName, nationalId: row.national_id, customFields: row.custom_fields },
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return row;
}

export async function getCustomer(tx: Tx, customerId: string): Promise<CustomerRow> {
  assertUuid(customerId, 'customerId');
  const rows = await tx.query<CustomerRow>(`select * from customers where id = $1`, [customerId]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Customer not found', { field: 'customerId' });
  return rows[0];
}

/** Opts a customer in or out of offers; every change is kept with its reason. */
export async function setCustomerOptIn(
  tx: Tx,
  actor: Actor,
  customerId: string,
  status: 'opted_in' | 'opted_out',
  reason: string,
): Promise<CustomerRow> {
  await assertInScope(tx, actor, 'customer', customerId);
  const why = required(reason, 'reason');
  const before = await getCustomer(tx, customerId);
  const [row] = await tx.query<CustomerRow>(
    `update customers set opt_in_status = $2, updated_at = now(), version = version + 1 where id = $1 returning *`,
    [customerId, status],
  );
  await tx.query(
    `insert into customer_opt_in_history (tenant_id, customer_id, status, reason, changed_by) values ($1, $2, $3, $4, $5)`,
    [actor.tenantId, customerId, status, why, actor.userId],
  );
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action: `customer.${status === 'opted_in' ? 'opt_in' : 'opt_out'}`,
    objectType: 'customer',
    objectId: customerId,
    before: { optInStatus: before.opt_in_status },
    after: { optInStatus: status, reason: why },
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return row;
}

/** Changes a customer's risk class and keeps the history. */
export async function setCustomerRiskClass(
  tx: Tx,
  actor: Actor,
  customerId: string,
  riskClass: string | null,
  reason = '',
): Promise<CustomerRow> {
  await assertInScope(tx, actor, 'customer', customerId);
  const before = await getCustomer(tx, customerId);
  const [row] = await tx.query<CustomerRow>(
    `update customers set risk_class = $2, updated_at = now(), version = version + 1 where id = $1 returning *`,
    [customerId, riskClass],
  );
  await tx.query(
    `insert into customer_risk_class_history (tenant_id, customer_id, risk_class, reason, changed_by) values ($1, $2, $3, $4, $5)`,
    [actor.tenantId, customerId, riskClass, reason, actor.userId],
  );
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action: 'customer.set_risk_class',
    objectType: 'customer',
    objectId: customerId,
    before: { riskClass: before.risk_class },
    after: { riskClass, reason },
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return row;
}

/** Customers, newest first or by name search; `scopeNodes` (hierarchy data permissions) restricts them. */
export async function listCustomers(
  tx: Tx,
  query: { search?: string; limit?: number; scopeNodes?: string[] | null },
): Promise<CustomerRow[]> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const scope = query.scopeNodes
    ? `(branch_id = any($1::uuid[]) or officer_id = any($1::uuid[]))`
    : `$1::uuid[] is null`;
  if (query.search) {
    return tx.query<CustomerRow>(
      `select * from customers where ${scope} and (lower(first_name || ' ' || last_name) like $2 or national_id = $3)
        order by last_name, first_name, id limit $4`,
      [
        query.scopeNodes ?? null,
        `%${query.search.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`,
        query.search,
        limit,
      ],
    );
  }
  return tx.query<CustomerRow>(`select * from customers where ${scope} order by created_at desc, id desc limit $2`, [
    query.scopeNodes ?? null,
    limit,
  ]);
}

/** Whether the customer is inside the hierarchy scope (null = unrestricted). */
export async function isCustomerInScope(tx: Tx, customerId: string, scopeNodes: string[] | null): Promise<boolean> {
  if (scopeNodes === null) return true;
  return isInNodes(tx, 'customer', customerId, scopeNodes);
}

export function customerJson(c: CustomerRow) {
  return {
    id: c.id,
    externalId: c.external_id,
    firstName: c.first_name,
    lastName: c.last_name,
    nationalId: c.national_id,
    phone: c.phone,
    email: c.email,
    dateOfBirth: c.date_of_birth,
    branchId: c.branch_id,
    officerId: c.officer_id,
    segment: c.segment,
    optInStatus: c.opt_in_status,
    riskClass: c.risk_class,
    customFields: storedValues(c.custom_fields),
    createdAt: c.created_at,
    updatedAt: c.updated_at,
    version: c.version,
  };
}

/** The customer when it exists and is inside the caller's scope (scopeNodes from resolveScopeNodes), else null: pages answer 404 either way. */
export async function visibleCustomer(
  tx: Tx,
  customerId: string,
  scopeNodes: string[] | null,
): Promise<CustomerRow | null> {
  if (!isUuid(customerId) || !(await isCustomerInScope(tx, customerId, scopeNodes))) return null;
  const rows = await tx.query<CustomerRow>(`select * from customers where id = $1`, [customerId]);
  return rows[0] ?? null;
}
