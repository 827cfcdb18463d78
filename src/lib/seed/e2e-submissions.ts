import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { filesRoot } from '../customer-files/files.ts';
import type { Tx } from '../db/index.ts';
import { formOf } from '../forms/build.ts';

/**
 * The application form of tests/e2e/forms-submissions.spec.ts and its submissions (only with E2E=1):
 * a published form with three submissions (processed and approved, processed for review with the
 * details that differ, failed with its error) and a PDF uploaded with one of them, written under the
 * files root. Written directly: a fixture, not a user's action.
 */
export const E2E_SUBMISSIONS_FORM_ID = '6f0c2a52-6d3e-4b8e-9a51-0e2e5b7c1a01';
export const E2E_SUBMISSIONS_FILE = { name: 'payslip.pdf', bytes: '%PDF-1.4\n% e2e payslip\n' } as const;

const FORM = formOf([
  {
    id: 'you',
    title: { en: 'You', fr: 'Vous' },
    fields: [
      {
        name: 'first',
        widget: 'text',
        label: { en: 'First name', fr: 'Prénom' },
        required: true,
        ui: { bind: 'customer.firstName' },
      },
      {
        name: 'last',
        widget: 'text',
        label: { en: 'Last name', fr: 'Nom' },
        required: true,
        ui: { bind: 'customer.lastName' },
      },
      { name: 'amount', widget: 'money', label: { en: 'Amount wanted', fr: 'Montant souhaité' }, required: true },
      {
        name: 'purpose',
        widget: 'select',
        label: { en: 'Purpose', fr: 'Objet' },
        ui: {
          options: [
            { value: 'car', label: { en: 'A car', fr: 'Une voiture' } },
            { value: 'home', label: { en: 'Home works', fr: 'Des travaux' } },
          ],
        },
      },
      { name: 'payslip', widget: 'file', label: { en: 'Payslip', fr: 'Fiche de paie' } },
    ],
  },
]);

export async function seedE2eSubmissions(tx: Tx, tenantId: string): Promise<void> {
  const formId = E2E_SUBMISSIONS_FORM_ID;
  await tx.query(
    `insert into application_forms (tenant_id, id, slug, name, draft, created_by) values ($1, $2, 'e2e-submissions', 'E2E personal loan', $3::jsonb, 'seed')`,
    [tenantId, formId, JSON.stringify(FORM)],
  );
  await tx.query(
    `insert into application_form_versions (tenant_id, form_id, version, document, published_by) values ($1, $2, 1, $3::jsonb, 'seed')`,
    [tenantId, formId, JSON.stringify(FORM)],
  );
  await tx.query('update application_forms set published_version = 1 where tenant_id = $1 and id = $2', [
    tenantId,
    formId,
  ]);
  const submission = async (reference: string, days: number, values: Record<string, unknown>) => {
    const id = crypto.randomUUID();
    await tx.query(
      `insert into form_submissions (tenant_id, id, form_id, form_version, reference, status, answers, language, customer_match,
         customer_differences, outcome, error, created_at, processed_at)
       values ($1, $2, $3, 1, $4, $5, $6::jsonb, $7, $8, $9::jsonb, $10, $11, now() - make_interval(days => $12), now())`,
      [
        tenantId,
        id,
        formId,
        reference,
        values.status,
        JSON.stringify(values.answers),
        values.language ?? 'en',
        values.match ?? null,
        JSON.stringify(values.differences ?? []),
        values.outcome ?? null,
        values.error ?? null,
        days,
      ],
    );
    return id;
  };
  await submission('E2E-SUB-001', 3, {
    status: 'processed',
    match: 'created',
    outcome: 'approved',
    answers: { first: 'Ada', last: 'Lovelace', amount: '1500.00', purpose: 'car' },
  });
  const review = await submission('E2E-SUB-002', 2, {
    status: 'processed',
    match: 'review',
    outcome: 'referred',
    language: 'fr',
    differences: [{ field: 'phone', stored: '+33 1 00 00 00 00', given: '+33 6 11 11 11 11' }],
    answers: { first: 'Zoé', last: 'Martin', amount: '2500.50', purpose: 'home', payslip: 'payslip.pdf' },
  });
  await submission('E2E-SUB-003', 1, {
    status: 'failed',
    error: 'The product of this form is not available',
    answers: { first: 'Bob', last: '<b>Tables</b>', amount: '300.00' },
  });
  const fileId = crypto.randomUUID();
  const key = [encodeURIComponent(tenantId), 'submissions', review, fileId].join('/');
  const full = path.join(filesRoot(), key);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  const bytes = Buffer.from(E2E_SUBMISSIONS_FILE.bytes);
  fs.writeFileSync(full, bytes);
  await tx.query(
    `insert into form_submission_files (tenant_id, id, submission_id, field, file_name, content_type, size_bytes, sha256, storage_key)
     values ($1, $2, $3, 'payslip', $4, 'application/pdf', $5, $6, $7)`,
    [
      tenantId,
      fileId,
      review,
      E2E_SUBMISSIONS_FILE.name,
      bytes.length,
      crypto.createHash('sha256').update(bytes).digest('hex'),
      key,
    ],
  );
}
