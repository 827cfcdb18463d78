import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import { editApplication } from '#lib/lending/commands/edit-application.ts';
import { approveApplication } from '#lib/lending/commands/approve-application.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { loadApplicationEdit, saveApplicationEdit } from '#lib/lending/application-edit.ts';
import { setDb } from '#lib/db/index.ts';
import { PATCH as patchApplication } from '../../src/pages/v1/applications/[id]/index.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

// Editing a submitted loan application (amount, term, form fields) through editApplication: the
// lifecycle's dry run allows it only while submitted; the pending loan follows; product limits
// hold; audited before/after; the page loader applies data permissions.

describe.each(testDbKinds())('loan application edit on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const ids = { customerA: '', customerB: '' };
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const submit = (customerId: string) =>
    t((tx) =>
      submitApplication(tx, f.maker, {
        customerId,
        productId: f.productId,
        principal: '1000.00',
        numberOfRepayments: 6,
        formData: { purpose: 'shop' },
      }),
    );
  const officer = (over: Partial<Principal> = {}): Principal => ({
    tenantId: f.tenantId,
    userId: f.maker.userId,
    displayName: 'Maker',
    email: 'm@test',
    isAdmin: false,
    authorities: ['loans.offers.request_loan', 'loans.loan_applications.view'],
    dataPermissions: [{ field: 'branch', value: 'EDIT-A' }],
    language: 'en',
    via: 'session',
    sessionId: null,
    passwordChangeRequired: false,
    sessionTimeout: 3600,
    idleTimeout: 900,
    ...over,
  });

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    await t(async (tx) => {
      const [a] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'EDIT-A', 'A') returning id`,
        [f.tenantId],
      );
      const [b] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'EDIT-B', 'B') returning id`,
        [f.tenantId],
      );
      ids.customerA = (await createCustomer(tx, f.admin, { firstName: 'Anna', lastName: 'Alpha', branchId: a.id })).id;
      ids.customerB = (await createCustomer(tx, f.admin, { firstName: 'Bruno', lastName: 'Beta', branchId: b.id })).id;
    });
  });
  afterAll(async () => drop());

  test('a submitted application takes a new amount, term and purpose; its pending loan follows; audited before and after', async () => {
    const { application, loanId } = await submit(ids.customerA);
    const edited = await t((tx) =>
      editApplication(tx, f.maker, loanId, {
        principal: '1500.50',
        numberOfRepayments: 12,
        formData: { purpose: 'stock' },
        expectedVersion: application.version,
      }),
    );
    expect(edited).toMatchObject({
      status: 'submitted',
      principal: 150_050n,
      number_of_repayments: 12,
      form_data: { purpose: 'stock' },
      version: application.version + 1,
    });
    const loan = await t((tx) => getLoanView(tx, loanId));
    expect(loan).toMatchObject({
      status: 'SUBMITTED_AND_PENDING_APPROVAL',
      principal: '1500.50',
      numberOfRepayments: 12,
    });
    const audit = await t((tx) => listAudit(tx, 'loan_application', application.id));
    expect(audit.find((e) => e.action === 'application.edit')).toMatchObject({
      outcome: 'success',
      before: { principal: '100000', numberOfRepayments: 6, formData: { purpose: 'shop' } },
      after: { principal: '150050', numberOfRepayments: 12 },
    });
    // A stale version (someone else saved meanwhile) is a conflict, nothing changes.
    expect(
      (
        await refused(
          t((tx) =>
            editApplication(tx, f.maker, loanId, {
              principal: '900.00',
              numberOfRepayments: 6,
              expectedVersion: application.version,
            }),
          ),
        )
      ).status,
    ).toBe(409);
    // Product limits and amounts to the cent, with the field named.
    expect(
      (await refused(t((tx) => editApplication(tx, f.maker, loanId, { principal: '10.001', numberOfRepayments: 6 }))))
        .field,
    ).toBe('principal');
    expect(
      (await refused(t((tx) => editApplication(tx, f.maker, loanId, { principal: '100.00', numberOfRepayments: 99 }))))
        .field,
    ).toBe('numberOfRepayments');
    expect(await t((tx) => getLoanView(tx, loanId))).toMatchObject({ principal: '1500.50', numberOfRepayments: 12 });
  });

  test('refused once decided (the lifecycle says no), and the decided amount stays', async () => {
    const { application, loanId } = await submit(ids.customerA);
    await t((tx) => approveApplication(tx, f.checker, application.id));
    const error = await refused(
      t((tx) => editApplication(tx, f.maker, loanId, { principal: '900.00', numberOfRepayments: 6 })),
    );
    expect(error).toMatchObject({ status: 409, details: { reason: 'wrong_state' } });
    expect(await t((tx) => getLoanView(tx, loanId))).toMatchObject({ status: 'APPROVED', principal: '1000.00' });
    const page = await loadApplicationEdit(db, officer(), ids.customerA, loanId);
    expect(page).toMatchObject({ canEdit: false, application: { status: 'approved' } });
  });

  test("the page's loader and save apply data permissions: another branch's customer, or a loan not the customer's, is a 404", async () => {
    const mine = await submit(ids.customerA);
    const theirs = await submit(ids.customerB);
    const page = await loadApplicationEdit(db, officer(), ids.customerA, mine.loanId);
    expect(page).toMatchObject({
      canEdit: true,
      application: { principal: '1000.00', numberOfRepayments: 6, formData: { purpose: 'shop' } },
      product: { minPrincipal: '10.00' },
    });
    expect((await refused(loadApplicationEdit(db, officer(), ids.customerB, theirs.loanId))).status).toBe(404);
    expect((await refused(loadApplicationEdit(db, officer(), ids.customerA, theirs.loanId))).status).toBe(404);
    expect((await refused(loadApplicationEdit(db, officer(), ids.customerA, 'nope'))).status).toBe(404);
    const input = {
      principal: '700.00',
      numberOfRepayments: '3',
      expectedVersion: String(mine.application.version),
      fields: { purpose: ' repairs ', injected: 'x' },
    };
    expect((await refused(saveApplicationEdit(db, officer(), ids.customerB, theirs.loanId, input))).status).toBe(404);
    const saved = await saveApplicationEdit(db, officer(), ids.customerA, mine.loanId, input);
    expect(saved).toMatchObject({ principal: 70_000n, number_of_repayments: 3, form_data: { purpose: 'repairs' } });
    expect(saved.form_data).not.toHaveProperty('injected');
    expect(
      (
        await refused(
          saveApplicationEdit(db, officer(), ids.customerA, mine.loanId, {
            ...input,
            numberOfRepayments: 'two',
            expectedVersion: '',
          }),
        )
      ).field,
    ).toBe('numberOfRepayments');
  });

  test('PATCH /v1/applications/{id}: own branch edits, another branch is a 404, a decided one a 409', async () => {
    const patch = async (id: string, body: unknown, who = officer()) => {
      const request = new Request(`http://localhost/v1/applications/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const response = await patchApplication({
        request,
        params: { id },
        locals: { principal: who, requestId: 'test' },
        clientAddress: '127.0.0.1',
      } as never);
      return { status: response.status, body: JSON.parse(await response.text()) };
    };
    const mine = await submit(ids.customerA);
    const theirs = await submit(ids.customerB);
    expect(
      await patch(mine.application.id, { principal: '250.00', numberOfRepayments: 4, formData: { purpose: 'tools' } }),
    ).toMatchObject({
      status: 200,
      body: { principal: '250.00', numberOfRepayments: 4, formData: { purpose: 'tools' }, status: 'submitted' },
    });
    expect((await patch(theirs.application.id, { principal: '250.00', numberOfRepayments: 4 })).status).toBe(404);
    expect((await patch(mine.application.id, { principal: '250.001', numberOfRepayments: 4 })).body).toMatchObject({
      error: { field: 'principal' },
    });
    await t((tx) => approveApplication(tx, f.checker, mine.application.id));
    expect(await patch(mine.application.id, { principal: '300.00', numberOfRepayments: 4 })).toMatchObject({
      status: 409,
      body: { error: { reason: 'wrong_state' } },
    });
  });
});
