import crypto from 'node:crypto';
import type { Db, Tx } from '../db/index.ts';
import type { CustomersRow, FormSubmissionsRow } from '../db/schema.generated.ts';
import { enabledBinding } from '../decisioning/bindings.ts';
import { AppError } from '../errors/app-error.ts';
import type { Binding, FormDocument } from '../forms/document.ts';
import { keptAnswers, type Answers } from '../forms/fields.ts';
import type { Actor } from '../lending/actor.ts';
import { positiveAmount } from '../lending/commands/common.ts';
import { submitApplication } from '../lending/commands/submit-application.ts';
import { createCustomer } from '../lending/customers.ts';
import { assertProductActive, assertWithinProduct, getProduct } from '../lending/products.ts';
import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { ADMIN } from '../auth/permissions.ts';
import { defineCommand } from '../http/command.ts';
import { isUuid } from '../lending/loans.ts';
import { logger } from '../observability/log.ts';
import { filesRoot, removeStoredFile } from '../customer-files/files.ts';

/**
 * The submission pipeline of the public application page (README.md). `submitDraft` stores the
 * submission (one per draft, whatever the number of submits) and then processes it as the system:
 * finds or creates the customer, creates the loan application through the lending engine (which runs
 * the decision engine where a binding is enabled), links the uploaded files to the customer, and
 * records what happened on the submission. A processing failure keeps the submission ('failed', with
 * the error) and the applicant still gets the reference.
 */

/** Who processes public submissions: the system, on behalf of nobody (audit trail: actor kind 'system'). */
export const INTAKE_USER = 'system:public-application';

export function intakeActor(tenantId: string): Actor {
  return { tenantId, userId: INTAKE_USER, isAdmin: true, kind: 'system' };
}

export type Outcome = 'approved' | 'referred' | 'rejected' | 'received';
export type CustomerMatch = 'created' | 'matched' | 'review';
export type Difference = {
  field: 'firstName' | 'lastName' | 'dateOfBirth' | 'email' | 'phone' | 'nationalId';
  stored: string | null;
  given: string;
};

export type SubmissionRow = Omit<
  FormSubmissionsRow,
  'answers' | 'customer_differences' | 'outcome' | 'customer_match'
> & {
  answers: Answers;
  customer_differences: Difference[];
  outcome: Outcome | null;
  customer_match: CustomerMatch | null;
};

/** A term outside the product (or no product): shown on the field of the step that asked it. */
export type TermProblem = {
  field: string;
  key: 'between' | 'product' | 'amount';
  params?: Record<string, string | number>;
};

/** 'AB 12-34 c' → 'AB1234C': one national id however it is typed. */
export function normaliseNationalId(value: string): string {
  return value.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** '+33 6 12-34-56-78' and '0033612345678' → '33612345678': digits only, an international 00 dropped. */
export function normalisePhone(value: string): string {
  const digits = value.replace(/\D/g, '');
  return digits.startsWith('00') ? digits.slice(2) : digits;
}

/** The field bound to a target, if the form has one. */
export function boundField(doc: FormDocument, binding: Binding): string | null {
  for (const [name, ui] of Object.entries(doc.ui.fields)) if (ui.bind === binding) return name;
  return null;
}

function boundValue(doc: FormDocument, answers: Answers, binding: Binding): unknown {
  const name = boundField(doc, binding);
  return name ? answers[name] : undefined;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);

/** The product the applicant applies for: the bound answer (one of the form's) or the form's only product. */
function productOf(doc: FormDocument, productIds: readonly string[], answers: Answers): string | null {
  const chosen = text(boundValue(doc, answers, 'application.productId'));
  if (chosen) return productIds.includes(chosen) ? chosen : null;
  return productIds.length === 1 ? productIds[0]! : null;
}

/**
 * The application's terms checked against the product, before anything is stored: amount and number
 * of repayments within the product's ranges. Only the terms whose fields are in `only` (a step) are
 * reported when given.
 */
export async function termProblems(
  tx: Tx,
  doc: FormDocument,
  productIds: readonly string[],
  answers: Answers,
  only?: readonly string[],
): Promise<TermProblem[]> {
  const principalField = boundField(doc, 'application.principal');
  const termField = boundField(doc, 'application.numberOfRepayments');
  const productField = boundField(doc, 'application.productId');
  const inScope = (name: string | null) => !!name && (!only || only.includes(name));
  if (!inScope(principalField) && !inScope(termField) && !inScope(productField)) return [];
  const productId = productOf(doc, productIds, answers);
  if (!productId) return productField && inScope(productField) ? [{ field: productField, key: 'product' }] : [];
  let product;
  try {
    product = await getProduct(tx, productId);
    assertProductActive(product);
  } catch {
    return productField && inScope(productField) ? [{ field: productField, key: 'product' }] : [];
  }
  const problems: TermProblem[] = [];
  const principal = text(answers[principalField ?? '']);
  if (principalField && inScope(principalField) && principal) {
    let minor: bigint | null = null;
    try {
      minor = positiveAmount(principal, product.currency, 'principal').minor;
    } catch {
      problems.push({ field: principalField, key: 'amount' });
    }
    if (minor !== null && (minor < product.min_principal || minor > product.max_principal)) {
      try {
        assertWithinProduct(product, minor, product.min_repayments);
      } catch (error) {
        problems.push({ field: principalField, key: 'between', params: (error as AppError).params ?? {} });
      }
    }
  }
  const term = answers[termField ?? ''];
  if (termField && inScope(termField) && typeof term === 'number') {
    if (!Number.isInteger(term) || term < product.min_repayments || term > product.max_repayments)
      problems.push({
        field: termField,
        key: 'between',
        params: { min: product.min_repayments, max: product.max_repayments },
      });
  }
  return problems;
}

const REFERENCE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** 'APP-7K3M9Q': six characters nobody misreads over the phone (no 0/O, 1/I/L). */
export function newReference(): string {
  const bytes = crypto.randomBytes(6);
  let out = '';
  for (const byte of bytes) out += REFERENCE_ALPHABET[byte % REFERENCE_ALPHABET.length];
  return `APP-${out}`;
}

export type SubmitInput = {
  tenantId: string;
  draftId: string;
  formId: string;
  formVersion: number;
  document: FormDocument;
  productIds: readonly string[];
  language: 'en' | 'fr';
  clientHash: string | null;
  /** Where uploaded files are stored (tests); filesRoot() by default. */
  filesRoot?: string;
};

export type SubmitResult =
  { ok: true; submission: SubmissionRow; isNew: boolean } | { ok: false; problems: TermProblem[] };

/**
 * Stores the draft's submission (or finds the one it already has: a second submit answers the same)
 * and processes a new one. Nothing is stored when the terms are outside the product.
 */
export async function submitDraft(db: Db, input: SubmitInput): Promise<SubmitResult> {
  const stored = await db.tenant(input.tenantId, async (tx) => {
    const [draft] = await tx.query<{ answers: Answers; submission_id: string | null }>(
      'select answers, submission_id from form_drafts where id = $1 for update',
      [input.draftId],
    );
    if (!draft) throw new AppError('NOT_FOUND', 'Draft not found');
    if (draft.submission_id) {
      const [existing] = await tx.query<SubmissionRow>('select * from form_submissions where id = $1', [
        draft.submission_id,
      ]);
      return { ok: true as const, submission: existing, isNew: false };
    }
    const answers = keptAnswers(input.document, draft.answers);
    const problems = await termProblems(tx, input.document, input.productIds, answers);
    if (problems.length) return { ok: false as const, problems };
    let reference = newReference();
    while ((await tx.query('select 1 from form_submissions where reference = $1', [reference])).length)
      reference = newReference();
    const email = text(boundValue(input.document, answers, 'customer.email'));
    const [submission] = await tx.query<SubmissionRow>(
      `insert into form_submissions (tenant_id, form_id, form_version, reference, answers, language, client_hash, receipt_email)
       values ($1, $2, $3, $4, $5::jsonb, $6, $7, $8) returning *`,
      [
        input.tenantId,
        input.formId,
        input.formVersion,
        reference,
        JSON.stringify(answers),
        input.language,
        input.clientHash,
        email,
      ],
    );
    await tx.query('update form_drafts set submission_id = $2 where id = $1', [input.draftId, submission.id]);
    // Only the files of fields kept (visible) at submit go with the submission; the others are dropped.
    const keptFields = Object.keys(answers);
    await tx.query(
      'update form_submission_files set submission_id = $2 where draft_id = $1 and field = any($3::text[])',
      [input.draftId, submission.id, keptFields],
    );
    const dropped = await tx.query<{ storage_key: string }>(
      'delete from form_submission_files where draft_id = $1 and submission_id is null returning storage_key',
      [input.draftId],
    );
    await recordAudit(tx, {
      tenantId: input.tenantId,
      actorId: INTAKE_USER,
      actorKind: 'system',
      action: 'form_submission.receive',
      objectType: 'form_submission',
      objectId: submission.id,
      after: { reference, formId: input.formId, formVersion: input.formVersion },
      outcome: 'success',
    });
    return { ok: true as const, submission, isNew: true, dropped: dropped.map((row) => row.storage_key) };
  });
  if (!stored.ok || !stored.isNew) return stored;
  await removeStoredFiles(stored.dropped ?? [], input.filesRoot);
  const submission = await processSubmission(
    db,
    input.tenantId,
    stored.submission.id,
    input.document,
    input.productIds,
  );
  return { ok: true, submission, isNew: true };
}

type CustomerDetails = {
  firstName: string | null;
  lastName: string | null;
  nationalId: string | null;
  phone: string | null;
  email: string | null;
  dateOfBirth: string | null;
};

function detailsOf(doc: FormDocument, answers: Answers): CustomerDetails {
  return {
    firstName: text(boundValue(doc, answers, 'customer.firstName')),
    lastName: text(boundValue(doc, answers, 'customer.lastName')),
    nationalId: text(boundValue(doc, answers, 'customer.nationalId')),
    phone: text(boundValue(doc, answers, 'customer.phone')),
    email: text(boundValue(doc, answers, 'customer.email')),
    dateOfBirth: text(boundValue(doc, answers, 'customer.dateOfBirth')),
  };
}

/** What the applicant gave that differs from what is on file for the customer (case and spacing aside). */
export function differences(stored: CustomersRow, given: CustomerDetails): Difference[] {
  const same = {
    firstName: (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase(),
    lastName: (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase(),
    nationalId: (a: string, b: string) => normaliseNationalId(a) === normaliseNationalId(b),
    phone: (a: string, b: string) => normalisePhone(a) === normalisePhone(b),
    email: (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase(),
    dateOfBirth: (a: string, b: string) => a.slice(0, 10) === b.slice(0, 10),
  };
  const storedOf: Record<keyof typeof same, string | null> = {
    firstName: stored.first_name,
    lastName: stored.last_name,
    nationalId: stored.national_id,
    phone: stored.phone,
    email: stored.email,
    dateOfBirth: stored.date_of_birth ? String(stored.date_of_birth).slice(0, 10) : null,
  };
  const out: Difference[] = [];
  for (const field of Object.keys(same) as (keyof typeof same)[]) {
    const value = given[field];
    if (!value) continue;
    const before = storedOf[field];
    // Nothing on file is no conflict (the customer is left as it is all the same).
    if (before !== null && !same[field](before, value)) out.push({ field, stored: before, given: value });
  }
  return out;
}

/**
 * The customer with this national id, else this phone (normalised; the oldest when several), through
 * the normalised columns of migration 0711 (index lookups). A phone never finds a customer whose
 * national id differs from the one given: when a national id is given, a phone only finds a customer
 * with none on file.
 */
async function findCustomer(tx: Tx, given: CustomerDetails): Promise<CustomersRow | null> {
  const nationalId = given.nationalId ? normaliseNationalId(given.nationalId) : '';
  if (nationalId) {
    const [row] = await tx.query<CustomersRow>(
      `select * from customers where national_id_key = $1 order by created_at, id limit 1`,
      [nationalId],
    );
    if (row) return row;
  }
  if (given.phone) {
    const phone = normalisePhone(given.phone);
    if (phone.length >= 6) {
      const [row] = await tx.query<CustomersRow>(
        `select * from customers where phone_key = $1 and ($2 = '' or national_id_key is null)
          order by created_at, id limit 1`,
        [phone, nationalId],
      );
      if (row) return row;
    }
  }
  return null;
}

/**
 * A submission whose details differ from the customer it matched is held for a person: nothing is
 * attached to that customer (no application, no decision, no files). The applicant is told what an
 * applicant without a match could be told, so the answer says nothing about who is a customer:
 * 'received' when no decision engine runs on applications, and 'referred' (a person reviews it, one
 * of the decision engine's own outcomes) when one does. The submission keeps the matched customer and
 * the differences for the staff's review.
 */
async function holdForReview(
  tx: Tx,
  submission: SubmissionRow,
  customerId: string,
  diffs: Difference[],
): Promise<SubmissionRow> {
  const outcome: Outcome = (await enabledBinding(tx, 'application_submitted')) ? 'referred' : 'received';
  const [held] = await tx.query<SubmissionRow>(
    `update form_submissions set status = 'processed', customer_id = $2, customer_match = 'review',
        customer_differences = $3::jsonb, application_id = null, decision_id = null, outcome = $4,
        processed_at = now(), error = null
      where id = $1 returning *`,
    [submission.id, customerId, JSON.stringify(diffs), outcome],
  );
  await recordAudit(tx, {
    tenantId: submission.tenant_id,
    actorId: INTAKE_USER,
    actorKind: 'system',
    action: 'form_submission.process',
    objectType: 'form_submission',
    objectId: submission.id,
    after: { customerId, customerMatch: 'review', differences: diffs, applicationId: null, outcome },
    outcome: 'success',
  });
  return held;
}

/** Removes stored files (after their rows are gone); a file already missing is no error. */
export async function removeStoredFiles(keys: readonly string[], root = filesRoot()): Promise<void> {
  for (const key of keys) await removeStoredFile(root, key);
}

function outcomeOf(status: string, decision: { outcome: string } | null): Outcome {
  if (status === 'rejected') return 'rejected';
  if (!decision) return 'received';
  return decision.outcome === 'approve' ? 'approved' : decision.outcome === 'reject' ? 'rejected' : 'referred';
}

/**
 * Processes a stored submission as the system, in one transaction: customer, application (and its
 * decision), files, outcome. On failure the submission is marked 'failed' with the error.
 */
export async function processSubmission(
  db: Db,
  tenantId: string,
  submissionId: string,
  document: FormDocument,
  productIds: readonly string[],
): Promise<SubmissionRow> {
  try {
    return await db.tenant(tenantId, (tx) => processInTx(tx, tenantId, submissionId, document, productIds));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.warn('public application submission failed to process', {
      tenant_id: tenantId,
      submission_id: submissionId,
      error: message,
    });
    const [failed] = await db.tenant(tenantId, (tx) => markFailed(tx, submissionId, message));
    return failed;
  }
}

function markFailed(tx: Tx, submissionId: string, message: string): Promise<SubmissionRow[]> {
  return tx.query<SubmissionRow>(
    `update form_submissions set status = 'failed', error = $2, processed_at = now() where id = $1 returning *`,
    [submissionId, message.slice(0, 2000)],
  );
}

/** The processing of a 'received' submission inside the caller's transaction (throws on failure). */
async function processInTx(
  tx: Tx,
  tenantId: string,
  submissionId: string,
  document: FormDocument,
  productIds: readonly string[],
): Promise<SubmissionRow> {
  const actor = intakeActor(tenantId);
  {
    {
      const [submission] = await tx.query<SubmissionRow>(
        `select * from form_submissions where id = $1 and status = 'received' for update`,
        [submissionId],
      );
      if (!submission) throw new AppError('CONFLICT', 'The submission is not waiting to be processed');
      const answers = submission.answers;
      const given = detailsOf(document, answers);
      const found = await findCustomer(tx, given);
      let customerId: string;
      let match: CustomerMatch;
      let diffs: Difference[] = [];
      if (found) {
        customerId = found.id;
        diffs = differences(found, given);
        // Found by phone alone while a national id is on file and none was given: a person checks it.
        if (!given.nationalId && found.national_id)
          diffs.push({ field: 'nationalId', stored: found.national_id, given: '' });
        match = diffs.length ? 'review' : 'matched';
      } else {
        if (!given.firstName || !given.lastName)
          throw new AppError('BAD_REQUEST', 'The form has no first and last name to create the customer');
        const created = await createCustomer(tx, actor, {
          firstName: given.firstName,
          lastName: given.lastName,
          nationalId: given.nationalId,
          phone: given.phone,
          email: given.email,
          dateOfBirth: given.dateOfBirth,
        });
        customerId = created.id;
        match = 'created';
      }
      if (match === 'review') return holdForReview(tx, submission, customerId, diffs);
      const productId = productOf(document, productIds, answers);
      if (!productId) throw new AppError('BAD_REQUEST', 'No loan product for this application', { field: 'productId' });
      const principal = text(boundValue(document, answers, 'application.principal'));
      if (!principal) throw new AppError('BAD_REQUEST', 'The form has no amount', { field: 'principal' });
      const term = boundValue(document, answers, 'application.numberOfRepayments');
      const product = await getProduct(tx, productId);
      const bound = new Set(
        Object.entries(document.ui.fields)
          .filter(([, ui]) => ui.bind || ui.widget === 'file')
          .map(([name]) => name),
      );
      const formData: Record<string, unknown> = { source: 'public_application', reference: submission.reference };
      for (const [name, value] of Object.entries(answers)) if (!bound.has(name)) formData[name] = value;
      const { application, decision } = await submitApplication(tx, actor, {
        customerId,
        productId,
        principal,
        numberOfRepayments: typeof term === 'number' ? term : (product.default_repayments ?? product.min_repayments),
        formData,
      });
      const files = await tx.query<{
        id: string;
        file_name: string;
        content_type: string;
        size_bytes: number;
        sha256: string;
        storage_key: string;
      }>(
        'select id, file_name, content_type, size_bytes, sha256, storage_key from form_submission_files where submission_id = $1 order by created_at',
        [submissionId],
      );
      for (const file of files) {
        const [row] = await tx.query<{ id: string }>(
          `insert into customer_files (tenant_id, customer_id, kind, file_name, content_type, size_bytes, sha256, storage_key, uploaded_by)
           values ($1, $2, 'document', $3, $4, $5, $6, $7, $8) returning id`,
          [
            tenantId,
            customerId,
            file.file_name,
            file.content_type,
            file.size_bytes,
            file.sha256,
            file.storage_key,
            INTAKE_USER,
          ],
        );
        await tx.query('update form_submission_files set customer_file_id = $2 where id = $1', [file.id, row.id]);
        await recordAudit(tx, {
          tenantId,
          actorId: INTAKE_USER,
          actorKind: 'system',
          action: 'customer_file.upload',
          objectType: 'customer_file',
          objectId: row.id,
          after: {
            customerId,
            kind: 'document',
            fileName: file.file_name,
            sizeBytes: file.size_bytes,
            sha256: file.sha256,
          },
          outcome: 'success',
        });
      }
      const outcome = outcomeOf(application.status, decision);
      const [processed] = await tx.query<SubmissionRow>(
        `update form_submissions set status = 'processed', customer_id = $2, customer_match = $3, customer_differences = $4::jsonb,
            application_id = $5, decision_id = $6, outcome = $7, processed_at = now(), error = null
          where id = $1 returning *`,
        [submissionId, customerId, match, JSON.stringify(diffs), application.id, decision?.id ?? null, outcome],
      );
      await recordAudit(tx, {
        tenantId,
        actorId: INTAKE_USER,
        actorKind: 'system',
        action: 'form_submission.process',
        objectType: 'form_submission',
        objectId: submissionId,
        after: { customerId, customerMatch: match, differences: diffs, applicationId: application.id, outcome },
        outcome: 'success',
      });
      return processed;
    }
  }
}

/**
 * Retry of a failed submission (administrators, from its page or `POST
 * /v1/application-forms/:id/submissions/:submissionId/retry`): puts it back to 'received' and
 * processes it again with its version's document and products, in the same transaction (a savepoint:
 * a new failure is recorded on it with the new error). Audited 'form_submission.retry'.
 */
export const retrySubmissionCommand = defineCommand({
  action: 'form_submission.retry',
  objectType: 'form_submission',
  permission: ADMIN,
  input: z.object({ formId: z.string(), submissionId: z.string() }),
  run: async (tx, actor, input): Promise<SubmissionRow> => {
    if (!isUuid(input.formId) || !isUuid(input.submissionId)) throw new AppError('NOT_FOUND', 'Submission not found');
    const [before] = await tx.query<SubmissionRow>(
      'select * from form_submissions where id = $1 and form_id = $2 for update',
      [input.submissionId, input.formId],
    );
    if (!before) throw new AppError('NOT_FOUND', 'Submission not found');
    if (before.status !== 'failed')
      throw new AppError('CONFLICT', 'Only a failed submission can be retried', { details: { code: 'not_failed' } });
    const [version] = await tx.query<{ document: FormDocument; product_ids: string[] }>(
      'select document, product_ids::text[] as product_ids from application_form_versions where form_id = $1 and version = $2',
      [before.form_id, before.form_version],
    );
    if (!version) throw new AppError('NOT_FOUND', 'Submission not found');
    await tx.query(`update form_submissions set status = 'received', error = null where id = $1`, [before.id]);
    let after: SubmissionRow;
    await tx.query('savepoint submission_retry');
    try {
      after = await processInTx(tx, actor.tenantId, before.id, version.document, version.product_ids);
      await tx.query('release savepoint submission_retry');
    } catch (error) {
      await tx.query('rollback to savepoint submission_retry');
      [after] = await markFailed(tx, before.id, error instanceof Error ? error.message : String(error));
    }
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'form_submission.retry',
      objectType: 'form_submission',
      objectId: before.id,
      before: { status: before.status, error: before.error },
      after: { status: after!.status, outcome: after!.outcome, error: after!.error },
      outcome: 'success',
    });
    return after!;
  },
});

/** A submission of the tenant by id (the confirmation page reads it through the draft). */
export async function getSubmission(tx: Tx, submissionId: string): Promise<SubmissionRow | null> {
  const [row] = await tx.query<SubmissionRow>('select * from form_submissions where id = $1', [submissionId]);
  return row ?? null;
}
