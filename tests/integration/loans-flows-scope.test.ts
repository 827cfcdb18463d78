import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { createOffer } from '#lib/lending/offers.ts';
import { loadLoanPage, loadOfferPage, loanActionsFor } from '#lib/offers-ui/pages.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

// The profile offer and loan pages read through the same data permissions as the lists: an
// officer of branch A gets a 404 for branch B's customer, offer or loan, even with the right URL.

const principalOf = (f: LendingFixture, over: Partial<Principal>): Principal => ({
  tenantId: f.tenantId,
  userId: 'officer-a',
  displayName: 'Officer A',
  email: 'a@test',
  isAdmin: false,
  authorities: ['loans.offers.view', 'loans.offers.notify', 'loans.loans.view', 'loans.loans.repay'],
  dataPermissions: [{ field: 'branch', value: 'BR-A' }],
  language: 'en',
  via: 'session',
  sessionId: null,
  passwordChangeRequired: false,
  sessionTimeout: 3600,
  idleTimeout: 900,
  ...over,
});

async function status(run: Promise<unknown>): Promise<number> {
  try {
    await run;
    return 200;
  } catch (error) {
    if (error instanceof AppError) return error.status;
    throw error;
  }
}

describe.each(testDbKinds())('profile offer and loan pages honour data permissions on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const ids = { customerA: '', customerB: '', offerA: '', offerB: '', loanA: '', loanB: '' };

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    await db.tenant(f.tenantId, async (tx) => {
      const [a] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'BR-A', 'A') returning id`,
        [f.tenantId],
      );
      const [b] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'BR-B', 'B') returning id`,
        [f.tenantId],
      );
      ids.customerA = (await createCustomer(tx, f.maker, { firstName: 'Anna', lastName: 'Alpha', branchId: a.id })).id;
      ids.customerB = (await createCustomer(tx, f.maker, { firstName: 'Bruno', lastName: 'Beta', branchId: b.id })).id;
      for (const [key, customerId] of [
        ['offerA', ids.customerA],
        ['offerB', ids.customerB],
      ] as const) {
        ids[key] = (
          await createOffer(tx, f.maker, {
            customerId,
            productId: f.productId,
            principal: '900.00',
            numberOfRepayments: 6,
            expiresOn: '2026-02-15',
          })
        ).id;
      }
    });
    ids.loanA = (await f.disbursedLoan({ customerId: ids.customerA })).loanId;
    ids.loanB = (await f.disbursedLoan({ customerId: ids.customerB })).loanId;
  });
  afterAll(async () => drop());

  test('own branch opens; another branch is a 404 for offer and loan alike', async () => {
    const officer = principalOf(f, {});
    const offer = await loadOfferPage(db, officer, ids.customerA, ids.offerA);
    expect(offer.offer).toMatchObject({ status: 'to_propose', principal: '900.00' });
    expect(offer.limits).toEqual({
      currency: 'USD',
      minPrincipal: '10.00',
      maxPrincipal: '1000000.00',
      minRepayments: 1,
      maxRepayments: 36,
    });
    expect(await status(loadOfferPage(db, officer, ids.customerB, ids.offerB))).toBe(404);
    // Right customer, someone else's offer: also a 404.
    expect(await status(loadOfferPage(db, officer, ids.customerA, ids.offerB))).toBe(404);
    expect(await status(loadLoanPage(db, officer, ids.customerB, ids.loanB))).toBe(404);
    expect(await status(loadLoanPage(db, officer, ids.customerA, ids.loanB))).toBe(404);
    expect(await status(loadOfferPage(db, officer, ids.customerA, 'not-a-uuid'))).toBe(404);
  });

  test('loan actions need the permission AND the lifecycle; reversal and write-off are for administrators', async () => {
    const officer = principalOf(f, {});
    const page = await loadLoanPage(db, officer, ids.customerA, ids.loanA);
    expect(page.loan.status).toBe('ACTIVE');
    expect(loanActionsFor(page, officer).can).toEqual({
      transfer: false,
      repay: true,
      writeOff: false,
      reverse: false,
      // Issue 17's actions: re-ageing needs an administrator and an eligible (0 %, progressive) loan;
      // editing installments is before the transfer only.
      reAge: false,
      reAmortize: false,
      undoReAge: false,
      undoReAmortize: false,
      vary: false,
      // Charging and waiving are for administrators too.
      charge: false,
      waive: false,
    });
    const admin = principalOf(f, { isAdmin: true, dataPermissions: [] });
    expect(loanActionsFor(await loadLoanPage(db, admin, ids.customerB, ids.loanB), admin).can).toEqual({
      transfer: false,
      repay: true,
      writeOff: true,
      reverse: false,
      // A 12 % cumulative loan: not one re-ageing applies to; nothing to undo; already transferred.
      reAge: false,
      reAmortize: false,
      undoReAge: false,
      undoReAmortize: false,
      vary: false,
      // An active loan with interest owed: a charge may be added and the interest waived.
      charge: true,
      waive: true,
    });
    expect(loanActionsFor(await loadLoanPage(db, admin, ids.customerB, ids.loanB), admin).waiveKinds).toEqual([
      'interest',
    ]);
    expect(loanActionsFor(page, officer).suggestedAmount).toBe(page.loan.installments[0].outstanding.total);
  });
});
