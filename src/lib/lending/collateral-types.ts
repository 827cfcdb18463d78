import { z } from 'zod';
import type { Tx } from '../db/index.ts';
import type { CollateralTypesRow } from '../db/schema.generated.ts';
import { ADMIN } from '../auth/permissions.ts';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import type { Language } from '../i18n/index.ts';
import type { Actor } from './actor.ts';

/**
 * Collateral types per tenant (migration 0611): code, English and French names, the maximum
 * loan-to-value, the haircut on the valuation and how often a valuation must be renewed. The
 * collateral forms offer the active types and refuse others; the collateral pages warn when a loan
 * is above the type's LTV or the valuation is older than the revaluation frequency.
 */
export type CollateralType = {
  code: string;
  nameEn: string;
  nameFr: string;
  maxLtvPercent: string;
  haircutPercent: string;
  revaluationMonths: number;
  isActive: boolean;
  version: number;
};

type Row = Omit<CollateralTypesRow, 'tenant_id' | 'created_at' | 'updated_at'>;

const typeOf = (r: Row): CollateralType => ({
  code: r.code,
  nameEn: r.name_en,
  nameFr: r.name_fr,
  maxLtvPercent: String(Number(r.max_ltv_percent)),
  haircutPercent: String(Number(r.haircut_percent)),
  revaluationMonths: r.revaluation_months,
  isActive: r.is_active,
  version: r.version,
});

export async function listCollateralTypes(tx: Tx, options: { activeOnly?: boolean } = {}): Promise<CollateralType[]> {
  const rows = await tx.query<Row>(
    `select code, name_en, name_fr, max_ltv_percent::text, haircut_percent::text, revaluation_months, is_active, version
       from collateral_types ${options.activeOnly ? 'where is_active' : ''} order by is_active desc, code`,
  );
  return rows.map(typeOf);
}

/** A type's name in the language. */
export function collateralTypeName(type: Pick<CollateralType, 'nameEn' | 'nameFr'>, language: Language): string {
  return language === 'fr' ? type.nameFr : type.nameEn;
}

/**
 * The type a collateral may be given: an active configured type, or (editing) the type it already
 * has. A 400 naming `type` with the allowed codes otherwise.
 */
export async function assertCollateralType(tx: Tx, type: string, keep?: string): Promise<void> {
  if (keep !== undefined && type === keep) return;
  const active = (await listCollateralTypes(tx, { activeOnly: true })).map((t) => t.code);
  if (!active.includes(type))
    throw new AppError('BAD_REQUEST', `type must be one of the active collateral types: ${active.join(', ')}`, {
      field: 'type',
    });
}

const percent = (max: number) =>
  z.coerce
    .string()
    .trim()
    .regex(/^\d{1,4}([.,]\d{1,4})?$/, 'must be a percentage such as "70" or "12.5"')
    .transform((v) => v.replace(',', '.'))
    .refine((v) => Number(v) <= max, `must be at most ${max}`);
const fields = {
  nameEn: z.string().trim().min(1).max(120),
  nameFr: z.string().trim().min(1).max(120),
  maxLtvPercent: percent(1000).refine((v) => Number(v) > 0, 'must be greater than 0'),
  haircutPercent: percent(100),
  revaluationMonths: z.coerce.number().int().min(1).max(240),
};

export const createCollateralTypeInput = z
  .object({
    code: z
      .string()
      .trim()
      .regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be lower-case letters, digits or _'),
    ...fields,
  })
  .strict();
export const updateCollateralTypeInput = z
  .object({
    code: z.string(),
    expectedVersion: z.coerce.number().int().positive().optional(),
    active: z.boolean().optional(),
    nameEn: fields.nameEn.optional(),
    nameFr: fields.nameFr.optional(),
    maxLtvPercent: fields.maxLtvPercent.optional(),
    haircutPercent: fields.haircutPercent.optional(),
    revaluationMonths: fields.revaluationMonths.optional(),
  })
  .strict();

async function findType(tx: Tx, code: string, lock = false): Promise<CollateralType | null> {
  const [row] = await tx.query<Row>(
    `select code, name_en, name_fr, max_ltv_percent::text, haircut_percent::text, revaluation_months, is_active, version
       from collateral_types where code = $1 ${lock ? 'for update' : ''}`,
    [code],
  );
  return row ? typeOf(row) : null;
}

async function audit(tx: Tx, actor: Actor, action: string, code: string, before: unknown, after: unknown) {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'collateral_type',
    objectId: code,
    outcome: 'success',
    before,
    after,
  });
}

export const createCollateralTypeCommand = defineCommand({
  action: 'collateral_type.create',
  objectType: 'collateral_type',
  permission: ADMIN,
  input: createCollateralTypeInput,
  run: async (tx, actor, input) => {
    if (await findType(tx, input.code))
      throw new AppError('ALREADY_EXISTS', `A collateral type with the code ${input.code} already exists`, {
        field: 'code',
      });
    await tx.query(
      `insert into collateral_types (tenant_id, code, name_en, name_fr, max_ltv_percent, haircut_percent, revaluation_months)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [
        actor.tenantId,
        input.code,
        input.nameEn,
        input.nameFr,
        input.maxLtvPercent,
        input.haircutPercent,
        input.revaluationMonths,
      ],
    );
    const created = (await findType(tx, input.code)) as CollateralType;
    await audit(tx, actor, 'collateral_type.create', input.code, null, created);
    return created;
  },
});

export const updateCollateralTypeCommand = defineCommand({
  action: 'collateral_type.update',
  objectType: 'collateral_type',
  permission: ADMIN,
  input: updateCollateralTypeInput,
  run: async (tx, actor, input) => {
    const before = await findType(tx, input.code, true);
    if (!before) throw new AppError('NOT_FOUND', 'Collateral type not found', { field: 'code' });
    if (input.expectedVersion !== undefined && input.expectedVersion !== before.version)
      throw new AppError('CONFLICT', 'This collateral type changed since you read it; reload it', {
        field: 'expectedVersion',
      });
    await tx.query(
      `update collateral_types set name_en = $2, name_fr = $3, max_ltv_percent = $4, haircut_percent = $5,
         revaluation_months = $6, is_active = $7, version = version + 1, updated_at = now() where code = $1`,
      [
        before.code,
        input.nameEn ?? before.nameEn,
        input.nameFr ?? before.nameFr,
        input.maxLtvPercent ?? before.maxLtvPercent,
        input.haircutPercent ?? before.haircutPercent,
        input.revaluationMonths ?? before.revaluationMonths,
        input.active ?? before.isActive,
      ],
    );
    const after = (await findType(tx, input.code)) as CollateralType;
    await audit(tx, actor, 'collateral_type.update', input.code, before, after);
    return after;
  },
});

export type CollateralWarnings = {
  /** Loan-to-value in percent (2 decimals), or null when there is no loan or no lendable value. */
  ltvPercent: string | null;
  maxLtvPercent: string;
  /** Above the type's maximum LTV (a loan against a collateral worth nothing after haircut is above). */
  overLtv: boolean;
  /** The valuation is older than the type's revaluation frequency. */
  revaluationDue: boolean;
  /** The date the next valuation was due. */
  revaluationDueOn: string;
};

/** The date `months` months after an ISO date (the last day of the month when it is shorter). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const total = y * 12 + (m - 1) + months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

/**
 * LTV = exposure / (value × (1 − haircut)), exposure being what the linked loans owe in principal
 * (their principal before disbursement); in exact integer arithmetic on minor units. Pure.
 */
export function collateralWarnings(input: {
  value: bigint;
  exposure: bigint;
  valuationDate: string;
  today: string;
  type: Pick<CollateralType, 'maxLtvPercent' | 'haircutPercent' | 'revaluationMonths'>;
}): CollateralWarnings {
  const scale = 10_000n; // percents carry at most 4 decimals
  const toScaled = (p: string) => BigInt(Math.round(Number(p) * 10_000));
  const haircut = toScaled(input.type.haircutPercent);
  const maxLtv = toScaled(input.type.maxLtvPercent);
  // Lendable value × 100 × scale = value × (100 × scale − haircut).
  const lendable = input.value * (100n * scale - haircut);
  let ltvPercent: string | null = null;
  let overLtv = false;
  if (input.exposure > 0n) {
    if (lendable <= 0n) overLtv = true;
    else {
      // ltv (percent × 100, i.e. 2 decimals) = exposure × 100 × 100 × 100 × scale / lendable
      const hundredths = (input.exposure * 100n * 100n * 100n * scale + lendable / 2n) / lendable;
      ltvPercent = `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
      // exposure × 100 × scale / lendable > maxLtv / (100 × scale)
      overLtv = input.exposure * 100n * scale * 100n * scale > maxLtv * lendable;
    }
  }
  const revaluationDueOn = addMonths(input.valuationDate, input.type.revaluationMonths);
  return {
    ltvPercent,
    maxLtvPercent: String(Number(input.type.maxLtvPercent)),
    overLtv,
    revaluationDue: revaluationDueOn <= input.today,
    revaluationDueOn,
  };
}

/**
 * The warnings of collaterals by id: exposure of the loans they secure that are not closed (principal
 * outstanding once disbursed, the principal before), the type's configuration, the business date.
 * A collateral whose type is not configured gets no warning.
 */
export async function collateralWarningsOf(
  tx: Tx,
  collateralIds: string[],
  today: string,
): Promise<Map<string, CollateralWarnings>> {
  if (collateralIds.length === 0) return new Map();
  const rows = await tx.query<{
    id: string;
    value: bigint;
    valuation_date: string;
    exposure: string;
    max_ltv_percent: string;
    haircut_percent: string;
    revaluation_months: number;
  }>(
    `select c.id, c.value, c.valuation_date::text as valuation_date, t.max_ltv_percent::text, t.haircut_percent::text, t.revaluation_months,
            coalesce((select sum(case when l.status = 'ACTIVE' or l.status = 'OVERPAID'
                                  then (select coalesce(sum(i.principal_due - i.principal_paid - i.principal_written_off), 0)
                                          from loan_installments i where i.tenant_id = l.tenant_id and i.loan_id = l.id)
                                  else l.principal end)
                        from loan_collaterals lc join loans l on l.tenant_id = lc.tenant_id and l.id = lc.loan_id
                       where lc.collateral_id = c.id
                         and l.status in ('SUBMITTED_AND_PENDING_APPROVAL', 'APPROVED', 'ACTIVE', 'OVERPAID')), 0)::text as exposure
       from collaterals c join collateral_types t on t.tenant_id = c.tenant_id and t.code = c.type
      where c.id = any($1::uuid[])`,
    [collateralIds],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      collateralWarnings({
        value: BigInt(r.value),
        exposure: BigInt(r.exposure),
        valuationDate: String(r.valuation_date).slice(0, 10),
        today,
        type: {
          maxLtvPercent: r.max_ltv_percent,
          haircutPercent: r.haircut_percent,
          revaluationMonths: r.revaluation_months,
        },
      }),
    ]),
  );
}
