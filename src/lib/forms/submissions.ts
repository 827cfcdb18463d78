import fs from 'node:fs';
import path from 'node:path';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { filesRoot } from '../customer-files/files.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { QueryReader, isUuid } from '../http/query-params.ts';
import type { Actor } from '../lending/actor.ts';
import { orderedFieldNames, textOf, type FormDocument } from './document.ts';

/**
 * The submissions of an application form, as administrators read them (admin › business ›
 * application form › submissions, GET /v1/application-forms/:id/submissions[/:submissionId]):
 * a filtered list paged by keyset (newest first: created_at, id — the index form_submissions_form),
 * one submission with the answers of the version it used, its files, customer, application and
 * decision, and the stored files streamed back. Reads only: the intake pipeline writes submissions.
 */

export const SUBMISSION_STATUSES = ['received', 'processed', 'failed'] as const;
export const SUBMISSION_OUTCOMES = ['approved', 'referred', 'rejected', 'received'] as const;
export const CUSTOMER_MATCHES = ['created', 'matched', 'review'] as const;
export const PAGE_SIZE = 50;
/** An export holds at most this many submissions (a filter narrows a larger list). */
export const EXPORT_MAX_ROWS = 50_000;

export type SubmissionFilter = {
  status?: (typeof SUBMISSION_STATUSES)[number];
  outcome?: (typeof SUBMISSION_OUTCOMES)[number];
  match?: (typeof CUSTOMER_MATCHES)[number];
  /** Calendar days in the tenant's time zone, inclusive. */
  from?: string;
  to?: string;
  /** A reference (prefix) or part of the applicant's name. */
  q?: string;
};

export const FILTER_PARAMS = ['status', 'outcome', 'match', 'from', 'to', 'q'] as const;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function day(reader: QueryReader, name: 'from' | 'to'): string | undefined {
  const raw = reader.one(name)?.trim();
  if (!raw) return undefined;
  const parsed = new Date(`${raw}T00:00:00Z`);
  if (!DAY.test(raw) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== raw)
    throw new AppError('BAD_REQUEST', `${name} must be a date (YYYY-MM-DD)`, { field: name });
  return raw;
}

/** The filters of a request's query (400 naming a bad parameter; unknown parameters refused). */
export function readSubmissionFilter(
  params: URLSearchParams,
  extra: readonly string[] = [],
): { filter: SubmissionFilter; reader: QueryReader } {
  const reader = new QueryReader(params, [...FILTER_PARAMS, ...extra]);
  const filter: SubmissionFilter = {
    status: reader.oneOf('status', SUBMISSION_STATUSES),
    outcome: reader.oneOf('outcome', SUBMISSION_OUTCOMES),
    match: reader.oneOf('match', CUSTOMER_MATCHES),
    from: day(reader, 'from'),
    to: day(reader, 'to'),
    q: reader.text('q', { max: 100 }),
  };
  if (filter.from && filter.to && filter.from > filter.to)
    throw new AppError('BAD_REQUEST', 'from must not be after to', { field: 'to' });
  for (const key of Object.keys(filter) as (keyof SubmissionFilter)[])
    if (filter[key] === undefined) delete filter[key];
  return { filter, reader };
}

/** The filter as query parameters (links keep it: paging, export, back from a submission). */
export function filterParams(filter: SubmissionFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of FILTER_PARAMS) if (filter[key]) params.set(key, String(filter[key]));
  return params;
}

export type FormSummary = { id: string; name: string; slug: string; publishedVersion: number | null };

/** The form (this tenant's), or 404. */
export async function getFormSummary(tx: Tx, formId: string): Promise<FormSummary> {
  if (!isUuid(formId)) throw new AppError('NOT_FOUND', 'Application form not found', { field: 'id' });
  const [row] = await tx.query<{ id: string; name: string; slug: string; published_version: number | null }>(
    'select id, name, slug, published_version from application_forms where id = $1',
    [formId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Application form not found', { field: 'id' });
  return { id: row.id, name: row.name, slug: row.slug, publishedVersion: row.published_version };
}

/** The applicant's name: the linked customer's, else the answers bound to the customer's names. */
const APPLICANT_NAME = `coalesce(
  nullif(trim(concat_ws(' ', c.first_name, c.last_name)), ''),
  (select string_agg(s.answers ->> f.key, ' ' order by f.value ->> 'bind')
     from jsonb_each(v.document -> 'ui' -> 'fields') f
    where f.value ->> 'bind' in ('customer.firstName', 'customer.lastName') and jsonb_typeof(s.answers -> f.key) = 'string'),
  '')`;

type ListRow = {
  id: string;
  reference: string;
  created_at: Date;
  status: string;
  customer_match: string | null;
  outcome: string | null;
  form_version: number;
  applicant: string;
  customer_id: string | null;
  application_id: string | null;
  answers: Record<string, unknown>;
};

export type SubmissionListItem = {
  id: string;
  reference: string;
  createdAt: string;
  applicant: string;
  status: string;
  customerMatch: string | null;
  outcome: string | null;
  formVersion: number;
  customerId: string | null;
  applicationId: string | null;
};

function itemOf(row: ListRow): SubmissionListItem {
  return {
    id: row.id,
    reference: row.reference,
    createdAt: new Date(row.created_at).toISOString(),
    applicant: row.applicant,
    status: row.status,
    customerMatch: row.customer_match,
    outcome: row.outcome,
    formVersion: row.form_version,
    customerId: row.customer_id,
    applicationId: row.application_id,
  };
}

/** A keyset position: the last row's time and id, base64url (opaque to clients). */
export function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(`${new Date(row.created_at).toISOString()}|${row.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { at: string; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!at || !id || !isUuid(id) || Number.isNaN(Date.parse(at)))
    throw new AppError('BAD_REQUEST', 'after is not a cursor this API handed out', { field: 'after' });
  return { at, id };
}

async function selectPage(
  tx: Tx,
  formId: string,
  filter: SubmissionFilter,
  options: { limit: number; after?: string; timeZone: string },
): Promise<ListRow[]> {
  const where = ['s.form_id = $1'];
  const params: unknown[] = [formId];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filter.status) add((n) => `s.status = ${n}`, filter.status);
  if (filter.outcome) add((n) => `s.outcome = ${n}`, filter.outcome);
  if (filter.match) add((n) => `s.customer_match = ${n}`, filter.match);
  if (filter.from || filter.to) params.push(options.timeZone);
  const zone = `$${params.length}`;
  if (filter.from) add((n) => `s.created_at >= (${n}::date)::timestamp at time zone ${zone}`, filter.from);
  if (filter.to) add((n) => `s.created_at < (${n}::date + 1)::timestamp at time zone ${zone}`, filter.to);
  if (filter.q) {
    const escaped = filter.q.replace(/[\\%_]/g, (c) => `\\${c}`);
    const like = `%${escaped}%`;
    params.push(escaped.toUpperCase());
    const ref = `$${params.length}`;
    add((n) => `(s.reference like ${ref} || '%' or ${APPLICANT_NAME} ilike ${n})`, like);
  }
  if (options.after) {
    const { at, id } = decodeCursor(options.after);
    params.push(at, id);
    where.push(`(s.created_at, s.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(options.limit);
  return tx.query<ListRow>(
    `select s.id, s.reference, s.created_at, s.status, s.customer_match, s.outcome, s.form_version, s.customer_id,
            s.application_id, s.answers, ${APPLICANT_NAME} as applicant
       from form_submissions s
       join application_form_versions v on v.form_id = s.form_id and v.version = s.form_version
       left join customers c on c.id = s.customer_id
      where ${where.join(' and ')}
      order by s.created_at desc, s.id desc
      limit $${params.length}`,
    params,
  );
}

/** One page of a form's submissions, newest first; `next` continues after its last row. */
export async function listSubmissions(
  tx: Tx,
  formId: string,
  filter: SubmissionFilter,
  options: { limit?: number; after?: string; timeZone: string },
): Promise<{ items: SubmissionListItem[]; next: string | null }> {
  const limit = options.limit ?? PAGE_SIZE;
  const rows = await selectPage(tx, formId, filter, { ...options, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return { items: page.map(itemOf), next: rows.length > limit ? encodeCursor(page[page.length - 1]) : null };
}

/** Every submission matching the filter, in batches (the export), at most EXPORT_MAX_ROWS. */
export async function* submissionBatches(
  run: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>,
  formId: string,
  filter: SubmissionFilter,
  timeZone: string,
  batchSize = 500,
): AsyncGenerator<(SubmissionListItem & { answers: Record<string, unknown> })[]> {
  let after: string | undefined;
  let total = 0;
  while (total < EXPORT_MAX_ROWS) {
    const limit = Math.min(batchSize, EXPORT_MAX_ROWS - total);
    const rows = await run((tx) => selectPage(tx, formId, filter, { limit, after, timeZone }));
    if (rows.length === 0) return;
    total += rows.length;
    yield rows.map((row) => ({ ...itemOf(row), answers: row.answers ?? {} }));
    if (rows.length < limit) return;
    after = encodeCursor(rows[rows.length - 1]);
  }
}

/** The versions' documents by number (what each submission's answers mean). */
export async function formVersions(tx: Tx, formId: string, versions: number[]): Promise<Map<number, FormDocument>> {
  if (versions.length === 0) return new Map();
  const rows = await tx.query<{ version: number; document: FormDocument }>(
    'select version, document from application_form_versions where form_id = $1 and version = any($2::int[])',
    [formId, [...new Set(versions)]],
  );
  return new Map(rows.map((r) => [r.version, r.document]));
}

/**
 * The answer columns of an export: every field of the versions used, newest version's order first,
 * then fields only older versions had; the label is the newest version's that has the field.
 */
export function answerColumns(
  documents: Map<number, FormDocument>,
  language: string,
): { name: string; label: string; version: number }[] {
  const out = new Map<string, { name: string; label: string; version: number }>();
  for (const version of [...documents.keys()].sort((a, b) => b - a)) {
    const doc = documents.get(version)!;
    for (const name of orderedFieldNames(doc)) {
      const ui = doc.ui.fields[name];
      if (!ui || out.has(name)) continue;
      out.set(name, { name, label: textOf(ui.label, language) || name, version });
    }
  }
  return [...out.values()];
}

export type FileRow = {
  id: string;
  field: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  storage_key: string;
  created_at: Date;
};

export type SubmissionDetail = {
  form: FormSummary;
  submission: SubmissionListItem & {
    language: string;
    answers: Record<string, unknown>;
    customerDifferences: unknown;
    decisionId: string | null;
    error: string | null;
    processedAt: string | null;
  };
  document: FormDocument;
  files: FileRow[];
  customer: { id: string; name: string } | null;
  application: { id: string; customerId: string; status: string } | null;
};

/** One submission of the form (404 for another form's or an unknown id), with what it links to. */
export async function getSubmission(tx: Tx, formId: string, submissionId: string): Promise<SubmissionDetail> {
  const form = await getFormSummary(tx, formId);
  if (!isUuid(submissionId)) throw new AppError('NOT_FOUND', 'Submission not found', { field: 'submissionId' });
  const [row] = await tx.query<
    ListRow & {
      language: string;
      customer_differences: unknown;
      decision_id: string | null;
      error: string | null;
      processed_at: Date | null;
      document: FormDocument;
      customer_name: string | null;
    }
  >(
    `select s.id, s.reference, s.created_at, s.status, s.customer_match, s.outcome, s.form_version, s.customer_id,
            s.application_id, s.answers, s.language, s.customer_differences, s.decision_id, s.error, s.processed_at,
            v.document, ${APPLICANT_NAME} as applicant,
            case when c.id is null then null else trim(concat_ws(' ', c.first_name, c.last_name)) end as customer_name
       from form_submissions s
       join application_form_versions v on v.form_id = s.form_id and v.version = s.form_version
       left join customers c on c.id = s.customer_id
      where s.form_id = $1 and s.id = $2`,
    [formId, submissionId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Submission not found', { field: 'submissionId' });
  const files = await tx.query<FileRow>(
    `select id, field, file_name, content_type, size_bytes, storage_key, created_at from form_submission_files
      where submission_id = $1 order by created_at, id`,
    [submissionId],
  );
  const [application] = row.application_id
    ? await tx.query<{ id: string; customer_id: string; status: string }>(
        'select id, customer_id, status from loan_applications where id = $1',
        [row.application_id],
      )
    : [];
  return {
    form,
    submission: {
      ...itemOf(row),
      language: row.language,
      answers: row.answers ?? {},
      customerDifferences: row.customer_differences,
      decisionId: row.decision_id,
      error: row.error,
      processedAt: row.processed_at ? new Date(row.processed_at).toISOString() : null,
    },
    document: row.document,
    files,
    customer: row.customer_id && row.customer_name !== null ? { id: row.customer_id, name: row.customer_name } : null,
    application: application
      ? { id: application.id, customerId: application.customer_id, status: application.status }
      : null,
  };
}

/** The submission as JSON (the API): answers, files (with their download address), links. */
export function submissionJson(detail: SubmissionDetail) {
  const base = `/v1/application-forms/${detail.form.id}/submissions/${detail.submission.id}`;
  return {
    ...detail.submission,
    form: { id: detail.form.id, name: detail.form.name },
    files: detail.files.map((f) => ({
      id: f.id,
      field: f.field,
      fileName: f.file_name,
      contentType: f.content_type,
      sizeBytes: f.size_bytes,
      href: `${base}/files/${f.id}`,
    })),
    customer: detail.customer,
    application: detail.application,
    document: detail.document,
  };
}

/** A stored file's place on disk, refusing a key that would leave the files root. */
export function submissionFilePath(storageKey: string, root = filesRoot()): string {
  const full = path.resolve(root, storageKey);
  if (!full.startsWith(path.resolve(root) + path.sep))
    throw new AppError('INTERNAL', 'Bad storage key', { internal: storageKey });
  return full;
}

/**
 * One file of a submission for download (404 when it is not this submission's, or missing from
 * storage), the download audited (who read which applicant document).
 */
export async function submissionFileForDownload(
  tx: Tx,
  actor: Actor,
  ids: { formId: string; submissionId: string; fileId: string },
  root = filesRoot(),
): Promise<{ file: FileRow; filePath: string }> {
  await getFormSummary(tx, ids.formId);
  if (!isUuid(ids.submissionId) || !isUuid(ids.fileId)) throw new AppError('NOT_FOUND', 'File not found');
  const [file] = await tx.query<FileRow>(
    `select f.id, f.field, f.file_name, f.content_type, f.size_bytes, f.storage_key, f.created_at
       from form_submission_files f join form_submissions s on s.id = f.submission_id
      where f.id = $1 and f.submission_id = $2 and s.form_id = $3`,
    [ids.fileId, ids.submissionId, ids.formId],
  );
  if (!file) throw new AppError('NOT_FOUND', 'File not found', { field: 'fileId' });
  const filePath = submissionFilePath(file.storage_key, root);
  if (!fs.existsSync(filePath))
    throw new AppError('NOT_FOUND', 'The file is missing from storage', { field: 'fileId' });
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'form_submission_file.download',
    objectType: 'form_submission_file',
    objectId: file.id,
    after: { submissionId: ids.submissionId, fileName: file.file_name },
    outcome: 'success',
  });
  return { file, filePath };
}
