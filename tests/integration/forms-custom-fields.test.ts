import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { formOf } from '#lib/forms/build.ts';
import { saveCustomFieldForm } from '#lib/forms/store.ts';
import { updateCustomerCustomFields } from '#lib/forms/custom-field-commands.ts';
import { addCustomerCommand } from '#lib/customer-analytics/intake.ts';
import { createCollateralCommand, updateCollateralCommand } from '#lib/lending/collateral-commands.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import { customerJson, getCustomer } from '#lib/lending/customers.ts';
import { LISTS } from '#lib/lists/registry.ts';
import { serveList } from '#lib/lists/serve.ts';
import { withCustomColumns } from '#lib/lists/custom-columns.ts';
import { parseListState } from '#lib/lists/url-state.ts';
import { writeListExport } from '#lib/exports/write-list-export.ts';
import { getT } from '#lib/i18n/index.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

const XSS = '<img src=x onerror=alert(1)>';
const customerForm = formOf([
  {
    id: 'extra',
    title: { en: 'Extra' },
    fields: [
      { name: 'employer', widget: 'text', label: { en: `Employer ${XSS}`, fr: 'Employeur' }, required: true },
      {
        name: 'housing',
        widget: 'select',
        label: { en: 'Housing', fr: 'Logement' },
        ui: {
          options: [
            { value: 'owner', label: { en: 'Owner', fr: 'Propriétaire' } },
            { value: 'tenant', label: { en: 'Tenant', fr: 'Locataire' } },
          ],
        },
      },
    ],
  },
]);
const otherTenantForm = formOf([
  {
    id: 'extra',
    title: { en: 'Extra' },
    fields: [{ name: 'nickname', widget: 'text', label: { en: 'Nickname' }, required: true }],
  },
]);
const collateralForm = formOf([
  {
    id: 'extra',
    title: { en: 'Extra' },
    fields: [{ name: 'plate', widget: 'text', label: { en: 'Registration number' } }],
  },
]);

async function refusal(promise: Promise<unknown>): Promise<{ status: number; field?: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, field: error.field };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(testDbKinds())('customized fields on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let a: LendingFixture;
  let b: LendingFixture;
  const run = <I, O>(actor: Actor, command: Command<I, O>, input: unknown) =>
    runCommand({ db, actor, permissionSubject: { isAdmin: true, authorities: [] } }, command, () => input);
  const newCustomer = (patch: Record<string, unknown>) => ({
    firstName: 'Ada',
    lastName: 'Lovelace',
    nationalId: '',
    phone: `+33 6 ${Math.floor(Math.random() * 1e8)}`,
    email: '',
    dateOfBirth: '',
    segment: '',
    isOptedOut: false,
    optOutReason: '',
    isDuplicateConfirmed: true,
    ...patch,
  });
  const viewer = (f: LendingFixture) => ({
    tenantId: f.tenantId,
    userId: '00000000-0000-4000-8000-000000000001',
    isAdmin: true,
    dataPermissions: [],
    currency: f.currency,
    language: 'en',
  });

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    a = await createLendingFixture(db);
    b = await createLendingFixture(db);
    await db.tenant(a.tenantId, async (tx) => {
      await saveCustomFieldForm(tx, a.admin, 'customer', customerForm, null);
      await saveCustomFieldForm(tx, a.admin, 'collateral', collateralForm, null);
    });
    await db.tenant(b.tenantId, (tx) => saveCustomFieldForm(tx, b.admin, 'customer', otherTenantForm, null));
  });
  afterAll(async () => drop());

  it('checks and stores a customer’s fields; another tenant’s form never applies', async () => {
    expect(await refusal(run(a.admin, addCustomerCommand, newCustomer({ customFields: {} })))).toEqual({
      status: 400,
      field: 'customFields.employer',
    });
    expect(
      await refusal(
        run(a.admin, addCustomerCommand, newCustomer({ customFields: { employer: 'X', housing: 'castle' } })),
      ),
    ).toEqual({ status: 400, field: 'customFields.housing' });
    const created = (await run(
      a.admin,
      addCustomerCommand,
      newCustomer({
        lastName: 'Zebulon',
        customFields: { employer: `Quokka ${XSS}`, housing: 'owner', nickname: 'x' },
      }),
    )) as { kind: 'created'; customer: { id: string } };
    expect(created.kind).toBe('created');
    const stored = await db.tenant(a.tenantId, (tx) => getCustomer(tx, created.customer.id));
    // The other tenant's field is not stored; the value is kept as typed (pages escape it).
    expect(customerJson(stored).customFields).toEqual({ employer: `Quokka ${XSS}`, housing: 'owner' });
    // Tenant B requires its own field, not A's.
    expect(await refusal(run(b.admin, addCustomerCommand, newCustomer({ customFields: { employer: 'X' } })))).toEqual({
      status: 400,
      field: 'customFields.nickname',
    });
  });

  it('an edit keeps removed fields’ values and lets an old row stay empty in a field made required later', async () => {
    const id = a.customerId; // created before the form: no values
    const edited = await db.tenant(a.tenantId, (tx) =>
      updateCustomerCustomFields(tx, a.admin, id, { housing: 'tenant' }, { isApi: true }),
    );
    expect(customerJson(edited).customFields).toEqual({ housing: 'tenant' });
    expect(
      await refusal(
        db.tenant(a.tenantId, (tx) => updateCustomerCustomFields(tx, a.admin, id, { salary: 1 }, { isApi: true })),
      ),
    ).toEqual({ status: 400, field: 'customFields.salary' });
    expect(
      await refusal(
        db.tenant(a.tenantId, (tx) =>
          updateCustomerCustomFields(tx, a.admin, id, { housing: 'owner' }, { expectedVersion: 0 }),
        ),
      ),
    ).toMatchObject({ status: 409 });
    // Another tenant's customer is not found.
    expect(
      (await refusal(db.tenant(b.tenantId, (tx) => updateCustomerCustomFields(tx, b.admin, id, {}, { isApi: true }))))
        .status,
    ).toBe(404);
  });

  it('lists offer the fields as columns, search their text values, and exports include them with labels', async () => {
    const entry = LISTS.customers!;
    const served = await serveList(db, viewer(a), entry, new URLSearchParams('cols=cf_employer,cf_housing&q=quokka'));
    expect(served.def.columns.map((c) => c.key)).toEqual(expect.arrayContaining(['cf_employer', 'cf_housing']));
    expect(served.page.rows).toHaveLength(1);
    expect(served.page.rows[0]!.values).toMatchObject({ cf_employer: `Quokka ${XSS}`, cf_housing: 'owner' });
    const filtered = await serveList(db, viewer(a), entry, new URLSearchParams('f.cf_housing=owner&cols=cf_housing'));
    expect(filtered.page.rows.every((r) => r.values.cf_housing === 'owner')).toBe(true);
    const sorted = await serveList(db, viewer(a), entry, new URLSearchParams('sort=-cf_employer'));
    expect(sorted.state.sort).toEqual({ key: 'cf_employer', dir: 'desc' });
    // Tenant B has no such column: the parameter is ignored (a strict request names it).
    const other = await serveList(db, viewer(b), entry, new URLSearchParams('cols=cf_employer&q=quokka'));
    expect(other.def.columns.some((c) => c.key === 'cf_employer')).toBe(false);
    expect(other.page.rows).toHaveLength(0);

    const def = await db.tenant(a.tenantId, (tx) => withCustomColumns(tx, entry.def, 'fr'));
    const { state } = parseListState(def, new URLSearchParams('cols=name,cf_employer,cf_housing&q=quokka'));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-export-'));
    const filePath = path.join(dir, 'customers.csv');
    const t = await getT('fr');
    await writeListExport({
      run: (fn) => db.tenant(a.tenantId, fn),
      def,
      state,
      options: { businessDate: a.businessDate, currencyDigits: 2, rowScope: null },
      format: 'csv',
      filePath,
      tenantCurrency: a.currency,
      t: (key) => t(key),
      title: 'customers',
    });
    const csv = fs.readFileSync(filePath, 'utf8');
    fs.rmSync(dir, { recursive: true, force: true });
    expect(csv).toContain('Employeur');
    expect(csv).toContain('Logement');
    expect(csv).toContain('Propriétaire');
    expect(csv).toContain('Quokka');
  });

  it('collaterals and applications store their fields; the API refuses unknown names', async () => {
    const created = (await run(a.admin, createCollateralCommand, {
      customerId: a.customerId,
      type: 'vehicle',
      description: 'Van',
      value: '12000',
      valuationDate: a.businessDate,
      customFields: { plate: 'ZX-481-QP' },
    })) as { id: string };
    const list = await serveList(db, viewer(a), LISTS.collaterals!, new URLSearchParams('q=zx-481&cols=cf_plate'));
    expect(list.page.rows.map((r) => r.values.cf_plate)).toEqual(['ZX-481-QP']);
    await run(a.admin, updateCollateralCommand, {
      collateralId: created.id,
      type: 'vehicle',
      description: 'Van',
      value: '12000',
      valuationDate: a.businessDate,
      customFields: { plate: 'ZX-999-QP' },
    });
    const after = await serveList(db, viewer(a), LISTS.collaterals!, new URLSearchParams('q=zx-999&cols=cf_plate'));
    expect(after.page.rows).toHaveLength(1);
    // Loan applications: the tenant has no application fields, so any name is unknown to the API.
    expect(
      await refusal(
        db.tenant(a.tenantId, (tx) =>
          submitApplication(tx, a.maker, {
            customerId: a.customerId,
            productId: a.productId,
            principal: '1000.00',
            numberOfRepayments: 6,
            customFields: { values: { plate: 'x' }, isApi: true },
          }),
        ),
      ),
    ).toEqual({ status: 400, field: 'customFields.plate' });
  });
});
