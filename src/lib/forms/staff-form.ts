import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { parseStoredConfig } from '../tenancy/config.ts';
import { isUuid } from '../http/query-params.ts';
import { orderedFieldNames, type FormDocument } from './document.ts';
import { coercePosted } from './fields.ts';
import { validateAnswers } from './validate.ts';

/**
 * The staff application form (tenant configuration `cbs.application_form`): the id of one of the
 * tenant's PUBLISHED application forms, or null for the product's built-in form. When set, the staff
 * application pages and /v1/applications ask that form's unbound questions (the terms — product,
 * amount, repayments — and the customer's details stay the built-in ones) and keep the answers in
 * `loan_applications.form_data.form`, with `form_data.formRef` naming the form and version they
 * answered (so they are shown with their labels later).
 */

export type PublishedFormChoice = { id: string; name: string; version: number };

/** The tenant's published application forms (the settings page's choice). */
export async function publishedForms(tx: Tx): Promise<PublishedFormChoice[]> {
  return tx.query<PublishedFormChoice>(
    `select id, name, published_version as version from application_forms
      where published_version is not null order by lower(name), id`,
  );
}

/** Whether the id names a published form of the tenant (the settings check). */
export async function isPublishedForm(tx: Tx, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const [row] = await tx.query<{ id: string }>(
    'select id from application_forms where id = $1 and published_version is not null',
    [id],
  );
  return Boolean(row);
}

/**
 * The questions staff answer: the form without bound fields (they fill the customer or the terms,
 * which the built-in form asks), without file fields (no upload on the staff pages), and without
 * fields whose visibility depends on a removed one.
 */
export function unboundForm(doc: FormDocument): FormDocument {
  const kept = new Set<string>();
  for (const name of orderedFieldNames(doc)) {
    const ui = doc.ui.fields[name];
    if (!ui || ui.bind || ui.widget === 'file') continue;
    if (ui.visibleWhen && !kept.has(ui.visibleWhen.field)) continue;
    kept.add(name);
  }
  const pick = <T>(record: Record<string, T>) =>
    Object.fromEntries(Object.entries(record).filter(([name]) => kept.has(name)));
  const allOf = (doc.schema.allOf ?? []).filter(
    (c) => c.then.required.every((n) => kept.has(n)) && c.if.required.every((n) => kept.has(n)),
  );
  const { allOf: _all, ...schema } = doc.schema;
  return {
    schema: {
      ...schema,
      properties: pick(doc.schema.properties),
      required: (doc.schema.required ?? []).filter((n) => kept.has(n)),
      ...(allOf.length ? { allOf } : {}),
    },
    ui: {
      steps: doc.ui.steps
        .map((s) => ({ ...s, fields: s.fields.filter((n) => kept.has(n)) }))
        .filter((s) => s.fields.length),
      fields: pick(doc.ui.fields),
    },
  };
}

export type StaffForm = { id: string; name: string; version: number; document: FormDocument };

/** The configured staff form (its published version, unbound fields only), or null: the built-in form. */
export async function staffApplicationForm(tx: Tx, configuredId: string | null | undefined): Promise<StaffForm | null> {
  if (!configuredId || !isUuid(configuredId)) return null;
  const [row] = await tx.query<{ id: string; name: string; version: number; document: FormDocument }>(
    `select f.id, f.name, v.version, v.document from application_forms f
       join application_form_versions v on v.form_id = f.id and v.version = f.published_version
      where f.id = $1`,
    [configuredId],
  );
  if (!row) return null;
  return { id: row.id, name: row.name, version: row.version, document: unboundForm(row.document) };
}

/** The version of a form a stored application answered (to show its answers with their labels). */
export async function answeredForm(tx: Tx, ref: unknown): Promise<StaffForm | null> {
  const r = ref as { id?: unknown; version?: unknown } | null;
  if (!r || typeof r.id !== 'string' || !isUuid(r.id) || typeof r.version !== 'number') return null;
  const [row] = await tx.query<{ id: string; name: string; version: number; document: FormDocument }>(
    `select f.id, f.name, v.version, v.document from application_forms f
       join application_form_versions v on v.form_id = f.id and v.version = $2
      where f.id = $1`,
    [r.id, r.version],
  );
  return row ? { id: row.id, name: row.name, version: row.version, document: unboundForm(row.document) } : null;
}

/**
 * An application's form data with the staff form's answers checked: `formData.form` (the answers) is
 * validated against the configured form with validateAnswers (400 naming `<field>.form.<name>`) and
 * kept as the visible, non-empty answers, with `formRef` set. Answers unchanged from `previous` are
 * kept as they are (an application made with an earlier form stays editable). Without a staff form,
 * answers are refused.
 */
export async function withStaffFormAnswers(
  tx: Tx,
  configuredId: string | null | undefined,
  formData: Record<string, unknown> | undefined,
  options: { previous?: Record<string, unknown>; field?: string; required?: boolean } = {},
): Promise<Record<string, unknown> | undefined> {
  /** Where the answers are in the request: `formData.form` (the API), `form` (a page's 'form.' inputs). */
  const at = options.field ?? 'formData.form';
  const { form: answers, formRef: _ignored, ...rest } = formData ?? {};
  const previous = options.previous ?? {};
  // Form data sent without answers keeps the stored ones.
  if (answers === undefined && previous.form !== undefined)
    return { ...rest, form: previous.form, formRef: previous.formRef };
  if (answers !== undefined && JSON.stringify(answers) === JSON.stringify(previous.form))
    return { ...rest, form: previous.form, formRef: previous.formRef };
  const staff = await staffApplicationForm(tx, configuredId);
  if (!staff) {
    if (answers !== undefined)
      throw new AppError('BAD_REQUEST', 'No application form is configured for staff applications', {
        field: at,
      });
    return formData;
  }
  if (answers === undefined && !options.required) return formData;
  if (answers !== undefined && (typeof answers !== 'object' || answers === null || Array.isArray(answers)))
    throw new AppError('BAD_REQUEST', 'form must be an object of answers', { field: at });
  // Numbers and booleans may come as posted text (a page's inputs): typed as the schema wants.
  const given = { ...((answers ?? {}) as Record<string, unknown>) };
  for (const [name, value] of Object.entries(given)) {
    const type = staff.document.schema.properties[name]?.type;
    if (typeof value === 'string' && type && type !== 'string')
      Object.assign(given, coercePosted(staff.document, { [name]: value }, [name]));
  }
  const result = validateAnswers(staff.document, given);
  if (!result.ok) {
    const [error] = result.errors;
    throw new AppError('BAD_REQUEST', `${error.field} is not valid (${error.key})`, {
      field: `${at}.${error.field}`,
      details: { errors: result.errors },
    });
  }
  return { ...rest, form: result.answers, formRef: { id: staff.id, version: staff.version } };
}

/** The configured staff form's id in the command's transaction (null: the built-in form). */
export async function configuredStaffFormId(tx: Tx, tenantId: string): Promise<string | null> {
  const [row] = await tx.query<{ config: Record<string, unknown> }>('select config from tenants where id = $1', [
    tenantId,
  ]);
  return row ? parseStoredConfig(row.config).cbs.application_form : null;
}

/** /v1/applications POST and PATCH: the body's formData with the staff form's answers checked. */
export async function staffFormDataOfBody(
  tx: Tx,
  tenantId: string,
  formData: Record<string, unknown> | undefined,
  applicationId?: string,
): Promise<Record<string, unknown> | undefined> {
  const configured = await configuredStaffFormId(tx, tenantId);
  let previous: Record<string, unknown> = {};
  if (applicationId && isUuid(applicationId)) {
    const [row] = await tx.query<{ form_data: Record<string, unknown> }>(
      'select form_data from loan_applications where id = $1',
      [applicationId],
    );
    previous = row?.form_data ?? {};
  }
  // An edit without formData keeps what is stored (the command keeps the stored form data).
  if (applicationId && formData === undefined) return undefined;
  return withStaffFormAnswers(tx, configured, formData, {
    previous,
    required: !applicationId || 'form' in (formData ?? {}),
  });
}

/**
 * A staff page's posted answers ('form.' inputs) typed and checked against the configured form:
 * `{ form, formRef }` to merge into the application's form data (400 naming `form.<field>`).
 */
export async function postedStaffAnswers(
  tx: Tx,
  tenantId: string,
  posted: Record<string, string>,
  previous: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const configured = await configuredStaffFormId(tx, tenantId);
  const staff = await staffApplicationForm(tx, configured);
  if (!staff) return {};
  const answers = coercePosted(staff.document, posted, Object.keys(staff.document.ui.fields));
  const kept = await withStaffFormAnswers(tx, configured, { form: answers }, { previous, field: 'form' });
  return { form: kept?.form, formRef: kept?.formRef };
}
