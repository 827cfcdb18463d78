import { z } from 'zod';
import { recordAudit, auditActor } from '../audit/record-audit.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { need } from '../auth/permissions.ts';
import { assertInScope } from '../auth/data-permissions.ts';
import type { Actor } from '../lending/actor.ts';
import { getCustomer, type CustomerRow } from '../lending/customers.ts';
import { checkCustomValues, prepareCustomValues, coerceCustomPosted, customFieldsOf } from './custom-fields.ts';

/**
 * Editing a customer's customized fields on their own (the customer record has no other edit form):
 * PATCH /v1/customers/{id} and the profile's "Additional information" form run the same command.
 * `expectedVersion` (the customer's version when the form was shown) makes a stale edit a 409.
 */
export async function updateCustomerCustomFields(
  tx: Tx,
  actor: Actor,
  customerId: string,
  input: unknown,
  options: { isApi?: boolean; expectedVersion?: number | null } = {},
): Promise<CustomerRow> {
  await assertInScope(tx, actor, 'customer', customerId);
  const before = await getCustomer(tx, customerId);
  if (options.expectedVersion != null && Number(before.version) !== options.expectedVersion)
    throw new AppError('CONFLICT', 'The customer was changed by someone else; reload to see the changes', {
      field: 'version',
    });
  const next = await prepareCustomValues(tx, 'customer', input, before.custom_fields, options);
  const [row] = await tx.query<CustomerRow>(
    `update customers set custom_fields = $2::jsonb, updated_at = now(), version = version + 1 where id = $1 returning *`,
    [customerId, JSON.stringify(next)],
  );
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'customer.update_custom_fields',
    objectType: 'customer',
    objectId: customerId,
    before: { customFields: before.custom_fields },
    after: { customFields: next },
    outcome: 'success',
  });
  return row;
}

/** The profile's form: the posted `cf.` fields, typed by the tenant's form. */
export const updateCustomerCustomFieldsCommand = defineCommand({
  action: 'customer.update_custom_fields',
  objectType: 'customer',
  permission: need('loans.customers.view'),
  input: z.object({
    customerId: z.string().max(64),
    version: z.string().max(20),
    posted: z.record(z.string(), z.string().max(10_000)),
  }),
  run: async (tx, actor, input) => {
    const doc = await customFieldsOf(tx, 'customer');
    const values = doc ? coerceCustomPosted(doc, input.posted) : {};
    const expected = /^\d{1,12}$/.test(input.version) ? Number(input.version) : null;
    return updateCustomerCustomFields(tx, actor, input.customerId, values, { expectedVersion: expected });
  },
});

/** PATCH /v1/customers/{id} { customFields, version? }: the JSON values, unknown names refused. */
export const patchCustomerCustomFieldsCommand = defineCommand({
  action: 'customer.update_custom_fields',
  objectType: 'customer',
  permission: need('loans.customers.view'),
  input: z.object({
    customerId: z.string().max(64),
    customFields: z.record(z.string().max(200), z.unknown()),
    version: z.number().int().nonnegative().optional(),
  }),
  run: (tx, actor, input) =>
    updateCustomerCustomFields(tx, actor, input.customerId, input.customFields, {
      isApi: true,
      expectedVersion: input.version ?? null,
    }),
});

/**
 * A collateral's customized fields from its edit form (posted strings), after its own fields were
 * saved in the same transaction; audited when they change.
 */
export async function updateCollateralCustomFields(
  tx: Tx,
  actor: Actor,
  collateralId: string,
  posted: Record<string, string>,
): Promise<void> {
  const doc = await customFieldsOf(tx, 'collateral');
  if (!doc) return;
  const [row] = await tx.query<{ custom_fields: unknown }>('select custom_fields from collaterals where id = $1', [
    collateralId,
  ]);
  if (!row) throw new AppError('NOT_FOUND', 'Collateral not found', { field: 'collateralId' });
  const next = checkCustomValues(doc, coerceCustomPosted(doc, posted), row.custom_fields);
  if (JSON.stringify(next) === JSON.stringify(row.custom_fields)) return;
  await tx.query('update collaterals set custom_fields = $2::jsonb where id = $1', [
    collateralId,
    JSON.stringify(next),
  ]);
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'collateral.update_custom_fields',
    objectType: 'collateral',
    objectId: collateralId,
    before: { customFields: row.custom_fields },
    after: { customFields: next },
    outcome: 'success',
  });
}
