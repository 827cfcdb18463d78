import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { AppError } from '#lib/errors/app-error.ts';
import type { Actor } from '#lib/lending/actor.ts';
import {
  assertPlacementInScope,
  assertScopeParamInScope,
  isInScope,
  SCOPED_KINDS,
  type ScopedKind,
} from '#lib/auth/data-permissions.ts';
import { createCustomer, setCustomerOptIn, setCustomerRiskClass } from '#lib/lending/customers.ts';
import { createOffer, notifyOffer, rejectOffer, requestOfferLoan } from '#lib/lending/offers.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import { approveApplication } from '#lib/lending/commands/approve-application.ts';
import { withdrawApplication } from '#lib/lending/commands/withdraw-application.ts';
import { editApplicationById } from '#lib/lending/commands/edit-application.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { writeOffLoan } from '#lib/lending/commands/write-off-loan.ts';
import { createCollateral, linkCollateral } from '#lib/lending/collaterals.ts';
import { deleteCollateral, updateCollateral } from '#lib/customer-analytics/collaterals.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

// Data permissions on writes (src/lib/auth/data-permissions.ts): a user limited to branch A acts on
// branch A's objects as before, while branch B's objects do not exist for them (404, like a missing
// id) and fields placing something in branch B are refused (403 naming the field, in their
// language). Every refusal leaves the database exactly as it was.

type Refusal = { status: number; field?: string; message: string };

async function outcome(run: Promise<unknown>): Promise<Refusal | 'ok'> {
  try {
    await run;
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, field: error.field, message: error.message };
    throw error;
  }
}

/** A picture of everything a write could touch, to compare before and after a refused command. */
async function snapshot(tx: Tx): Promise<string> {
  const tables = [
    'customers',
    'offers',
    'loan_applications',
    'loans',
    'loan_transactions',
    'collaterals',
    'loan_collaterals',
    'customer_opt_in_history',
    'journal_entries',
  ];
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await tx.query<{ digest: string }>(
      `select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from ${table} t`,
    );
    parts.push(`${table}:${rows[0].digest}`);
  }
  return parts.join('\n');
}

describe.each(testDbKinds())('data permissions on writes on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let officer: Actor;
  const ids = {
    branchA: '',
    branchB: '',
    officerNodeB: '',
    customerA: '',
    customerB: '',
    offerA: '',
    offerB: '',
    offerB2: '',
    loanA: '',
    loanB: '',
    pendingB: '',
    pendingAppB: '',
    collateralA: '',
    collateralB: '',
    transactionB: '',
  };
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    officer = { ...f.maker, dataPermissions: [{ field: 'branch', value: 'BR-A' }], language: 'en-US' };
    await t(async (tx) => {
      const node = async (level: string, code: string, parent: string | null = null) =>
        (
          await tx.query<{ id: string }>(
            `insert into hierarchy_nodes (tenant_id, level, code, name, parent_id) values ($1, $2, $3, $3, $4) returning id`,
            [f.tenantId, level, code, parent],
          )
        )[0].id;
      ids.branchA = await node('branch', 'BR-A');
      ids.branchB = await node('branch', 'BR-B');
      ids.officerNodeB = await node('officer', 'OF-B', ids.branchB);
      ids.customerA = (
        await createCustomer(tx, f.admin, { firstName: 'Anna', lastName: 'Alpha', branchId: ids.branchA })
      ).id;
      ids.customerB = (
        await createCustomer(tx, f.admin, { firstName: 'Bruno', lastName: 'Beta', branchId: ids.branchB })
      ).id;
      const offer = (customerId: string) =>
        createOffer(tx, f.admin, {
          customerId,
          productId: f.productId,
          principal: '900.00',
          numberOfRepayments: 6,
          expiresOn: '2026-02-15',
        });
      ids.offerA = (await offer(ids.customerA)).id;
      ids.offerB = (await offer(ids.customerB)).id;
      ids.offerB2 = (await offer(ids.customerB)).id;
      ids.collateralA = (
        await createCollateral(tx, f.admin, {
          customerId: ids.customerA,
          type: 'vehicle',
          currency: f.currency,
          value: '5000.00',
          valuationDate: '2026-01-10',
        })
      ).id;
      ids.collateralB = (
        await createCollateral(tx, f.admin, {
          customerId: ids.customerB,
          type: 'vehicle',
          currency: f.currency,
          value: '5000.00',
          valuationDate: '2026-01-10',
        })
      ).id;
    });
    ids.loanA = (await f.disbursedLoan({ customerId: ids.customerA })).loanId;
    ids.loanB = (await f.disbursedLoan({ customerId: ids.customerB })).loanId;
    const pending = await t((tx) =>
      submitApplication(tx, f.admin, {
        customerId: ids.customerB,
        productId: f.productId,
        principal: '700.00',
        numberOfRepayments: 6,
      }),
    );
    ids.pendingB = pending.loanId;
    ids.pendingAppB = pending.application.id;
    ids.transactionB = (
      await t((tx) =>
        tx.query<{ id: string }>(`select id from loan_transactions where loan_id = $1 limit 1`, [ids.loanB]),
      )
    )[0].id;
  });
  afterAll(async () => drop());

  test('the mechanism: every kind of object is in scope through its customer (and a loan through its officer); unknown ids are not', async () => {
    const inA: Record<ScopedKind, string> = {
      customer: ids.customerA,
      loan: ids.loanA,
      offer: ids.offerA,
      application: '',
      collateral: ids.collateralA,
      customer_file: '',
      loan_transaction: '',
    };
    const inB: Record<ScopedKind, string> = {
      customer: ids.customerB,
      loan: ids.loanB,
      offer: ids.offerB,
      application: ids.pendingAppB,
      collateral: ids.collateralB,
      customer_file: '',
      loan_transaction: ids.transactionB,
    };
    await t(async (tx) => {
      for (const kind of SCOPED_KINDS) {
        if (inA[kind]) expect(await isInScope(tx, officer, kind, inA[kind]), kind).toBe(true);
        if (inB[kind]) {
          expect(await isInScope(tx, officer, kind, inB[kind]), kind).toBe(false);
          expect(await isInScope(tx, f.admin, kind, inB[kind]), kind).toBe(true);
          // A system actor (no data permissions) and an administrator are unrestricted.
          expect(await isInScope(tx, { isAdmin: false }, kind, inB[kind]), kind).toBe(true);
        }
        for (const bogus of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', "' or 1=1 --", '']) {
          expect(await isInScope(tx, f.admin, kind, bogus), `${kind} ${bogus}`).toBe(false);
        }
      }
      // A data permission naming a code that does not exist allows nothing (fail closed).
      expect(
        await isInScope(
          tx,
          { isAdmin: false, dataPermissions: [{ field: 'branch', value: 'NOPE' }] },
          'customer',
          ids.customerA,
        ),
      ).toBe(false);
    });
  });

  test('objects of another branch answer 404 to every command, exactly like missing ones, and nothing changes', async () => {
    const before = await t(snapshot);
    const refusedCommands: [string, (tx: Tx) => Promise<unknown>][] = [
      ['opt out', (tx) => setCustomerOptIn(tx, officer, ids.customerB, 'opted_out', 'probe')],
      ['opt in', (tx) => setCustomerOptIn(tx, officer, ids.customerB, 'opted_in', 'probe')],
      ['risk class', (tx) => setCustomerRiskClass(tx, officer, ids.customerB, 'D', 'probe')],
      ['notify offer', (tx) => notifyOffer(tx, officer, ids.offerB, { Channel: 'Message' })],
      ['reject offer', (tx) => rejectOffer(tx, officer, ids.offerB, 'probe')],
      ['request offer loan', (tx) => requestOfferLoan(tx, officer, ids.offerB2)],
      [
        'approve',
        (tx) => approveApplication(tx, { ...f.checker, dataPermissions: officer.dataPermissions }, ids.pendingAppB),
      ],
      ['withdraw', (tx) => withdrawApplication(tx, officer, ids.pendingAppB)],
      [
        'edit',
        (tx) => editApplicationById(tx, officer, ids.pendingAppB, { principal: '800.00', numberOfRepayments: 6 }),
      ],
      ['repay', (tx) => repayLoan(tx, officer, { loanId: ids.loanB, amount: '10.00' })],
      ['write off', (tx) => writeOffLoan(tx, { ...officer, isAdmin: false }, { loanId: ids.loanB })],
      [
        'update collateral',
        (tx) =>
          updateCollateral(
            tx,
            officer,
            ids.collateralB,
            { type: 'vehicle', description: 'x', value: '1.00', valuationDate: '2026-01-10' },
            '2026-01-15',
          ),
      ],
      ['delete collateral', (tx) => deleteCollateral(tx, officer, ids.collateralB)],
      ['link collateral', (tx) => linkCollateral(tx, officer, ids.loanB, ids.collateralB)],
    ];
    for (const [name, run] of refusedCommands) {
      const got = await outcome(t(run));
      expect(got, name).toMatchObject({ status: 404 });
      // The same answer as for an id that does not exist: nothing to probe.
      const missing = (got as Refusal).message;
      expect(missing, name).toMatch(/not found/);
      expect(JSON.stringify(got), name).not.toContain('Bruno');
    }
    expect(await t(snapshot)).toBe(before);
  });

  test("placement fields outside the scope are 403 naming the field, in the caller's language; nothing is created", async () => {
    const before = await t(snapshot);
    const cases: [string, (tx: Tx, actor: Actor) => Promise<unknown>, string][] = [
      [
        'customer in branch B',
        (tx, a) => createCustomer(tx, a, { firstName: 'X', lastName: 'Y', branchId: ids.branchB }),
        'branchId',
      ],
      [
        'customer with officer of B',
        (tx, a) =>
          createCustomer(tx, a, { firstName: 'X', lastName: 'Y', branchId: ids.branchA, officerId: ids.officerNodeB }),
        'officerId',
      ],
      [
        'customer in an unknown branch',
        (tx, a) =>
          createCustomer(tx, a, { firstName: 'X', lastName: 'Y', branchId: '00000000-0000-4000-8000-000000000000' }),
        'branchId',
      ],
      ['customer placed nowhere', (tx, a) => createCustomer(tx, a, { firstName: 'X', lastName: 'Y' }), 'branchId'],
      [
        'application for B',
        (tx, a) =>
          submitApplication(tx, a, {
            customerId: ids.customerB,
            productId: f.productId,
            principal: '500.00',
            numberOfRepayments: 6,
          }),
        'customerId',
      ],
      [
        'application for nobody',
        (tx, a) =>
          submitApplication(tx, a, {
            customerId: '00000000-0000-4000-8000-000000000000',
            productId: f.productId,
            principal: '500.00',
            numberOfRepayments: 6,
          }),
        'customerId',
      ],
      [
        'offer for B',
        (tx, a) =>
          createOffer(tx, a, {
            customerId: ids.customerB,
            productId: f.productId,
            principal: '500.00',
            numberOfRepayments: 6,
            expiresOn: '2026-02-15',
          }),
        'customerId',
      ],
      [
        'collateral for B',
        (tx, a) =>
          createCollateral(tx, a, {
            customerId: ids.customerB,
            type: 'vehicle',
            currency: f.currency,
            value: '1.00',
            valuationDate: '2026-01-10',
          }),
        'customerId',
      ],
    ];
    for (const [name, run, field] of cases) {
      const en = await outcome(t((tx) => run(tx, officer)));
      expect(en, name).toMatchObject({ status: 403, field });
      expect((en as Refusal).message, name).toContain(field);
      expect((en as Refusal).message, name).toMatch(/data permissions/);
      const fr = await outcome(t((tx) => run(tx, { ...officer, language: 'fr-FR' })));
      expect(fr, name).toMatchObject({ status: 403, field });
      expect((fr as Refusal).message, name).toMatch(/permissions de données/);
    }
    expect(await t(snapshot)).toBe(before);
  });

  test('inside the branch the officer does everything as before; administrators are unaffected', async () => {
    await t(async (tx) => {
      const created = await createCustomer(tx, officer, { firstName: 'Cleo', lastName: 'Own', branchId: ids.branchA });
      expect(created.branch_id).toBe(ids.branchA);
      expect((await setCustomerOptIn(tx, officer, ids.customerA, 'opted_out', 'asked')).opt_in_status).toBe(
        'opted_out',
      );
      await submitApplication(tx, officer, {
        customerId: ids.customerA,
        productId: f.productId,
        principal: '500.00',
        numberOfRepayments: 6,
      });
      await createCollateral(tx, officer, {
        customerId: ids.customerA,
        type: 'vehicle',
        currency: f.currency,
        value: '1.00',
        valuationDate: '2026-01-10',
      });
      await repayLoan(tx, officer, { loanId: ids.loanA, amount: '10.00' });
      await linkCollateral(tx, officer, ids.loanA, ids.collateralA);
      await assertScopeParamInScope(tx, officer, { hierarchy_level: 'branch', hierarchy_id: 'BR-A' });
      // The administrator places anywhere and acts on any branch.
      expect(
        (await createCustomer(tx, f.admin, { firstName: 'Dan', lastName: 'Else', branchId: ids.branchB })).branch_id,
      ).toBe(ids.branchB);
      expect((await setCustomerRiskClass(tx, f.admin, ids.customerB, 'B', 'review')).risk_class).toBe('B');
      await assertPlacementInScope(tx, f.admin, {
        branchId: ids.branchB,
        officerId: ids.officerNodeB,
        customerId: ids.customerB,
      });
    });
    // An unknown node is a 400 for an unrestricted caller (nothing to hide), a 403 for a restricted one.
    expect(await outcome(t((tx) => assertPlacementInScope(tx, f.admin, { branchId: ids.officerNodeB })))).toMatchObject(
      { status: 400, field: 'branchId' },
    );
    expect(await outcome(t((tx) => assertPlacementInScope(tx, officer, { regionId: ids.branchA })))).toMatchObject({
      status: 403,
      field: 'regionId',
    });
  });

  test('a list export scoped to another branch is refused on the field scope', async () => {
    for (const id of ['BR-B', ids.branchB, 'NO-SUCH', '00000000-0000-4000-8000-000000000000']) {
      expect(
        await outcome(t((tx) => assertScopeParamInScope(tx, officer, { hierarchy_level: 'branch', hierarchy_id: id }))),
        id,
      ).toMatchObject({ status: 403, field: 'scope' });
    }
    expect(
      await outcome(
        t((tx) => assertScopeParamInScope(tx, officer, { hierarchy_level: 'officer', hierarchy_id: 'OF-B' })),
      ),
    ).toMatchObject({ status: 403 });
    expect(
      await outcome(
        t((tx) => assertScopeParamInScope(tx, f.admin, { hierarchy_level: 'branch', hierarchy_id: 'BR-B' })),
      ),
    ).toBe('ok');
  });
});
