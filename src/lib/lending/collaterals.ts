import { AppError } from '../errors/app-error.ts';
import { assertCollateralType } from './collateral-types.ts';
import type { Tx } from '../db/index.ts';
import type { CollateralsRow } from '../db/schema.generated.ts';
import type { Actor } from './actor.ts';
import { auditSuccess, positiveAmount } from './commands/common.ts';
import { assertUuid } from './loans.ts';
import { assertInScope, assertPlacementInScope } from '../auth/data-permissions.ts';

export type CollateralRow = CollateralsRow;

export async function createCollateral(
  tx: Tx,
  actor: Actor,
  input: {
    customerId: string;
    type: string;
    description?: string;
    currency: string;
    value: string | bigint;
    valuationDate: string;
    /** Customized values, already checked (src/lib/forms/custom-fields.ts). */
    customFields?: Record<string, unknown>;
  },
): Promise<CollateralRow> {
  assertUuid(input.customerId, 'customerId');
  await assertCollateralType(tx, input.type);
  await assertPlacementInScope(tx, actor, { customerId: input.customerId });
  if (!input.type.trim()) throw new AppError('BAD_REQUEST', 'type is required', { field: 'type' });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.valuationDate))
    throw new AppError('BAD_REQUEST', 'valuationDate must be a date YYYY-MM-DD', { field: 'valuationDate' });
  const { minor: value, currency } = positiveAmount(input.value, input.currency, 'value');
  const [row] = await tx.query<CollateralRow>(
    `insert into collaterals (tenant_id, customer_id, type, description, currency, value, valuation_date, custom_fields)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) returning *`,
    [
      actor.tenantId,
      input.customerId,
      input.type.trim(),
      input.description ?? '',
      currency,
      value,
      input.valuationDate,
      JSON.stringify(input.customFields ?? {}),
    ],
  );
  await auditSuccess(tx, actor, 'collateral.create', 'collateral', row.id, null, {
    type: row.type,
    value,
    currency,
    customFields: input.customFields ?? {},
  });
  return row;
}

/** Pledges a collateral to a loan of the same customer. */
export async function linkCollateral(tx: Tx, actor: Actor, loanId: string, collateralId: string): Promise<void> {
  assertUuid(loanId, 'loanId');
  assertUuid(collateralId, 'collateralId');
  await assertInScope(tx, actor, 'collateral', collateralId);
  await assertInScope(tx, actor, 'loan', loanId);
  const rows = await tx.query<{ loan_customer: string; collateral_customer: string }>(
    `select l.customer_id as loan_customer, c.customer_id as collateral_customer from loans l, collaterals c where l.id = $1 and c.id = $2`,
    [loanId, collateralId],
  );
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Loan or collateral not found', { field: 'collateralId' });
  if (rows[0].loan_customer !== rows[0].collateral_customer) {
    throw new AppError('BAD_REQUEST', 'The collateral belongs to another customer', { field: 'collateralId' });
  }
  await tx.query(
    `insert into loan_collaterals (tenant_id, loan_id, collateral_id) values ($1, $2, $3) on conflict do nothing`,
    [actor.tenantId, loanId, collateralId],
  );
  await auditSuccess(tx, actor, 'collateral.link', 'loan', loanId, null, { collateralId });
}

export async function listLoanCollaterals(tx: Tx, loanId: string): Promise<CollateralRow[]> {
  return tx.query<CollateralRow>(
    `select c.* from collaterals c join loan_collaterals lc on lc.tenant_id = c.tenant_id and lc.collateral_id = c.id where lc.loan_id = $1 order by c.created_at`,
    [loanId],
  );
}

export type CollateralLoanChoice = { id: string; account_no: string; status: string; linked: boolean };

/** The customer's loans, newest first, each saying whether it is pledged this collateral (the collateral page's link form). */
export function loansForCollateral(tx: Tx, customerId: string, collateralId: string): Promise<CollateralLoanChoice[]> {
  return tx.query<CollateralLoanChoice>(
    `select l.id, l.account_no, l.status, exists (select 1 from loan_collaterals lc where lc.loan_id = l.id and lc.collateral_id = $2) as linked
       from loans l where l.customer_id = $1 order by l.submitted_on desc`,
    [customerId, collateralId],
  );
}
