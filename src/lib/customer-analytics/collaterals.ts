import type { Tx } from '../db/index.ts';
import { assertCollateralType } from '../lending/collateral-types.ts';
import { AppError } from '../errors/app-error.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { Actor } from '../lending/actor.ts';
import { parseMoney } from '../money/money.ts';
import { assertInScope } from '../auth/data-permissions.ts';
import { validationError } from '../errors/messages.ts';
import { parseDateInput } from '../dates/parse-date.ts';
import type { Language } from '../i18n/index.ts';

export type CollateralSummary = {
  id: string;
  customer_id: string;
  type: string;
  description: string;
  currency: string;
  value: bigint;
  valuation_date: string;
  created_at: Date;
  linked_loans: number;
  /** Principal still outstanding on the active loans this collateral secures. */
  secured_principal: bigint;
  /** Loan-to-value: secured principal over the collateral's value, basis points; null when the value is 0. */
  ltv_bp: number | null;
  /** Customized values (issue 13, src/lib/forms/custom-fields.ts). */
  custom_fields: unknown;
};

const SELECT = `
  select c.id, c.customer_id, c.type, c.description, trim(c.currency) as currency, c.value, to_char(c.valuation_date, 'YYYY-MM-DD') as valuation_date,
         c.created_at, c.custom_fields, count(distinct lc.loan_id)::int as linked_loans,
         coalesce(sum(o.outstanding), 0)::int8 as secured_principal
    from collaterals c
    left join loan_collaterals lc on lc.tenant_id = c.tenant_id and lc.collateral_id = c.id
    left join lateral (
      select sum(i.principal_due - i.principal_paid - i.principal_written_off) as outstanding
        from loans l join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
       where l.tenant_id = lc.tenant_id and l.id = lc.loan_id and l.status = 'ACTIVE'
    ) o on true`;

function withLtv(rows: Omit<CollateralSummary, 'ltv_bp'>[]): CollateralSummary[] {
  return rows.map((r) => ({ ...r, ltv_bp: r.value > 0n ? Number((r.secured_principal * 10000n) / r.value) : null }));
}

/** A customer's collaterals with their linked loans and loan-to-value (profile "collaterals"). */
export async function customerCollaterals(tx: Tx, customerId: string): Promise<CollateralSummary[]> {
  return withLtv(
    await tx.query(`${SELECT} where c.customer_id = $1 group by c.id, c.tenant_id order by c.created_at desc, c.id`, [
      customerId,
    ]),
  );
}

export async function collateralSummary(tx: Tx, collateralId: string): Promise<CollateralSummary | null> {
  const rows = withLtv(await tx.query(`${SELECT} where c.id = $1 group by c.id, c.tenant_id`, [collateralId]));
  return rows[0] ?? null;
}

/** The types every tenant starts with (migration 0611 seeds them); the forms offer the tenant's configured types. */
export const COLLATERAL_TYPES = ['vehicle', 'real_estate', 'deposit', 'guarantee', 'equipment', 'other'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The collateral, if it exists and its customer is inside the hierarchy scope (null nodes = all). */
export async function visibleCollateral(
  tx: Tx,
  collateralId: string,
  scopeNodes: string[] | null,
): Promise<CollateralSummary | null> {
  if (!UUID.test(collateralId)) return null;
  const rows = await tx.query(
    `select 1 from collaterals c join customers cu on cu.tenant_id = c.tenant_id and cu.id = c.customer_id
      where c.id = $1 and ($2::uuid[] is null or cu.branch_id = any($2::uuid[]) or cu.officer_id = any($2::uuid[]))`,
    [collateralId, scopeNodes],
  );
  return rows[0] ? collateralSummary(tx, collateralId) : null;
}

export type CollateralEdit = { type: string; description: string; value: string; valuationDate: string };

/**
 * Checks the editable fields (the type is checked against the tenant's active types by the caller:
 * assertCollateralType in src/lib/lending/collateral-types.ts; value a positive amount in the currency through
 * the one money parser — a decimal comma accepted from French forms —, a real date not after the
 * business date); refusals name the field in every language.
 */
export function parseCollateralEdit(
  input: CollateralEdit,
  currency: string,
  businessDate: string,
  language: Language = 'en',
): { type: string; description: string; value: bigint; valuationDate: string } {
  const { minor: value } = parseMoney(input.value, currency, 'value', { decimalComma: language === 'fr' });
  const date = parseDateInput(input.valuationDate.trim(), { max: businessDate, maxIsBusinessDate: true });
  if (!date.ok) throw validationError('valuationDate', date.problem.key, date.problem.params);
  const d = date.date;
  if (input.description.length > 1000) throw validationError('description', 'text.tooLong', { max: 1000 });
  return { type: input.type, description: input.description.trim(), value, valuationDate: d };
}

/** Edits a collateral; the audit keeps before and after. */
export async function updateCollateral(
  tx: Tx,
  actor: Actor,
  collateralId: string,
  input: CollateralEdit,
  businessDate: string,
  language: Language = 'en',
): Promise<void> {
  await assertInScope(tx, actor, 'collateral', collateralId);
  const before = await collateralSummary(tx, collateralId);
  if (!before) throw new AppError('NOT_FOUND', 'Collateral not found', { field: 'collateralId' });
  await assertCollateralType(tx, input.type, before.type);
  const next = parseCollateralEdit(input, before.currency, businessDate, language);
  await tx.query(`update collaterals set type = $2, description = $3, value = $4, valuation_date = $5 where id = $1`, [
    collateralId,
    next.type,
    next.description,
    next.value,
    next.valuationDate,
  ]);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action: 'collateral.update',
    objectType: 'collateral',
    objectId: collateralId,
    before: {
      type: before.type,
      description: before.description,
      value: before.value,
      valuationDate: before.valuation_date,
    },
    after: next,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
}

/** Deletes a collateral that secures no active loan (its loan links go with it); audited with what it was. */
export async function deleteCollateral(tx: Tx, actor: Actor, collateralId: string): Promise<void> {
  await assertInScope(tx, actor, 'collateral', collateralId);
  const before = await collateralSummary(tx, collateralId);
  if (!before) throw new AppError('NOT_FOUND', 'Collateral not found', { field: 'collateralId' });
  const active = await tx.query(
    `select 1 from loan_collaterals lc join loans l on l.tenant_id = lc.tenant_id and l.id = lc.loan_id
      where lc.collateral_id = $1 and l.status in ('SUBMITTED_AND_PENDING_APPROVAL', 'APPROVED', 'ACTIVE')`,
    [collateralId],
  );
  if (active[0])
    throw new AppError(
      'CONFLICT',
      'This collateral secures a loan that is not closed; unlink it when the loan closes',
      { field: 'collateralId' },
    );
  await tx.query(`delete from collaterals where id = $1`, [collateralId]);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action: 'collateral.delete',
    objectType: 'collateral',
    objectId: collateralId,
    before: {
      customerId: before.customer_id,
      type: before.type,
      value: before.value,
      currency: before.currency,
      valuationDate: before.valuation_date,
    },
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
}
