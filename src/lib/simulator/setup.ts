import type { Tx } from '../db/index.ts';
import { currencyDigits } from '../money/money.ts';
import { DEFAULT_DELINQUENCY_RANGES } from '../schedule/delinquency.ts';
import { createProduct, type ProductRow } from '../lending/products.ts';
import { simulatorCharges } from './features/charges.ts';
import { RECALCULATION_PRODUCT_CODE, recalculationProduct } from './features/recalculation.ts';
import {
  CUMULATIVE_RECALCULATION_PRODUCT_CODE,
  cumulativeRecalculationProduct,
} from './features/cumulative-recalculation.ts';
import { BNPL_PRODUCT_CODE, bnplProduct } from './features/reage.ts';
import { FIXED_LENGTH_PRODUCT_CODE, fixedLengthProduct } from './features/fixed-length.ts';
import { VARIATION_GAPS } from './features/variations.ts';
import { monthlyAnnuityTerms } from './features/product.ts';
import type { DelinquencyBucketSetsRow, HierarchyNodesRow, UsersRow } from '../db/schema.generated.ts';

/**
 * The lender's fixed set-up for a simulation: organisation (branches, officers) taken from the
 * tenant's hierarchy (created when the tenant has none), a maker and a checker user, the products
 * (monthly EMI with variable installments and own installment amounts, weekly flat micro-loan, 90-day
 * bullet, tranches, recalculating progressive EMI, recalculating cumulative EMI with compounding,
 * interest-free "pay in four"), a delinquency bucket set and days off.
 */

export type SimOfficer = { id: string; branchId: string };
export type SimProducts = {
  emi: ProductRow;
  micro: ProductRow;
  bullet: ProductRow;
  /** Multi-disbursement EMI loans paid out in two tranches, with an opening fee and a weekly overdue penalty. */
  tranche: ProductRow;
  /** Progressive EMI loans whose interest is recalculated on every repayment. */
  recalc: ProductRow;
  /** Cumulative EMI loans whose interest is recalculated from daily balances and compounded on due dates. */
  crecalc: ProductRow;
  /** Interest-free "pay in four" loans (progressive, advanced allocation): the ones re-aged. */
  bnpl: ProductRow;
  /** The same "pay in four" with a fixed length of 40 days (the last installment shortened). */
  bnplFixed: ProductRow;
};
export type SimSetup = {
  currency: string;
  digits: number;
  /** 10^digits: minor units per major unit. */
  unit: bigint;
  officers: SimOfficer[];
  makerUserId: string;
  checkerUserId: string;
  products: SimProducts;
};

async function ensureHierarchy(tx: Tx, tenantId: string): Promise<SimOfficer[]> {
  const load = () =>
    tx.query<{ id: string; parent_id: string }>(
      `select o.id, o.parent_id from hierarchy_nodes o join hierarchy_nodes b on b.tenant_id = o.tenant_id and b.id = o.parent_id
        where o.level = 'officer' and b.level = 'branch' order by o.code`,
    );
  let officers = await load();
  if (officers.length === 0) {
    const [region] = await tx.query<Pick<HierarchyNodesRow, 'id'>>(
      `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'region', 'SIM-R1', 'Simulated region') returning id`,
      [tenantId],
    );
    for (let b = 1; b <= 3; b++) {
      const [branch] = await tx.query<Pick<HierarchyNodesRow, 'id'>>(
        `insert into hierarchy_nodes (tenant_id, level, parent_id, code, name) values ($1, 'branch', $2, $3, $4) returning id`,
        [tenantId, region.id, `SIM-B${b}`, `Branch ${b}`],
      );
      for (let o = 1; o <= 2; o++) {
        await tx.query(
          `insert into hierarchy_nodes (tenant_id, level, parent_id, code, name) values ($1, 'officer', $2, $3, $4)`,
          [tenantId, branch.id, `SIM-O${b}${o}`, `Officer ${b}.${o}`],
        );
      }
    }
    officers = await load();
  }
  return officers.map((o) => ({ id: o.id, branchId: o.parent_id }));
}

/** Two distinct staff users: the maker submits applications, the checker approves them. */
async function ensureUsers(tx: Tx, tenantId: string, slug: string): Promise<{ maker: string; checker: string }> {
  const users = await tx.query<Pick<UsersRow, 'id' | 'email'>>(
    `select id, email from users where is_active order by email`,
  );
  const officer = users.find((u) => /officer/i.test(u.email)) ?? users[0];
  const checker =
    users.find((u) => u.id !== officer?.id && /admin|analyst|manager/i.test(u.email)) ??
    users.find((u) => u.id !== officer?.id);
  if (officer && checker) return { maker: officer.id, checker: checker.id };
  // No staff yet: service users without a password (they cannot sign in; they only sign records).
  const make = async (name: string) =>
    (
      await tx.query<Pick<UsersRow, 'id'>>(
        `insert into users (tenant_id, email, display_name, password_hash, is_active) values ($1, $2, $3, null, false)
       on conflict do nothing returning id`,
        [tenantId, `${name}@${slug}.simulator.invalid`, `Simulator ${name}`],
      )
    )[0]?.id ??
    (
      await tx.query<Pick<UsersRow, 'id'>>(`select id from users where lower(email) = lower($1)`, [
        `${name}@${slug}.simulator.invalid`,
      ])
    )[0].id;
  return { maker: officer?.id ?? (await make('maker')), checker: await make('checker') };
}

export async function ensureDaysOff(tx: Tx, tenantId: string, fromYear: number, toYear: number): Promise<void> {
  await tx.query(
    `insert into days_off (tenant_id, kind, name, weekday) values ($1, 'non_working_weekday', 'Sunday', 7) on conflict do nothing`,
    [tenantId],
  );
  for (let year = fromYear; year <= toYear; year++) {
    for (const [md, name] of [
      ['01-01', "New Year's Day"],
      ['05-01', 'Labour Day'],
      ['12-25', 'Christmas Day'],
    ] as const) {
      const day = `${year}-${md}`;
      const exists = await tx.query(`select 1 from days_off where kind = 'holiday' and from_date = $1`, [day]);
      if (exists.length === 0) {
        await tx.query(
          `insert into days_off (tenant_id, kind, name, from_date, to_date) values ($1, 'holiday', $2, $3, $3)`,
          [tenantId, name, day],
        );
      }
    }
  }
}

async function ensureBucketSet(tx: Tx, tenantId: string): Promise<string> {
  const existing = await tx.query<Pick<DelinquencyBucketSetsRow, 'id'>>(
    `select id from delinquency_bucket_sets where name = 'Standard'`,
  );
  if (existing[0]) return existing[0].id;
  const [set] = await tx.query<Pick<DelinquencyBucketSetsRow, 'id'>>(
    `insert into delinquency_bucket_sets (tenant_id, name) values ($1, 'Standard') returning id`,
    [tenantId],
  );
  for (const r of DEFAULT_DELINQUENCY_RANGES) {
    await tx.query(
      `insert into delinquency_ranges (tenant_id, bucket_set_id, classification, min_age_days, max_age_days) values ($1, $2, $3, $4, $5)`,
      [tenantId, set.id, r.name, r.minimumAgeDays, r.maximumAgeDays],
    );
  }
  return set.id;
}

async function ensureProducts(
  tx: Tx,
  tenantId: string,
  currency: string,
  digits: number,
  bucketSetId: string,
): Promise<SimProducts> {
  const unit = 10n ** BigInt(digits);
  const byCode = new Map(
    (
      await tx.query<ProductRow>(`select * from loan_products where code = any($1::text[])`, [
        [
          'SIM-EMI',
          'SIM-MICRO',
          'SIM-BULLET',
          'SIM-TRANCHE',
          RECALCULATION_PRODUCT_CODE,
          CUMULATIVE_RECALCULATION_PRODUCT_CODE,
          BNPL_PRODUCT_CODE,
          FIXED_LENGTH_PRODUCT_CODE,
        ],
      ])
    ).map((p) => [p.code, { ...p, currency: p.currency.trim() }]),
  );
  const get = async (code: string, make: () => Promise<ProductRow>) => byCode.get(code) ?? make();
  const emi = await get('SIM-EMI', () =>
    createProduct(tx, tenantId, {
      code: 'SIM-EMI',
      name: 'Personal loan — monthly EMI',
      currency,
      digitsAfterDecimal: digits,
      minPrincipal: 500n * unit,
      maxPrincipal: 30_000n * unit,
      minRepayments: 3,
      maxRepayments: 36,
      defaultRepayments: 12,
      annualInterestRate: '18',
      ...monthlyAnnuityTerms,
      graceOnArrearsAgeing: 3,
      delinquencyBucketSetId: bucketSetId,
      // A borrower may move an installment or fix its amount before disbursement (features/variations.ts).
      allowVariableInstallments: true,
      ...VARIATION_GAPS,
      // Or ask for their own installment amount (features/fixed-emi.ts).
      allowFixedEmi: true,
      // An opening fee of 1 % of the principal, collected out of the disbursed funds.
      fees: simulatorCharges().fees,
      penalties: [
        {
          code: 'LATE-FEE',
          name: 'Late payment fee',
          kind: 'FLAT',
          amount: String(15n * unit),
          trigger: 'OVERDUE',
          graceDays: 3,
        },
      ],
    }),
  );
  const micro = await get('SIM-MICRO', () =>
    createProduct(tx, tenantId, {
      code: 'SIM-MICRO',
      name: 'Micro-business loan — weekly, flat interest',
      currency,
      digitsAfterDecimal: digits,
      minPrincipal: 100n * unit,
      maxPrincipal: 5_000n * unit,
      minRepayments: 4,
      maxRepayments: 52,
      defaultRepayments: 16,
      annualInterestRate: '24',
      repaymentFrequency: 'WEEKS',
      scheduleType: 'CUMULATIVE',
      interestMethod: 'FLAT',
      amortization: 'EQUAL_INSTALLMENTS',
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
      graceOnArrearsAgeing: 1,
      delinquencyBucketSetId: bucketSetId,
      penalties: [
        {
          code: 'LATE-PCT',
          name: 'Late payment penalty (2 %)',
          kind: 'PERCENT_OF_INSTALLMENT',
          percent: '2',
          trigger: 'OVERDUE',
          graceDays: 1,
        },
      ],
    }),
  );
  const bullet = await get('SIM-BULLET', () =>
    createProduct(tx, tenantId, {
      code: 'SIM-BULLET',
      name: 'Bullet loan — 90 days',
      currency,
      digitsAfterDecimal: digits,
      minPrincipal: 200n * unit,
      maxPrincipal: 10_000n * unit,
      minRepayments: 1,
      maxRepayments: 1,
      defaultRepayments: 1,
      annualInterestRate: '15',
      repaymentEvery: 90,
      repaymentFrequency: 'DAYS',
      scheduleType: 'CUMULATIVE',
      interestMethod: 'DECLINING_BALANCE',
      amortization: 'EQUAL_INSTALLMENTS',
      interestCalculationPeriod: 'DAILY',
      daysInYear: '365',
      graceOnArrearsAgeing: 5,
      delinquencyBucketSetId: bucketSetId,
      penalties: [
        {
          code: 'LATE-BULLET',
          name: 'Late bullet repayment fee',
          kind: 'FLAT',
          amount: String(25n * unit),
          trigger: 'OVERDUE',
          graceDays: 5,
        },
      ],
    }),
  );
  const tranche = await get('SIM-TRANCHE', () =>
    createProduct(tx, tenantId, {
      code: 'SIM-TRANCHE',
      name: 'Home improvement loan — paid out in tranches',
      currency,
      digitsAfterDecimal: digits,
      minPrincipal: 1_000n * unit,
      maxPrincipal: 30_000n * unit,
      minRepayments: 6,
      maxRepayments: 36,
      defaultRepayments: 12,
      annualInterestRate: '16',
      repaymentFrequency: 'MONTHS',
      scheduleType: 'CUMULATIVE',
      interestMethod: 'DECLINING_BALANCE',
      amortization: 'EQUAL_INSTALLMENTS',
      interestCalculationPeriod: 'DAILY',
      graceOnArrearsAgeing: 3,
      delinquencyBucketSetId: bucketSetId,
      multiDisbursement: true,
      maxTranches: 3,
      // An opening fee and a 2 % overdue penalty after 3 days, charged again every week while overdue.
      ...simulatorCharges({ recurEveryWeeks: 1 }),
    }),
  );
  const recalc = await get(RECALCULATION_PRODUCT_CODE, () =>
    createProduct(tx, tenantId, { ...recalculationProduct(currency, digits), delinquencyBucketSetId: bucketSetId }),
  );
  const crecalc = await get(CUMULATIVE_RECALCULATION_PRODUCT_CODE, () =>
    createProduct(tx, tenantId, {
      ...cumulativeRecalculationProduct(currency, digits),
      delinquencyBucketSetId: bucketSetId,
    }),
  );
  const bnpl = await get(BNPL_PRODUCT_CODE, () =>
    createProduct(tx, tenantId, { ...bnplProduct(currency, digits), delinquencyBucketSetId: bucketSetId }),
  );
  const bnplFixed = await get(FIXED_LENGTH_PRODUCT_CODE, () =>
    createProduct(tx, tenantId, { ...fixedLengthProduct(currency, digits), delinquencyBucketSetId: bucketSetId }),
  );
  return { emi, micro, bullet, tranche, recalc, crecalc, bnpl, bnplFixed };
}

export async function prepareLender(
  tx: Tx,
  tenantId: string,
  input: { slug: string; currency: string; fromYear: number; toYear: number },
): Promise<SimSetup> {
  const digits = currencyDigits(input.currency);
  const officers = await ensureHierarchy(tx, tenantId);
  const users = await ensureUsers(tx, tenantId, input.slug);
  const bucketSetId = await ensureBucketSet(tx, tenantId);
  await ensureDaysOff(tx, tenantId, input.fromYear, input.toYear);
  const products = await ensureProducts(tx, tenantId, input.currency, digits, bucketSetId);
  return {
    currency: input.currency,
    digits,
    unit: 10n ** BigInt(digits),
    officers,
    makerUserId: users.maker,
    checkerUserId: users.checker,
    products,
  };
}
