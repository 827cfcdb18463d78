import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '#lib/auth/principal.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { formOf } from '#lib/forms/build.ts';
import { answeredForm, isPublishedForm, publishedForms, staffApplicationForm } from '#lib/forms/staff-form.ts';
import { POST as submitRoute } from '../../src/pages/v1/applications/index.ts';
import { PATCH as editRoute } from '../../src/pages/v1/applications/[id]/index.ts';
import { PATCH as settingsRoute } from '../../src/pages/v1/tenant-settings.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';
import { insertForm } from '../support/form-submissions.ts';

// cbs.application_form (issue 13 C): a published application form's unbound questions on staff
// applications, validated with validateAnswers and kept in form_data.form (with formRef).

const STAFF = formOf([
  {
    id: 'more',
    title: { en: 'More', fr: 'Plus' },
    fields: [
      {
        name: 'amount',
        widget: 'money',
        label: { en: 'Amount' },
        required: true,
        ui: { bind: 'application.principal' },
      },
      {
        name: 'housing',
        widget: 'select',
        label: { en: 'Housing', fr: 'Logement' },
        required: true,
        ui: {
          options: [
            { value: 'owner', label: { en: 'Owner', fr: 'Propriétaire' } },
            { value: 'tenant', label: { en: 'Tenant', fr: 'Locataire' } },
          ],
        },
      },
      {
        name: 'rent',
        widget: 'number',
        label: { en: 'Monthly rent' },
        required: true,
        ui: { visibleWhen: { field: 'housing', in: ['tenant'] } },
      },
      { name: 'payslip', widget: 'file', label: { en: 'Payslip' } },
    ],
  },
]);

describe.each(testDbKinds())('staff application form (cbs.application_form) on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let formId: string;
  let principal: Principal;

  const call = async (handler: (c: never) => Response | Promise<Response>, url: string, body: unknown, params = {}) => {
    const request = new Request(`http://localhost${url}`, {
      method: url.startsWith('/v1/applications/') || url === '/v1/tenant-settings' ? 'PATCH' : 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const response = await handler({
      request,
      url: new URL(request.url),
      params,
      locals: { principal, requestId: 'test', language: 'en' },
      clientAddress: '127.0.0.1',
    } as never);
    return { status: response.status, body: await response.json() };
  };
  const setForm = (id: string | null) =>
    db.owner((tx) =>
      tx.query(`update tenants set config = jsonb_set(config, '{cbs}', $2::jsonb) where id = $1`, [
        f.tenantId,
        JSON.stringify({ name: 'internal', application_form: id }),
      ]),
    );
  const submit = (formData?: unknown) =>
    call(submitRoute, '/v1/applications', {
      customerId: f.customerId,
      productId: f.productId,
      principal: '1000.00',
      numberOfRepayments: 6,
      ...(formData === undefined ? {} : { formData }),
    });

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    principal = {
      tenantId: f.tenantId,
      userId: f.maker.userId,
      displayName: 'Maker',
      email: 'maker@test',
      isAdmin: true,
      authorities: [],
      dataPermissions: [],
      language: 'en',
      via: 'session',
      sessionId: null,
      passwordChangeRequired: false,
      sessionTimeout: 3600,
      idleTimeout: 900,
    };
    formId = await insertForm(db, f.tenantId, { slug: `staff-form-${kind}`, name: 'Staff extra', versions: [STAFF] });
  });
  afterAll(async () => drop());

  test('only published forms of the tenant qualify; the staff form drops bound and file fields', async () => {
    await db.tenant(f.tenantId, async (tx) => {
      expect(await isPublishedForm(tx, formId)).toBe(true);
      expect(await isPublishedForm(tx, '00000000-0000-4000-8000-000000000000')).toBe(false);
      expect(await isPublishedForm(tx, 'not-an-id')).toBe(false);
      expect((await publishedForms(tx)).map((p) => p.id)).toEqual([formId]);
      const staff = await staffApplicationForm(tx, formId);
      expect(Object.keys(staff!.document.ui.fields).sort()).toEqual(['housing', 'rent']);
      expect(staff!.document.ui.steps[0].fields).toEqual(['housing', 'rent']);
      expect(staff!.document.schema.allOf).toHaveLength(1);
      expect(await staffApplicationForm(tx, null)).toBeNull();
    });
  });

  test('POST/PATCH /v1/applications validate formData.form with the form and keep it with its version', async () => {
    await setForm(null);
    expect((await submit({ form: { housing: 'owner' } })).body.error.field).toBe('formData.form');
    // The built-in form: no answers needed, and other form data is untouched.
    expect((await submit({ purpose: 'car' })).status).toBe(201);

    await setForm(formId);
    const missing = await submit({ purpose: 'car' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('formData.form.housing');
    const noRent = await submit({ form: { housing: 'tenant' } });
    expect(noRent.body.error.field).toBe('formData.form.rent');
    const wrongChoice = await submit({ form: { housing: 'castle' } });
    expect(wrongChoice.body.error.field).toBe('formData.form.housing');
    const made = await submit({ purpose: 'car', form: { housing: 'owner', rent: 900, stray: 'x' } });
    expect(made.status).toBe(201);
    expect(made.body.formData).toEqual({
      purpose: 'car',
      form: { housing: 'owner' },
      formRef: { id: formId, version: 1 },
    });
    const id = made.body.id as string;
    const edited = await call(
      editRoute,
      `/v1/applications/${id}`,
      {
        principal: '1100.00',
        numberOfRepayments: 6,
        formData: { purpose: 'car', form: { housing: 'tenant', rent: '750' } },
      },
      { id },
    );
    expect(edited.status).toBe(200);
    expect(edited.body.formData.form).toEqual({ housing: 'tenant', rent: 750 });
    const refused = await call(
      editRoute,
      `/v1/applications/${id}`,
      { principal: '1100.00', numberOfRepayments: 6, formData: { purpose: 'car', form: { housing: 'tenant' } } },
      { id },
    );
    expect(refused.body.error.field).toBe('formData.form.rent');
    // Form data without answers keeps the stored ones.
    const kept = await call(
      editRoute,
      `/v1/applications/${id}`,
      { principal: '1200.00', numberOfRepayments: 6, formData: { purpose: 'home' } },
      { id },
    );
    expect(kept.status).toBe(200);
    expect(kept.body.formData).toMatchObject({ purpose: 'home', form: { housing: 'tenant', rent: 750 } });
    await db.tenant(f.tenantId, async (tx) => {
      const answered = await answeredForm(tx, kept.body.formData.formRef);
      expect(answered?.document.ui.fields.housing.label.en).toBe('Housing');
    });
    await setForm(null);
  });

  test('the settings take a published form id, refuse others with a 400 naming the field, and null', async () => {
    const patch = (application_form: unknown) =>
      call(settingsRoute, '/v1/tenant-settings', { config: { cbs: { application_form } } });
    const ok = await patch(formId);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.config.cbs.application_form).toBe(formId);
    for (const bad of ['00000000-0000-4000-8000-000000000000', 'custom-1']) {
      const refused = await patch(bad);
      expect(refused.status).toBe(400);
      expect(refused.body.error.field).toBe('config.cbs.application_form');
    }
    await db.tenant(f.tenantId, (tx) =>
      tx.query('update application_forms set published_version = null where id = $1', [formId]),
    );
    expect((await patch(formId)).status).toBe(400);
    expect((await patch(null)).status).toBe(200);
  });
});
