import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import type { Actor } from '#lib/lending/actor.ts';
import {
  addMonths,
  collateralWarnings,
  collateralWarningsOf,
  createCollateralTypeCommand,
  listCollateralTypes,
  updateCollateralTypeCommand,
} from '#lib/lending/collateral-types.ts';
import { createCollateral, linkCollateral } from '#lib/lending/collaterals.ts';
import { updateCollateral } from '#lib/customer-analytics/collaterals.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

const type = { maxLtvPercent: '80', haircutPercent: '20', revaluationMonths: 12 };
const warn = (value: bigint, exposure: bigint, valuationDate = '2026-01-01', t = type) =>
  collateralWarnings({ value, exposure, valuationDate, today: '2026-06-01', type: t });

describe('collateral warnings (pure)', () => {
  it('computes LTV on the value after the haircut, exactly', () => {
    // 10,000 × (1 − 20 %) = 8,000; 6,400 / 8,000 = 80 % — at the maximum, not above.
    expect(warn(1_000_000n, 640_000n)).toMatchObject({ ltvPercent: '80.00', overLtv: false });
    expect(warn(1_000_000n, 640_001n)).toMatchObject({ ltvPercent: '80.00', overLtv: true });
    expect(warn(1_000_000n, 100_000n)).toMatchObject({ ltvPercent: '12.50', overLtv: false });
  });
  it('no loans: no LTV and no LTV warning; zero value or a 100 % haircut with a loan: above the maximum', () => {
    expect(warn(1_000_000n, 0n)).toMatchObject({ ltvPercent: null, overLtv: false });
    expect(warn(0n, 0n)).toMatchObject({ ltvPercent: null, overLtv: false });
    expect(warn(0n, 1n)).toMatchObject({ ltvPercent: null, overLtv: true });
    expect(warn(1_000_000n, 1n, '2026-01-01', { ...type, haircutPercent: '100' })).toMatchObject({
      ltvPercent: null,
      overLtv: true,
    });
  });
  it('revaluation is due once the valuation is as old as the frequency', () => {
    expect(warn(1n, 0n, '2025-06-01')).toMatchObject({ revaluationDue: true, revaluationDueOn: '2026-06-01' });
    expect(warn(1n, 0n, '2025-06-02')).toMatchObject({ revaluationDue: false });
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonths('2024-12-15', 14)).toBe('2026-02-15');
  });
});

async function refusal(promise: Promise<unknown>): Promise<{ status: number; field?: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, field: error.field };
    if ((error as { name?: string }).name === 'ZodError')
      return { status: 400, field: String((error as { issues: { path: PropertyKey[] }[] }).issues[0].path[0]) };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(testDbKinds())('collateral types on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const run = <I, O>(actor: Actor, command: Command<I, O>, input: unknown, isAdmin = true) =>
    runCommand({ db, actor, permissionSubject: { isAdmin, authorities: [] } }, command, () => input);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db);
  });
  afterAll(async () => drop());

  it('every tenant starts with the default types; admins add, change and deactivate them, audited', async () => {
    const codes = (await db.tenant(f.tenantId, (tx) => listCollateralTypes(tx))).map((t) => t.code).sort();
    expect(codes).toEqual(['deposit', 'equipment', 'guarantee', 'other', 'real_estate', 'vehicle']);
    const input = {
      code: 'livestock',
      nameEn: 'Livestock',
      nameFr: 'Bétail',
      maxLtvPercent: '50',
      haircutPercent: '30',
      revaluationMonths: 6,
    };
    expect((await refusal(run(f.maker, createCollateralTypeCommand, input, false))).status).toBe(403);
    for (const [change, field] of [
      [{ code: 'Bad Code' }, 'code'],
      [{ maxLtvPercent: '0' }, 'maxLtvPercent'],
      [{ haircutPercent: '101' }, 'haircutPercent'],
      [{ revaluationMonths: 0 }, 'revaluationMonths'],
      [{ nameFr: '' }, 'nameFr'],
    ] as const) {
      expect(await refusal(run(f.admin, createCollateralTypeCommand, { ...input, ...change }))).toEqual({
        status: 400,
        field,
      });
    }
    const created = await run(f.admin, createCollateralTypeCommand, input);
    expect(created).toMatchObject({ code: 'livestock', maxLtvPercent: '50', isActive: true, version: 1 });
    expect((await refusal(run(f.admin, createCollateralTypeCommand, input))).status).toBe(409);
    const changed = await run(f.admin, updateCollateralTypeCommand, {
      code: 'livestock',
      expectedVersion: 1,
      maxLtvPercent: '45',
    });
    expect(changed).toMatchObject({ maxLtvPercent: '45', version: 2 });
    expect(
      (await refusal(run(f.admin, updateCollateralTypeCommand, { code: 'livestock', expectedVersion: 1 }))).status,
    ).toBe(409);
    expect((await refusal(run(f.admin, updateCollateralTypeCommand, { code: 'nothing', active: false }))).status).toBe(
      404,
    );
    await run(f.admin, updateCollateralTypeCommand, { code: 'livestock', active: false });
    const audit = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'collateral_type', 'livestock'));
    const update = audit.find(
      (a) => a.action === 'collateral_type.update' && (a.before as { maxLtvPercent: string }).maxLtvPercent === '50',
    );
    expect((update?.after as { maxLtvPercent: string }).maxLtvPercent).toBe('45');
  });

  it('a collateral takes only an active configured type; an edit may keep its now inactive type', async () => {
    const make = (type: string) =>
      db.tenant(f.tenantId, (tx) =>
        createCollateral(tx, f.maker, {
          customerId: f.customerId,
          type,
          currency: 'USD',
          value: '1000.00',
          valuationDate: '2026-01-10',
        }),
      );
    expect(await refusal(make('spaceship'))).toEqual({ status: 400, field: 'type' });
    expect(await refusal(make('livestock'))).toEqual({ status: 400, field: 'type' }); // deactivated above
    const car = await make('vehicle');
    await run(f.admin, updateCollateralTypeCommand, { code: 'vehicle', active: false });
    const edit = (type: string) =>
      db.tenant(f.tenantId, (tx) =>
        updateCollateral(
          tx,
          f.maker,
          car.id,
          { type, description: 'car', value: '900.00', valuationDate: '2026-01-10' },
          '2026-01-15',
        ),
      );
    await edit('vehicle');
    expect(await refusal(edit('livestock'))).toEqual({ status: 400, field: 'type' });
    await run(f.admin, updateCollateralTypeCommand, { code: 'vehicle', active: true });
  });

  it('warns when the loans a collateral secures are above the type’s LTV, and when its valuation is too old', async () => {
    const { loanId } = await f.approvedLoan({ principal: '1200.00' });
    const collateral = await db.tenant(f.tenantId, (tx) =>
      createCollateral(tx, f.maker, {
        customerId: f.customerId,
        type: 'vehicle',
        currency: 'USD',
        value: '2000.00',
        valuationDate: '2025-01-10',
      }),
    );
    const warningsOn = async () =>
      (await db.tenant(f.tenantId, (tx) => collateralWarningsOf(tx, [collateral.id], '2026-01-15'))).get(collateral.id);
    // No loan yet: no LTV, but the valuation is more than 12 months old.
    expect(await warningsOn()).toMatchObject({ ltvPercent: null, overLtv: false, revaluationDue: true });
    await db.tenant(f.tenantId, (tx) => linkCollateral(tx, f.maker, loanId, collateral.id));
    // Before disbursement the principal counts: 1,200 / (2,000 × 80 %) = 75 % > 70 % (vehicle default).
    expect(await warningsOn()).toMatchObject({ ltvPercent: '75.00', overLtv: true, maxLtvPercent: '70' });
    await run(f.admin, updateCollateralTypeCommand, { code: 'vehicle', maxLtvPercent: '80', haircutPercent: '20' });
    expect(await warningsOn()).toMatchObject({ ltvPercent: '75.00', overLtv: false });
  });
});
