import crypto from 'node:crypto';
import type { Tx } from '../db/index.ts';
import type { Answers } from '../forms/fields.ts';
import { filesRoot, removeStoredFile } from '../customer-files/files.ts';

/**
 * An applicant's progress on the public page, kept on the server between steps (the page works
 * without JavaScript, one step per page). Found by an unguessable token (32 random bytes, base64url)
 * that the page carries in a hidden field; only its SHA-256 is stored. Bound to the tenant, the form and
 * the version it was started on; it expires DRAFT_TTL_MS after it was last saved.
 */
export const DRAFT_TTL_MS = 24 * 60 * 60_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type Draft = {
  id: string;
  formId: string;
  formVersion: number;
  language: 'en' | 'fr';
  step: number;
  answers: Answers;
  submissionId: string | null;
};

type DraftRecord = {
  id: string;
  form_id: string;
  form_version: number;
  language: 'en' | 'fr';
  step: number;
  answers: Answers;
  submission_id: string | null;
};

const toDraft = (row: DraftRecord): Draft => ({
  id: row.id,
  formId: row.form_id,
  formVersion: row.form_version,
  language: row.language,
  step: row.step,
  answers: row.answers ?? {},
  submissionId: row.submission_id,
});

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export function isDraftToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN.test(value);
}

/** A new draft of a form version; its token (returned once, never stored). */
export async function startDraft(
  tx: Tx,
  input: { tenantId: string; formId: string; formVersion: number; language: 'en' | 'fr' },
  now = new Date(),
  root = filesRoot(),
): Promise<{ token: string; draft: Draft }> {
  const token = crypto.randomBytes(32).toString('base64url');
  const [row] = await tx.query<DraftRecord>(
    `insert into form_drafts (tenant_id, token_hash, form_id, form_version, language, expires_at)
     values ($1, $2, $3, $4, $5, $6) returning id, form_id, form_version, language, step, answers, submission_id`,
    [
      input.tenantId,
      hashToken(token),
      input.formId,
      input.formVersion,
      input.language,
      new Date(now.getTime() + DRAFT_TTL_MS),
    ],
  );
  // Expired drafts of the tenant are of no use: removed as new ones come (their files stay with a submission only).
  // Their stored files go too (a file already missing is no error; should this transaction roll back,
  // the rows of the expired drafts stay and are removed with the next draft).
  const expired = await tx.query<{ storage_key: string }>(
    `delete from form_submission_files f using form_drafts d
      where d.expires_at < $1 and d.submission_id is null and f.draft_id = d.id and f.submission_id is null
      returning f.storage_key`,
    [now],
  );
  await tx.query('delete from form_drafts where expires_at < $1 and submission_id is null', [now]);
  for (const row of expired) await removeStoredFile(root, row.storage_key);
  return { token, draft: toDraft(row) };
}

/** The draft behind a token, for this form, unexpired (a submitted one is kept for its confirmation); else null. */
export async function findDraft(
  tx: Tx,
  formId: string,
  token: unknown,
  options: { lock?: boolean; now?: Date } = {},
): Promise<Draft | null> {
  if (!isDraftToken(token)) return null;
  const rows = await tx.query<DraftRecord>(
    `select id, form_id, form_version, language, step, answers, submission_id from form_drafts
      where token_hash = $1 and form_id = $2 and (expires_at > $3 or submission_id is not null)
      ${options.lock ? 'for update' : ''}`,
    [hashToken(token), formId, options.now ?? new Date()],
  );
  return rows[0] ? toDraft(rows[0]) : null;
}

/** Saves the answers, the furthest step and the language; the draft lives another DRAFT_TTL_MS. */
export async function saveDraft(
  tx: Tx,
  draftId: string,
  patch: { answers: Answers; step: number; language: 'en' | 'fr' },
  now = new Date(),
): Promise<void> {
  await tx.query(
    `update form_drafts set answers = $2::jsonb, step = greatest(step, $3), language = $4, updated_at = $5, expires_at = $6
      where id = $1 and submission_id is null`,
    [draftId, JSON.stringify(patch.answers), patch.step, patch.language, now, new Date(now.getTime() + DRAFT_TTL_MS)],
  );
}

/** The files received on a draft, by field: id and name. */
export async function draftFiles(tx: Tx, draftId: string): Promise<Record<string, { id: string; fileName: string }>> {
  const rows = await tx.query<{ id: string; field: string; file_name: string }>(
    'select id, field, file_name from form_submission_files where draft_id = $1 order by created_at',
    [draftId],
  );
  const out: Record<string, { id: string; fileName: string }> = {};
  for (const row of rows) out[row.field] = { id: row.id, fileName: row.file_name };
  return out;
}
