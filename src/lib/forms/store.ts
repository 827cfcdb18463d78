import { recordAudit, auditActor } from '../audit/record-audit.ts';
import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import type { Actor } from '../lending/actor.ts';
import { parseFormDocument } from './check.ts';
import type { FormDocument } from './document.ts';

/**
 * Reading forms where they are used: the published version behind a public link, and the customized
 * fields of an entity. (The builder's commands live with the builder: ./application-forms.ts.)
 */

export type PublishedForm = {
  tenantId: string;
  formId: string;
  slug: string;
  name: string;
  version: number;
  document: FormDocument;
  productIds: string[];
};

const SLUG = /^[a-z0-9][a-z0-9-]{2,62}$/;

/**
 * The published form behind /application/<slug>, or null (unknown or unpublished: the page answers
 * 404). The global link table names the tenant; the form is then read bound to that tenant.
 */
export async function findPublishedForm(db: Db, slug: string): Promise<PublishedForm | null> {
  if (!SLUG.test(slug)) return null;
  const [link] = await db.system((tx) =>
    tx.query<{ tenant_id: string; form_id: string; version: number }>(
      `select l.tenant_id, l.form_id, l.version from public_form_links l join tenants t on t.id = l.tenant_id
        where l.slug = $1 and t.is_active`,
      [slug],
    ),
  );
  if (!link) return null;
  return db.tenant(link.tenant_id, async (tx) => {
    const [row] = await tx.query<{ name: string; document: FormDocument; product_ids: string[] }>(
      `select f.name, v.document, v.product_ids from application_forms f
         join application_form_versions v on v.tenant_id = f.tenant_id and v.form_id = f.id and v.version = f.published_version
        where f.id = $1 and f.published_version = $2`,
      [link.form_id, link.version],
    );
    if (!row) return null;
    return {
      tenantId: link.tenant_id,
      formId: link.form_id,
      slug,
      name: row.name,
      version: link.version,
      document: row.document,
      productIds: row.product_ids,
    };
  });
}

/** One published version of a form (what a submission was made with). */
export async function formVersion(tx: Tx, formId: string, version: number): Promise<FormDocument> {
  const [row] = await tx.query<{ document: FormDocument }>(
    'select document from application_form_versions where form_id = $1 and version = $2',
    [formId, version],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Form version not found');
  return row.document;
}

export const CUSTOM_FIELD_ENTITIES = ['customer', 'loan_application', 'collateral'] as const;
export type CustomFieldEntity = (typeof CUSTOM_FIELD_ENTITIES)[number];

export function isCustomFieldEntity(value: string): value is CustomFieldEntity {
  return (CUSTOM_FIELD_ENTITIES as readonly string[]).includes(value);
}

/** The customized fields of an entity (a form document), or null when the tenant added none. */
export async function customFieldForm(
  tx: Tx,
  entity: CustomFieldEntity,
): Promise<{ document: FormDocument; revision: number } | null> {
  const [row] = await tx.query<{ document: FormDocument; revision: number }>(
    'select document, revision from custom_field_forms where entity = $1',
    [entity],
  );
  return row ?? null;
}

/**
 * Saves an entity's customized fields (admin only; checked by the command that calls this). A field
 * may not be a file (values live in a jsonb column) nor bound. `expectedRevision` guards against two
 * editors: 409 when the stored one moved on. Audited with before and after.
 */
export async function saveCustomFieldForm(
  tx: Tx,
  actor: Actor,
  entity: CustomFieldEntity,
  raw: unknown,
  expectedRevision: number | null,
): Promise<{ document: FormDocument; revision: number }> {
  const document = parseFormDocument(raw, 'document', { allowEmpty: true });
  for (const [name, field] of Object.entries(document.ui.fields)) {
    if (field.widget === 'file' || field.widget === 'consent' || field.bind)
      throw new AppError(
        'UNPROCESSABLE',
        `Customized field ${name} cannot be a ${field.bind ? 'bound' : field.widget} field`,
        {
          field: `ui.fields.${name}.widget`,
        },
      );
  }
  const before = await customFieldForm(tx, entity);
  if ((before?.revision ?? null) !== expectedRevision)
    throw new AppError('CONFLICT', 'The customized fields were changed by someone else; reload to see them', {
      field: 'expectedRevision',
    });
  const [row] = await tx.query<{ revision: number }>(
    `insert into custom_field_forms (tenant_id, entity, document, revision, updated_by)
     values ($1, $2, $3::jsonb, 1, $4)
     on conflict (tenant_id, entity) do update set document = excluded.document, revision = custom_field_forms.revision + 1,
       updated_by = excluded.updated_by, updated_at = now()
     returning revision`,
    [actor.tenantId, entity, JSON.stringify(document), actor.userId],
  );
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'customized_form.update',
    objectType: 'customized_form',
    objectId: entity,
    outcome: 'success',
    before: before?.document ?? null,
    after: document,
  });
  return { document, revision: row.revision };
}
