import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { cleanFileName, filesRoot, readLimited } from '../customer-files/files.ts';
import { FORM_OVERHEAD } from '../customer-files/form-upload.ts';
import { MAX_UPLOAD_BYTES, type FieldUi, type FormDocument } from '../forms/document.ts';

/**
 * Uploads on the public page. The step posts multipart; the body is refused before it is buffered
 * when its declared length is above the page's hard cap (413 at once), and read with that cap otherwise
 * (a body longer than it says is cut off at the cap: never more than the cap in memory). A file is
 * kept only when its declared type AND its first bytes (PDF `%PDF-`, JPEG `FF D8 FF`, PNG
 * `89 50 4E 47`) are one of the field's accepted types, within its size; it is stored like customer
 * files (same storage root), in form_submission_files linked to the draft.
 */

/** The most a plain step without files may post (answers only). */
export const ANSWERS_BODY_LIMIT = 64 * 1024;

/**
 * The most any post to the public page may send, whatever the form: the server's own cap for the page
 * (src/lib/http/body-limit.ts). A post within it is read whole, so a file above its field's limit is
 * answered on its step as a field error with the other answers kept; only a body above it is a 413.
 */
export const HARD_BODY_LIMIT = MAX_UPLOAD_BYTES + FORM_OVERHEAD;

/** The files one step of the form may post together, capped at MAX_UPLOAD_BYTES (the server's cap). */
export function stepFileBytes(doc: FormDocument, step: number): number {
  const total = (doc.ui.steps[step]?.fields ?? [])
    .map((name) => doc.ui.fields[name])
    .filter((ui): ui is FieldUi => ui?.widget === 'file')
    .reduce((sum, ui) => sum + (ui.maxBytes ?? 0), 0);
  return Math.min(total, MAX_UPLOAD_BYTES);
}

/**
 * The most one post of this form may send: its heaviest step's files (never above MAX_UPLOAD_BYTES
 * together, the server's cap) plus room for boundaries and answers.
 */
export function bodyLimit(doc: FormDocument): number {
  let heaviest = 0;
  for (let step = 0; step < doc.ui.steps.length; step++) heaviest = Math.max(heaviest, stepFileBytes(doc, step));
  return heaviest > 0 ? heaviest + FORM_OVERHEAD : ANSWERS_BODY_LIMIT;
}

export function payloadTooLarge(limit: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than the limit', {
    details: { max_bytes: limit },
  });
}

/**
 * The body of a request, at most `limit` bytes: a declared Content-Length above it is refused
 * without reading a byte; a body longer than declared (or chunked) is refused as soon as it passes it.
 */
export async function readBody(request: Request, limit: number): Promise<Buffer> {
  const declared = request.headers.get('content-length');
  if (declared !== null && (!/^\d+$/.test(declared) || Number(declared) > limit)) {
    await request.body?.cancel().catch(() => undefined);
    throw payloadTooLarge(limit);
  }
  try {
    return await readLimited(request.body, limit);
  } catch (error) {
    if (error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE') throw payloadTooLarge(limit);
    throw error;
  }
}

export type PostedFile = { name: string; type: string; bytes: Buffer };
export type PostedForm = { fields: Record<string, string>; files: Record<string, PostedFile> };

/** The posted fields (first value of each name) and files (non-empty ones) of a read body. */
export async function parsePosted(contentType: string, body: Buffer): Promise<PostedForm> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const fields: Record<string, string> = {};
  const files: Record<string, PostedFile> = {};
  if (type === 'application/x-www-form-urlencoded') {
    for (const [key, value] of new URLSearchParams(body.toString('utf8'))) if (!(key in fields)) fields[key] = value;
    return { fields, files };
  }
  if (type !== 'multipart/form-data')
    throw new AppError('BAD_REQUEST', 'Send the form as a form post', { field: 'content-type' });
  let data: FormData;
  try {
    data = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new AppError('BAD_REQUEST', 'The form post could not be read', { field: 'body' });
  }
  for (const [key, value] of data) {
    if (typeof value === 'string') {
      if (!(key in fields)) fields[key] = value;
    } else if (value.size > 0 && !(key in files)) {
      files[key] = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
  }
  return { fields, files };
}

/** The type the first bytes say, among the accepted upload types, or null. */
export function sniffType(bytes: Buffer): 'application/pdf' | 'image/jpeg' | 'image/png' | null {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  return null;
}

export type UploadProblem = 'fileType' | 'fileSize';

/** Why a file does not fit its field, or its content type when it does. */
export function checkFile(
  ui: FieldUi,
  file: PostedFile,
): { ok: true; contentType: string } | { ok: false; problem: UploadProblem } {
  const accept: readonly string[] = ui.accept ?? [];
  if (file.bytes.length > (ui.maxBytes ?? 0)) return { ok: false, problem: 'fileSize' };
  const sniffed = sniffType(file.bytes);
  const declared = file.type.split(';')[0]!.trim().toLowerCase();
  // Browsers send no or a generic type for some files: then the bytes alone decide.
  const typeAgrees = declared === '' || declared === 'application/octet-stream' || declared === sniffed;
  if (!sniffed || !typeAgrees || !accept.includes(sniffed)) return { ok: false, problem: 'fileType' };
  return { ok: true, contentType: sniffed };
}

function storagePath(root: string, key: string): string {
  const full = path.resolve(root, key);
  if (!full.startsWith(path.resolve(root) + path.sep)) throw new AppError('INTERNAL', 'Bad storage key');
  return full;
}

/**
 * Stores a checked file of a draft's field (replacing the one received before for that field, bytes
 * included). The bytes are written first; if the row cannot be written they are removed.
 */
export async function storeDraftFile(
  db: Db,
  input: { tenantId: string; draftId: string; field: string; file: PostedFile; contentType: string },
  root = filesRoot(),
): Promise<{ id: string; fileName: string }> {
  let fileName: string;
  try {
    fileName = cleanFileName(input.file.name);
  } catch {
    fileName = `${input.field}.${input.contentType.split('/')[1] === 'jpeg' ? 'jpg' : input.contentType.split('/')[1]}`;
  }
  const id = crypto.randomUUID();
  const key = [encodeURIComponent(input.tenantId), 'applications', id].join('/');
  const full = storagePath(root, key);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, input.file.bytes, { flag: 'wx' });
  try {
    const replaced = await db.tenant(input.tenantId, async (tx) => {
      const old = await tx.query<{ storage_key: string }>(
        `delete from form_submission_files where draft_id = $1 and field = $2 and submission_id is null returning storage_key`,
        [input.draftId, input.field],
      );
      await tx.query(
        `insert into form_submission_files (tenant_id, id, draft_id, field, file_name, content_type, size_bytes, sha256, storage_key)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          input.tenantId,
          id,
          input.draftId,
          input.field,
          fileName,
          input.contentType,
          input.file.bytes.length,
          crypto.createHash('sha256').update(input.file.bytes).digest('hex'),
          key,
        ],
      );
      return old;
    });
    for (const old of replaced) await fs.rm(storagePath(root, old.storage_key), { force: true });
  } catch (error) {
    await fs.rm(full, { force: true });
    throw error;
  }
  return { id, fileName };
}
