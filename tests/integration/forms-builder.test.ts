import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { addField, emptyForm } from '#lib/forms/build.ts';
import type { FormDocument } from '#lib/forms/document.ts';
import { findPublishedForm, formVersion } from '#lib/forms/store.ts';
import {
  createFormCommand,
  deleteFormCommand,
  draftProblems,
  getApplicationForm,
  getCustomizedForm,
  listApplicationForms,
  listFormVersions,
  publishFormCommand,
  saveCustomizedFormCommand,
  unpublishFormCommand,
  updateFormCommand,
  type ApplicationForm,
} from '#lib/forms/application-forms.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

async function refusal(promise: Promise<unknown>): Promise<{ status: number; field?: string; details?: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, field: error.field, details: error.details };
    if ((error as { name?: string }).name === 'ZodError')
      return { status: 400, field: String((error as { issues: { path: PropertyKey[] }[] }).issues[0].path[0]) };
    throw error;
  }
  throw new Error('expected a refusal');
}

const withChannel = (doc: FormDocument = emptyForm()) =>
  addField(
    addField(doc, 0, {
      name: 'Channel',
      widget: 'radio',
      label: { en: 'Channel', fr: 'Canal' },
      required: true,
      ui: {
        options: [
          { value: 'phone', label: { en: 'Phone' } },
          { value: 'visit', label: { en: 'Visit' } },
        ],
      },
    }),
    0,
    {
      name: 'Comment',
      widget: 'text',
      label: { en: 'Comment' },
      required: true,
      ui: { visibleWhen: { field: 'Channel', in: ['visit'] } },
    },
  );

describe.each(testDbKinds())('form builder on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let g: LendingFixture;
  const admin = (fx: LendingFixture): Actor => ({ ...fx.maker, isAdmin: true });
  const run = <I, O>(actor: Actor, command: Command<I, O>, input: unknown, isAdmin = true) =>
    runCommand({ db, actor, permissionSubject: { isAdmin, authorities: [] } }, command, () => input);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db);
    g = await createLendingFixture(db);
  });
  afterAll(async () => drop());

  it('creates forms with slug rules, unique across tenants without naming the tenant; admins only', async () => {
    expect((await refusal(run(f.maker, createFormCommand, { name: 'A', slug: 'abc-form' }, false))).status).toBe(403);
    for (const slug of ['ab', 'Has Space', '-lead', 'émile', 'x'.repeat(64)])
      expect(await refusal(run(admin(f), createFormCommand, { name: 'Bad', slug }))).toMatchObject({
        status: 400,
        field: 'slug',
      });
    const form = await run(admin(f), createFormCommand, { name: 'Personal loan', slug: 'Shared-Slug-1' });
    expect(form).toMatchObject({ slug: 'shared-slug-1', status: 'draft', publishedVersion: null, revision: 1 });
    expect(form.draft.ui.steps).toHaveLength(1);
    const taken = await refusal(run(admin(g), createFormCommand, { name: 'Other', slug: 'shared-slug-1' }));
    expect(taken).toMatchObject({ status: 409, field: 'slug' });
    expect(JSON.stringify(taken)).not.toContain(f.tenantId);
    expect(
      await refusal(run(admin(f), createFormCommand, { name: 'personal LOAN', slug: 'other-slug' })),
    ).toMatchObject({
      status: 409,
      field: 'name',
    });
    // A copy starts from the source's draft.
    const saved = await run(admin(f), updateFormCommand, {
      id: form.id,
      expectedRevision: 1,
      document: withChannel(),
      productIds: [f.productId],
    });
    const copy = await run(admin(f), createFormCommand, { name: 'Copy', slug: 'copy-form', copyFrom: form.id });
    expect(copy.draft).toEqual(saved.draft);
    expect(copy.productIds).toEqual([f.productId]);
    // Another tenant cannot copy it, nor see it.
    expect(
      (await refusal(run(admin(g), createFormCommand, { name: 'X', slug: 'x-copy', copyFrom: form.id }))).status,
    ).toBe(400);
    expect((await refusal(db.tenant(g.tenantId, (tx) => getApplicationForm(tx, form.id)))).status).toBe(404);
    const audit = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'application_form', form.id));
    expect(audit.map((a) => a.action)).toEqual(['application_form.create', 'application_form.update']);
    expect(audit[1].before).toMatchObject({ revision: 1 });
    expect(audit[1].after).toMatchObject({ revision: 2, productIds: [f.productId] });
  });

  it('saves drafts with the revision; stale is 409; invalid documents 422 with problems; foreign products 400', async () => {
    const form = await run(admin(f), createFormCommand, { name: 'Draft form', slug: 'draft-form' });
    const next = await run(admin(f), updateFormCommand, { id: form.id, expectedRevision: 1, name: 'Draft form 2' });
    expect(next.revision).toBe(2);
    const stale = await refusal(run(admin(f), updateFormCommand, { id: form.id, expectedRevision: 1, name: 'Lost' }));
    expect(stale).toMatchObject({ status: 409, field: 'expectedRevision' });
    const bad = withChannel();
    bad.ui.fields.Channel.options = [];
    const invalid = await refusal(
      run(admin(f), updateFormCommand, { id: form.id, expectedRevision: 2, document: bad }),
    );
    expect(invalid.status).toBe(422);
    expect((invalid.details as { problems: { key: string }[] }).problems.map((p) => p.key)).toContain(
      'optionsRequired',
    );
    expect(
      await refusal(run(admin(f), updateFormCommand, { id: form.id, expectedRevision: 2, productIds: [g.productId] })),
    ).toMatchObject({ status: 400, field: 'productIds' });
    expect(
      await refusal(run(admin(f), updateFormCommand, { id: form.id, expectedRevision: 2, productIds: ['nope'] })),
    ).toMatchObject({ status: 400, field: 'productIds' });
    expect(draftProblems(emptyForm())).toEqual([]);
    // Never published: it may be deleted.
    await run(admin(f), deleteFormCommand, { id: form.id });
    expect((await refusal(db.tenant(f.tenantId, (tx) => getApplicationForm(tx, form.id)))).status).toBe(404);
  });

  it('publishes immutable versions; republishing after a change makes version 2; unpublish takes the link down', async () => {
    let form: ApplicationForm = await run(admin(f), createFormCommand, { name: 'Published form', slug: 'pub-form' });
    expect(await refusal(run(admin(f), publishFormCommand, { id: form.id }))).toMatchObject({ status: 409 });
    form = await run(admin(f), updateFormCommand, {
      id: form.id,
      expectedRevision: form.revision,
      document: withChannel(),
    });
    // A productId binding needs products.
    const bound = addField(form.draft, 0, {
      name: 'Product',
      widget: 'select',
      label: { en: 'Product' },
      ui: { bind: 'application.productId', options: [{ value: f.productId, label: { en: 'Loan' } }] },
    });
    form = await run(admin(f), updateFormCommand, { id: form.id, expectedRevision: form.revision, document: bound });
    expect(await refusal(run(admin(f), publishFormCommand, { id: form.id }))).toMatchObject({
      status: 422,
      field: 'productIds',
    });
    form = await run(admin(f), updateFormCommand, {
      id: form.id,
      expectedRevision: form.revision,
      productIds: [f.productId],
    });
    expect(await refusal(run(admin(f), publishFormCommand, { id: form.id, expectedRevision: 1 }))).toMatchObject({
      status: 409,
    });
    form = await run(admin(f), publishFormCommand, { id: form.id, expectedRevision: form.revision });
    expect(form).toMatchObject({ status: 'published', publishedVersion: 1 });
    expect(await refusal(run(admin(f), publishFormCommand, { id: form.id }))).toMatchObject({
      status: 409,
      details: { code: 'nothing_to_publish' },
    });
    const v1 = await db.tenant(f.tenantId, (tx) => formVersion(tx, form.id, 1));
    expect((await findPublishedForm(db, 'pub-form'))?.version).toBe(1);

    const changed = structuredClone(form.draft);
    changed.ui.fields.Channel.label = { en: 'How', fr: 'Comment' };
    form = await run(admin(f), updateFormCommand, { id: form.id, expectedRevision: form.revision, document: changed });
    expect(form.status).toBe('changed');
    form = await run(admin(f), publishFormCommand, { id: form.id });
    expect(form).toMatchObject({ status: 'published', publishedVersion: 2 });
    expect(await db.tenant(f.tenantId, (tx) => formVersion(tx, form.id, 1))).toEqual(v1);
    expect(v1.ui.fields.Channel.label.en).toBe('Channel');
    expect((await findPublishedForm(db, 'pub-form'))?.document.ui.fields.Channel.label.en).toBe('How');
    const versions = await db.tenant(f.tenantId, (tx) => listFormVersions(tx, form.id));
    expect(versions.map((v) => v.version)).toEqual([2, 1]);
    // Versions never change, even by hand.
    await expect(
      db.tenant(f.tenantId, (tx) =>
        tx.query(`update application_form_versions set document = '{}' where form_id = $1`, [form.id]),
      ),
    ).rejects.toThrow();

    form = await run(admin(f), unpublishFormCommand, { id: form.id });
    expect(form).toMatchObject({ status: 'draft', publishedVersion: null, everPublished: true });
    expect(await findPublishedForm(db, 'pub-form')).toBeNull();
    expect((await refusal(run(admin(f), deleteFormCommand, { id: form.id }))).status).toBe(409);
    const list = await db.tenant(f.tenantId, (tx) => listApplicationForms(tx));
    expect(list.find((l) => l.id === form.id)).toMatchObject({ status: 'draft', products: [{ id: f.productId }] });
    const actions = (await db.tenant(f.tenantId, (tx) => listAudit(tx, 'application_form', form.id)))
      .filter((a) => a.outcome === 'success')
      .map((a) => a.action);
    expect(actions).toEqual([
      'application_form.create',
      'application_form.update',
      'application_form.update',
      'application_form.update',
      'application_form.publish',
      'application_form.update',
      'application_form.publish',
      'application_form.unpublish',
    ]);
  });

  it('a form inserted by SQL in the shape of migration 0700 lists and opens', async () => {
    const id = await db.tenant(f.tenantId, async (tx) => {
      const [row] = await tx.query<{ id: string }>(
        `insert into application_forms (tenant_id, slug, name, draft, created_by) values ($1, 'sql-form', 'SQL form', $2::jsonb, 'seed') returning id::text`,
        [f.tenantId, JSON.stringify(withChannel())],
      );
      return row.id;
    });
    const form = await db.tenant(f.tenantId, (tx) => getApplicationForm(tx, id));
    expect(form).toMatchObject({ status: 'draft', submissions: 0, everPublished: false });
  });

  it('customized forms save at once and refuse file, consent and bound fields', async () => {
    const empty = await db.tenant(f.tenantId, (tx) => getCustomizedForm(tx, 'customer'));
    expect(empty).toMatchObject({ revision: null, fields: 0 });
    const doc = addField(empty.document, 0, { name: 'Nickname', widget: 'text', label: { en: 'Nickname' } });
    const saved = await run(admin(f), saveCustomizedFormCommand, {
      entity: 'customer',
      document: doc,
      expectedRevision: null,
    });
    expect(saved).toMatchObject({ revision: 1, fields: 1 });
    expect(
      (
        await refusal(
          run(f.maker, saveCustomizedFormCommand, { entity: 'customer', document: doc, expectedRevision: 1 }, false),
        )
      ).status,
    ).toBe(403);
    expect(
      await refusal(
        run(admin(f), saveCustomizedFormCommand, { entity: 'customer', document: doc, expectedRevision: null }),
      ),
    ).toMatchObject({ status: 409 });
    for (const spec of [
      { name: 'Doc', widget: 'file' as const, label: { en: 'Doc' } },
      { name: 'Ok', widget: 'consent' as const, label: { en: 'I agree' } },
      { name: 'Phone', widget: 'phone' as const, label: { en: 'Phone' }, ui: { bind: 'customer.phone' as const } },
    ])
      expect(
        (
          await refusal(
            run(admin(f), saveCustomizedFormCommand, {
              entity: 'collateral',
              document: addField(doc, 0, spec),
              expectedRevision: null,
            }),
          )
        ).status,
      ).toBe(422);
    expect((await db.tenant(g.tenantId, (tx) => getCustomizedForm(tx, 'customer'))).fields).toBe(0);
    expect((await refusal(db.tenant(f.tenantId, (tx) => getCustomizedForm(tx, 'loans')))).status).toBe(404);
    const audit = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'customized_form', 'customer'));
    expect(audit.filter((a) => a.outcome === 'success').map((a) => a.action)).toEqual(['customized_form.update']);
  });
});
