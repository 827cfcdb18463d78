import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { ADMIN } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand, type Command } from '../http/command.ts';
import type { Actor } from '../lending/actor.ts';
import { isUuid } from '../lending/loans.ts';
import { emptyForm } from './build.ts';
import { formProblems, parseFormDocument, type FormProblem } from './check.ts';
import type { FormDocument } from './document.ts';
import { CUSTOM_FIELD_ENTITIES, customFieldForm, saveCustomFieldForm, type CustomFieldEntity } from './store.ts';

/**
 * The form builder's commands and reads (issue 13): application forms on the tables of migration 0700.
 * A form has a working draft (a form document, ./document.ts) that the editor saves with the revision
 * it started from (a stale one is a 409); publishing copies the draft to a new immutable row of
 * application_form_versions and points the public link /application/<slug> at it (the link table is
 * kept by a trigger); unpublishing takes the link down (404). Run by /v1/application-forms and by the
 * pages of /admin/business/application-form; every success is audited with before and after.
 */

/** The public link's id: 3–63 lowercase letters, digits and dashes, starting with a letter or digit. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{2,62}$/;

export type FormStatus = 'draft' | 'published' | 'changed';

export type FormSummary = {
  id: string;
  name: string;
  slug: string;
  description: string;
  status: FormStatus;
  publishedVersion: number | null;
  productIds: string[];
  products: { id: string; name: string }[];
  submissions: number;
  updatedAt: string;
};

export type ApplicationForm = FormSummary & { draft: FormDocument; revision: number; everPublished: boolean };

export type FormVersionSummary = {
  version: number;
  productIds: string[];
  publishedBy: string;
  publishedAt: string;
  submissions: number;
};

type FormRow = {
  id: string;
  name: string;
  slug: string;
  description: string;
  draft: FormDocument;
  product_ids: string[];
  published_version: number | null;
  revision: number;
  updated_at: Date | string;
  changed: boolean;
  submissions: number;
  versions: number;
};

const SELECT_FORMS = `
  select f.id::text, f.name, f.slug, f.description, f.draft, f.product_ids::text[] as product_ids,
         f.published_version, f.revision, f.updated_at,
         coalesce(v.document is distinct from f.draft or v.product_ids is distinct from f.product_ids, false) as changed,
         (select count(*)::int from form_submissions s where s.form_id = f.id) as submissions,
         (select count(*)::int from application_form_versions a where a.form_id = f.id) as versions
    from application_forms f
    left join application_form_versions v on v.form_id = f.id and v.version = f.published_version`;

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : new Date(value).toISOString());

async function productNames(tx: Tx, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await tx.query<{ id: string; name: string }>(
    'select id::text, name from loan_products where id = any($1::uuid[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.name]));
}

function statusOf(row: FormRow): FormStatus {
  if (row.published_version === null) return 'draft';
  return row.changed ? 'changed' : 'published';
}

function summaryOf(row: FormRow, names: Map<string, string>): FormSummary {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    status: statusOf(row),
    publishedVersion: row.published_version,
    productIds: row.product_ids,
    products: row.product_ids.map((id) => ({ id, name: names.get(id) ?? id })),
    submissions: row.submissions,
    updatedAt: iso(row.updated_at),
  };
}

/** Every form of the tenant, newest change first. */
export async function listApplicationForms(tx: Tx): Promise<FormSummary[]> {
  const rows = await tx.query<FormRow>(`${SELECT_FORMS} order by f.updated_at desc, f.name`);
  const names = await productNames(tx, [...new Set(rows.flatMap((r) => r.product_ids))]);
  return rows.map((row) => summaryOf(row, names));
}

async function formRow(tx: Tx, id: string, lock = false): Promise<FormRow> {
  if (!isUuid(id)) throw new AppError('NOT_FOUND', 'Application form not found', { field: 'id' });
  if (lock) await tx.query('select 1 from application_forms where id = $1 for update', [id]);
  const [row] = await tx.query<FormRow>(`${SELECT_FORMS} where f.id = $1`, [id]);
  if (!row) throw new AppError('NOT_FOUND', 'Application form not found', { field: 'id' });
  return row;
}

/** One form with its draft (404 when unknown or another tenant's). */
export async function getApplicationForm(tx: Tx, id: string): Promise<ApplicationForm> {
  const row = await formRow(tx, id);
  const names = await productNames(tx, row.product_ids);
  return { ...summaryOf(row, names), draft: row.draft, revision: row.revision, everPublished: row.versions > 0 };
}

/** The published versions, newest first. */
export async function listFormVersions(tx: Tx, id: string): Promise<FormVersionSummary[]> {
  await formRow(tx, id);
  const rows = await tx.query<{
    version: number;
    product_ids: string[];
    published_by: string;
    published_at: Date | string;
    submissions: number;
  }>(
    `select v.version, v.product_ids::text[] as product_ids, coalesce(nullif(u.display_name, ''), u.email, v.published_by) as published_by,
            v.published_at,
            (select count(*)::int from form_submissions s where s.form_id = v.form_id and s.form_version = v.version) as submissions
       from application_form_versions v left join users u on u.id::text = v.published_by
      where v.form_id = $1 order by v.version desc`,
    [id],
  );
  return rows.map((r) => ({
    version: r.version,
    productIds: r.product_ids,
    publishedBy: r.published_by,
    publishedAt: iso(r.published_at),
    submissions: r.submissions,
  }));
}

/** One published version's document (404 when there is no such version). */
export async function getFormVersion(
  tx: Tx,
  id: string,
  version: number,
): Promise<FormVersionSummary & { document: FormDocument }> {
  await formRow(tx, id);
  const [row] = await tx.query<{ document: FormDocument }>(
    'select document from application_form_versions where form_id = $1 and version = $2',
    [id, version],
  );
  const summary = (await listFormVersions(tx, id)).find((v) => v.version === version);
  if (!row || !summary) throw new AppError('NOT_FOUND', `Version ${version} not found`, { field: 'version' });
  return { ...summary, document: row.document };
}

/** Active loan products the forms may apply for (the editor's picker). */
export async function activeLoanProducts(tx: Tx): Promise<{ id: string; name: string; currency: string }[]> {
  return tx.query('select id::text, name, currency from loan_products where is_active order by name, id');
}

/** Problems that stop a draft being saved: all of formProblems but those of a form still being built. */
export function draftProblems(raw: unknown): FormProblem[] {
  return formProblems(raw).filter((p) => p.key !== 'noFields' && p.key !== 'emptyStep');
}

function parseDraft(raw: unknown): FormDocument {
  const problems = draftProblems(raw);
  if (problems.length)
    throw new AppError('UNPROCESSABLE', `The form is not valid: ${problems[0].path} (${problems[0].key})`, {
      field: 'document',
      details: { problems },
    });
  return raw as FormDocument;
}

async function checkedProductIds(tx: Tx, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const bad = unique.find((id) => !isUuid(id));
  if (bad !== undefined)
    throw new AppError('BAD_REQUEST', 'productIds must be ids of active loan products', { field: 'productIds' });
  if (!unique.length) return [];
  const found = await tx.query<{ id: string }>(
    'select id::text from loan_products where id = any($1::uuid[]) and is_active',
    [unique],
  );
  if (found.length !== unique.length)
    throw new AppError('BAD_REQUEST', 'productIds must be ids of active loan products', { field: 'productIds' });
  return unique;
}

function auditView(row: FormRow) {
  return {
    name: row.name,
    slug: row.slug,
    description: row.description,
    productIds: row.product_ids,
    publishedVersion: row.published_version,
    revision: row.revision,
    draft: row.draft,
  };
}

async function audit(
  tx: Tx,
  actor: Actor,
  action: string,
  id: string,
  before: FormRow | null,
  after: FormRow | null,
  extra: Record<string, unknown> = {},
) {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'application_form',
    objectId: id,
    outcome: 'success',
    before: before ? auditView(before) : null,
    after: after ? { ...auditView(after), ...extra } : null,
  });
}

const nameField = z.string().trim().min(1, 'Enter a name').max(120);
const descriptionField = z.string().trim().max(2000);
const slugField = z
  .string()
  .trim()
  .toLowerCase()
  .regex(SLUG_PATTERN, 'Use 3 to 63 lowercase letters, digits and dashes, starting with a letter or digit');
const revisionField = z.coerce.number().int().positive().max(2_000_000_000);
const idField = z.string().max(100);

export const createFormInput = z
  .object({
    name: nameField,
    slug: slugField,
    description: descriptionField.optional(),
    /** Start from a copy of this form's draft (and products); an empty one-step form otherwise. */
    copyFrom: z
      .string()
      .max(100)
      .optional()
      .transform((v) => v || undefined),
  })
  .strict();

export const createFormCommand = defineCommand({
  action: 'application_form.create',
  objectType: 'application_form',
  permission: ADMIN,
  input: createFormInput,
  run: async (tx, actor, input): Promise<ApplicationForm> => {
    let draft: FormDocument = emptyForm();
    let productIds: string[] = [];
    if (input.copyFrom) {
      if (!isUuid(input.copyFrom))
        throw new AppError('BAD_REQUEST', 'The form to copy was not found', { field: 'copyFrom' });
      const [source] = await tx.query<{ draft: FormDocument; product_ids: string[] }>(
        'select draft, product_ids::text[] as product_ids from application_forms where id = $1',
        [input.copyFrom],
      );
      if (!source) throw new AppError('BAD_REQUEST', 'The form to copy was not found', { field: 'copyFrom' });
      draft = source.draft;
      // Products no longer offered are not carried over.
      const active = new Set((await activeLoanProducts(tx)).map((p) => p.id));
      productIds = source.product_ids.filter((id) => active.has(id));
    }
    const [taken] = await tx.query<{ id: string }>('select id from application_forms where lower(name) = lower($1)', [
      input.name,
    ]);
    if (taken) throw new AppError('CONFLICT', 'A form with this name already exists', { field: 'name' });
    // The slug is unique across tenants; another tenant's row is not visible here (row-level security),
    // so the index decides, and the answer does not say whose it is.
    const [row] = await tx.query<{ id: string }>(
      `insert into application_forms (tenant_id, slug, name, description, draft, product_ids, created_by)
       values ($1, $2, $3, $4, $5::jsonb, $6::uuid[], $7)
       on conflict do nothing returning id::text`,
      [
        actor.tenantId,
        input.slug,
        input.name,
        input.description ?? '',
        JSON.stringify(draft),
        productIds,
        actor.userId,
      ],
    );
    if (!row) throw new AppError('CONFLICT', 'This link is already taken; choose another one', { field: 'slug' });
    const after = await formRow(tx, row.id);
    await audit(
      tx,
      actor,
      'application_form.create',
      row.id,
      null,
      after,
      input.copyFrom ? { copyFrom: input.copyFrom } : {},
    );
    return getApplicationForm(tx, row.id);
  },
});

export const updateFormInput = z
  .object({
    id: idField,
    expectedRevision: revisionField,
    name: nameField.optional(),
    description: descriptionField.optional(),
    document: z.unknown().optional(),
    productIds: z.array(z.string().max(100)).max(50).optional(),
  })
  .strict();

function assertRevision(row: FormRow, expected: number | undefined) {
  if (expected !== undefined && expected !== row.revision)
    throw new AppError('CONFLICT', 'This form was changed by someone else since you opened it; reload to see it', {
      field: 'expectedRevision',
      details: { code: 'stale_revision', revision: row.revision },
    });
}

export const updateFormCommand = defineCommand({
  action: 'application_form.update',
  objectType: 'application_form',
  permission: ADMIN,
  input: updateFormInput,
  run: async (tx, actor, input): Promise<ApplicationForm> => {
    const before = await formRow(tx, input.id, true);
    assertRevision(before, input.expectedRevision);
    const draft = input.document === undefined ? before.draft : parseDraft(input.document);
    const productIds =
      input.productIds === undefined ? before.product_ids : await checkedProductIds(tx, input.productIds);
    const name = input.name ?? before.name;
    if (name.toLowerCase() !== before.name.toLowerCase()) {
      const [taken] = await tx.query('select 1 from application_forms where lower(name) = lower($1) and id <> $2', [
        name,
        input.id,
      ]);
      if (taken) throw new AppError('CONFLICT', 'A form with this name already exists', { field: 'name' });
    }
    await tx.query(
      `update application_forms set name = $2, description = $3, draft = $4::jsonb, product_ids = $5::uuid[],
              revision = revision + 1, updated_at = now() where id = $1`,
      [input.id, name, input.description ?? before.description, JSON.stringify(draft), productIds],
    );
    const after = await formRow(tx, input.id);
    await audit(tx, actor, 'application_form.update', input.id, before, after);
    return getApplicationForm(tx, input.id);
  },
});

const onForm = z.object({ id: idField, expectedRevision: revisionField.optional() }).strict();

/**
 * A command on one form with an optional `expectedRevision`: the form locked and checked, `change`
 * done (it returns what the audit adds to `after`, or `deleted`), then audited with before and after.
 */
function formChange(
  action: string,
  change: (tx: Tx, actor: Actor, before: FormRow) => Promise<Record<string, unknown> | 'deleted'>,
) {
  return defineCommand({
    action,
    objectType: 'application_form',
    permission: ADMIN,
    input: onForm,
    run: async (tx, actor, input): Promise<ApplicationForm | { id: string }> => {
      const before = await formRow(tx, input.id, true);
      assertRevision(before, input.expectedRevision);
      const extra = await change(tx, actor, before);
      if (extra === 'deleted') {
        await audit(tx, actor, action, input.id, before, null);
        return { id: input.id };
      }
      await audit(tx, actor, action, input.id, before, await formRow(tx, input.id), extra);
      return getApplicationForm(tx, input.id);
    },
  });
}

export const publishFormCommand = formChange('application_form.publish', async (tx, actor, before) => {
  const fields = Object.keys(before.draft?.schema?.properties ?? {});
  if (fields.length === 0)
    throw new AppError('CONFLICT', 'Nothing to publish: the form has no field yet', {
      field: 'document',
      details: { code: 'nothing_to_publish' },
    });
  if (before.published_version !== null && !before.changed)
    throw new AppError('CONFLICT', `Nothing to publish: version ${before.published_version} is the same`, {
      details: { code: 'nothing_to_publish' },
    });
  const document = parseFormDocument(before.draft);
  const bindsProduct = Object.values(document.ui.fields).some((f) => f.bind === 'application.productId');
  if (bindsProduct && before.product_ids.length === 0)
    throw new AppError('UNPROCESSABLE', 'Choose the loan products the form applies for', { field: 'productIds' });
  // Products may have been withdrawn since the draft was saved.
  await checkedProductIds(tx, before.product_ids);
  const [{ next }] = await tx.query<{ next: number }>(
    'select coalesce(max(version), 0)::int + 1 as next from application_form_versions where form_id = $1',
    [before.id],
  );
  await tx.query(
    `insert into application_form_versions (tenant_id, form_id, version, document, product_ids, published_by)
     values ($1, $2, $3, $4::jsonb, $5::uuid[], $6)`,
    [actor.tenantId, before.id, next, JSON.stringify(document), before.product_ids, actor.userId],
  );
  await tx.query(
    `update application_forms set published_version = $2, revision = revision + 1, updated_at = now() where id = $1`,
    [before.id, next],
  );
  return { version: next };
}) as Command<z.infer<typeof onForm>, ApplicationForm>;

export const unpublishFormCommand = formChange('application_form.unpublish', async (tx, _actor, before) => {
  if (before.published_version === null)
    throw new AppError('CONFLICT', 'This form is not published', { details: { code: 'not_published' } });
  await tx.query(
    'update application_forms set published_version = null, revision = revision + 1, updated_at = now() where id = $1',
    [before.id],
  );
  return {};
}) as Command<z.infer<typeof onForm>, ApplicationForm>;

/** Only a form that was never published: a published one keeps its versions (submissions point at them). */
export const deleteFormCommand = formChange('application_form.delete', async (tx, _actor, before) => {
  if (before.versions > 0)
    throw new AppError('CONFLICT', 'A form that was published keeps its versions and cannot be deleted; unpublish it', {
      details: { code: 'was_published' },
    });
  await tx.query('delete from application_forms where id = $1', [before.id]);
  return 'deleted';
}) as Command<z.infer<typeof onForm>, { id: string }>;

/** The input of a command on one form: the JSON body's fields and the form id of the path. */
export function withFormId(id: string) {
  return (body: unknown) => ({ ...(body && typeof body === 'object' && !Array.isArray(body) ? body : {}), id });
}

// ---------------------------------------------------------------------------------------------
// Customized forms (extra fields of customers, loan applications and collaterals)

export type CustomizedForm = {
  entity: CustomFieldEntity;
  document: FormDocument;
  revision: number | null;
  fields: number;
};

/** An entity's customized fields, or an empty one-step form with no revision when none were added. */
export async function getCustomizedForm(tx: Tx, entity: string): Promise<CustomizedForm> {
  if (!(CUSTOM_FIELD_ENTITIES as readonly string[]).includes(entity))
    throw new AppError('NOT_FOUND', 'No customized form for this entity', { field: 'entity' });
  const stored = await customFieldForm(tx, entity as CustomFieldEntity);
  const document = stored?.document ?? emptyForm({ en: 'Additional information', fr: 'Informations complémentaires' });
  return {
    entity: entity as CustomFieldEntity,
    document,
    revision: stored?.revision ?? null,
    fields: Object.keys(document.schema.properties).length,
  };
}

export async function listCustomizedForms(tx: Tx): Promise<CustomizedForm[]> {
  const out: CustomizedForm[] = [];
  for (const entity of CUSTOM_FIELD_ENTITIES) out.push(await getCustomizedForm(tx, entity));
  return out;
}

export const saveCustomizedFormCommand = defineCommand({
  action: 'customized_form.update',
  objectType: 'customized_form',
  permission: ADMIN,
  input: z
    .object({
      entity: z.enum(CUSTOM_FIELD_ENTITIES),
      document: z.unknown(),
      expectedRevision: revisionField.nullable(),
    })
    .strict(),
  run: async (tx, actor, input): Promise<CustomizedForm> => {
    const doc = input.document as FormDocument | undefined;
    if (doc?.ui?.steps && doc.ui.steps.length > 1)
      throw new AppError('UNPROCESSABLE', 'Customized fields are on one step', { field: 'document' });
    await saveCustomFieldForm(tx, actor, input.entity, input.document, input.expectedRevision);
    return getCustomizedForm(tx, input.entity);
  },
});
