import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '#lib/db/index.ts';
import type { FormDocument } from '#lib/forms/document.ts';

/**
 * Test setup for application-form submissions without the public page: a published form with its
 * versions, submissions as the intake pipeline stores them, and uploaded files written under a files
 * root (the layout of src/lib/customer-files: <root>/<tenant>/<...>/<id>).
 */
export async function insertForm(
  db: Db,
  tenantId: string,
  input: { slug: string; name: string; versions: FormDocument[]; userId?: string },
): Promise<string> {
  const id = crypto.randomUUID();
  const last = input.versions.length;
  await db.tenant(tenantId, async (tx) => {
    await tx.query(
      `insert into application_forms (tenant_id, id, slug, name, draft, published_version, created_by)
       values ($1, $2, $3, $4, $5::jsonb, null, $6)`,
      [tenantId, id, input.slug, input.name, JSON.stringify(input.versions[last - 1]), input.userId ?? 'test'],
    );
    for (const [index, document] of input.versions.entries())
      await tx.query(
        `insert into application_form_versions (tenant_id, form_id, version, document, published_by)
         values ($1, $2, $3, $4::jsonb, $5)`,
        [tenantId, id, index + 1, JSON.stringify(document), input.userId ?? 'test'],
      );
    await tx.query('update application_forms set published_version = $2 where id = $1', [id, last]);
  });
  return id;
}

export type SubmissionSeed = {
  formId: string;
  version: number;
  reference: string;
  answers: Record<string, unknown>;
  status?: 'received' | 'processed' | 'failed';
  customerId?: string | null;
  customerMatch?: 'created' | 'matched' | 'review' | null;
  customerDifferences?: unknown[];
  applicationId?: string | null;
  decisionId?: string | null;
  outcome?: 'approved' | 'referred' | 'rejected' | 'received' | null;
  error?: string | null;
  language?: 'en' | 'fr';
  createdAt?: string;
};

export async function insertSubmission(db: Db, tenantId: string, s: SubmissionSeed): Promise<string> {
  const id = crypto.randomUUID();
  await db.tenant(tenantId, (tx) =>
    tx.query(
      `insert into form_submissions (tenant_id, id, form_id, form_version, reference, status, answers, language, customer_id,
         customer_match, customer_differences, application_id, decision_id, outcome, error, created_at, processed_at)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, coalesce($16::timestamptz, now()),
         case when $6 = 'received' then null else coalesce($16::timestamptz, now()) end)`,
      [
        tenantId,
        id,
        s.formId,
        s.version,
        s.reference,
        s.status ?? 'received',
        JSON.stringify(s.answers),
        s.language ?? 'en',
        s.customerId ?? null,
        s.customerMatch ?? null,
        JSON.stringify(s.customerDifferences ?? []),
        s.applicationId ?? null,
        s.decisionId ?? null,
        s.outcome ?? null,
        s.error ?? null,
        s.createdAt ?? null,
      ],
    ),
  );
  return id;
}

/** Writes the bytes under the files root and records them as one of the submission's files. */
export async function insertSubmissionFile(
  db: Db,
  tenantId: string,
  root: string,
  input: { submissionId: string; field: string; fileName: string; contentType: string; bytes: Buffer },
): Promise<string> {
  const id = crypto.randomUUID();
  const key = [encodeURIComponent(tenantId), 'submissions', input.submissionId, id].join('/');
  const full = path.join(root, key);
  await fs.promises.mkdir(path.dirname(full), { recursive: true });
  await fs.promises.writeFile(full, input.bytes);
  await db.tenant(tenantId, (tx) =>
    tx.query(
      `insert into form_submission_files (tenant_id, id, submission_id, field, file_name, content_type, size_bytes, sha256, storage_key)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        tenantId,
        id,
        input.submissionId,
        input.field,
        input.fileName,
        input.contentType,
        input.bytes.length,
        crypto.createHash('sha256').update(input.bytes).digest('hex'),
        key,
      ],
    ),
  );
  return id;
}
