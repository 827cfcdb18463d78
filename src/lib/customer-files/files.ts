import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { env } from '../config/env.ts';
import type { Actor } from '../lending/actor.ts';
import { assertUuid } from '../lending/loans.ts';
import { extractPdfText } from './pdf-text.ts';
import { assertInScope, isInNodes, notFoundError } from '../auth/data-permissions.ts';
import type { CustomerFilesRow } from '../db/schema.generated.ts';

/**
 * Customer files (profile "files" and "upload-bureau-pdf", permissions customer.files.*): the bytes live
 * on disk under the files root (DATA_DIR/files unless CUSTOMER_FILES_DIR says otherwise), the metadata in
 * customer_files. Type and declared size are checked before a byte of the body is read; the real size
 * is enforced while reading, so a lying or missing Content-Length cannot make us buffer more than the limit.
 */
export const FILE_KINDS = ['document', 'bureau_pdf', 'bank_statement'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export type FileRule = { contentTypes: readonly string[]; extensions: readonly string[]; maxBytes: number };

const MB = 1024 * 1024;
export const FILE_RULES: Record<FileKind, FileRule> = {
  document: {
    contentTypes: ['application/pdf', 'image/png', 'image/jpeg', 'text/csv', 'text/plain'],
    extensions: ['.pdf', '.png', '.jpg', '.jpeg', '.csv', '.txt'],
    maxBytes: 10 * MB,
  },
  bureau_pdf: { contentTypes: ['application/pdf'], extensions: ['.pdf'], maxBytes: 10 * MB },
  bank_statement: {
    contentTypes: ['text/csv', 'text/plain', 'application/vnd.ms-excel'],
    extensions: ['.csv'],
    maxBytes: 2 * MB,
  },
};

const TYPE_BY_EXTENSION: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.csv': 'text/csv',
  '.txt': 'text/plain',
};

/** A `customer_files` row; the kind check constraint narrows one column. */
export type CustomerFileRow = Omit<CustomerFilesRow, 'kind'> & { kind: FileKind };

export type UploadMeta = { kind: string; fileName: string; contentType: string; declaredLength: number | null };

export function filesRoot(): string {
  return process.env.CUSTOMER_FILES_DIR
    ? path.resolve(process.env.CUSTOMER_FILES_DIR)
    : path.join(env().dataDir, 'files');
}

export function isFileKind(value: string): value is FileKind {
  return (FILE_KINDS as readonly string[]).includes(value);
}

/** A display-safe file name: no folders, no control characters, at most 200 characters. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // Control characters are exactly what this strips.
  const cleaned = base
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim()
    .slice(0, 200);
  if (!cleaned || cleaned === '.' || cleaned === '..')
    throw new AppError('BAD_REQUEST', 'fileName is required', { field: 'fileName' });
  return cleaned;
}

/** Everything that can be refused before reading the body: kind, name, type and declared size. */
export function checkUploadMeta(meta: UploadMeta): {
  kind: FileKind;
  fileName: string;
  contentType: string;
  rule: FileRule;
} {
  if (!isFileKind(meta.kind))
    throw new AppError('BAD_REQUEST', `kind must be one of ${FILE_KINDS.join(', ')}`, { field: 'kind' });
  const rule = FILE_RULES[meta.kind];
  const fileName = cleanFileName(meta.fileName);
  const extension = path.extname(fileName).toLowerCase();
  let contentType = meta.contentType.split(';')[0].trim().toLowerCase();
  // Browsers send no or a generic type for some files: then the extension decides.
  if (contentType === '' || contentType === 'application/octet-stream')
    contentType = TYPE_BY_EXTENSION[extension] ?? contentType;
  if (!rule.contentTypes.includes(contentType) || !rule.extensions.includes(extension)) {
    throw new AppError('BAD_REQUEST', `This file type is not accepted here (allowed: ${rule.extensions.join(', ')})`, {
      field: 'file',
    });
  }
  if (meta.declaredLength !== null && meta.declaredLength > rule.maxBytes) throw tooLarge(rule.maxBytes);
  return { kind: meta.kind, fileName, contentType, rule };
}

export function tooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The file is larger than the limit of ${Math.round(maxBytes / MB)} MB`, {
    field: 'file',
    details: { maxBytes },
  });
}

/** Reads a body, refusing (413) as soon as it passes maxBytes — never more than maxBytes in memory. */
export async function readLimited(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

export async function assertCustomerVisible(tx: Tx, customerId: string, scopeNodes: string[] | null): Promise<void> {
  assertUuid(customerId, 'customerId');
  if (!(await isInNodes(tx, 'customer', customerId, scopeNodes))) throw notFoundError('customer');
}

function storagePath(root: string, key: string): string {
  const full = path.resolve(root, key);
  if (!full.startsWith(path.resolve(root) + path.sep))
    throw new AppError('INTERNAL', 'Bad storage key', { internal: key });
  return full;
}

/** Removes a stored file by its key (its row already gone); a missing file is no error. */
export async function removeStoredFile(root: string, key: string): Promise<void> {
  await fs.rm(storagePath(root, key), { force: true });
}

/** Where the bytes go (tests); the customer is checked against the actor's data permissions. */
export type StoreOptions = { root?: string };

/**
 * Writes the bytes to disk, then inside `within` (the caller's tenant transaction) records the row and
 * its audit. `extra` runs in the same transaction (the bank-statement import). If anything fails the
 * file is removed, so there is never a row without a file nor a stray file.
 */
export async function storeCustomerFile<T = undefined>(
  db: Db,
  actor: Actor,
  input: { customerId: string; kind: FileKind; fileName: string; contentType: string; bytes: Buffer },
  options: StoreOptions = {},
  extra?: (tx: Tx, file: CustomerFileRow) => Promise<T>,
): Promise<{ file: CustomerFileRow; extra: T | undefined }> {
  const root = options.root ?? filesRoot();
  await db.tenant(actor.tenantId, (tx) => assertInScope(tx, actor, 'customer', input.customerId));
  let extractedText: string | null = null;
  if (input.kind === 'bureau_pdf' || input.contentType === 'application/pdf') {
    if (input.bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
      throw new AppError('BAD_REQUEST', 'The file is not a PDF', { field: 'file' });
    if (input.kind === 'bureau_pdf') extractedText = extractPdfText(input.bytes);
  }
  const id = crypto.randomUUID();
  const key = [encodeURIComponent(actor.tenantId), input.customerId, id].join('/');
  const full = storagePath(root, key);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, input.bytes, { flag: 'wx' });
  try {
    return await db.tenant(actor.tenantId, async (tx) => {
      const sha256 = crypto.createHash('sha256').update(input.bytes).digest('hex');
      const [file] = await tx.query<CustomerFileRow>(
        `insert into customer_files (tenant_id, id, customer_id, kind, file_name, content_type, size_bytes, sha256, storage_key, extracted_text, uploaded_by)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning *`,
        [
          actor.tenantId,
          id,
          input.customerId,
          input.kind,
          input.fileName,
          input.contentType,
          input.bytes.length,
          sha256,
          key,
          extractedText,
          actor.userId,
        ],
      );
      await recordAudit(tx, {
        tenantId: actor.tenantId,
        actorId: actor.userId,
        actorKind: actor.kind ?? 'user',
        action: 'customer_file.upload',
        objectType: 'customer_file',
        objectId: id,
        after: {
          customerId: input.customerId,
          kind: input.kind,
          fileName: input.fileName,
          sizeBytes: input.bytes.length,
          sha256,
        },
        ip: actor.ip,
        requestId: actor.requestId,
        outcome: 'success',
      });
      const more = extra ? await extra(tx, file) : undefined;
      return { file, extra: more };
    });
  } catch (error) {
    await fs.rm(full, { force: true });
    throw error;
  }
}

/** Upload from a request body: checks, bounded read, store. */
export async function uploadCustomerFile(
  db: Db,
  actor: Actor,
  input: UploadMeta & { customerId: string; body: ReadableStream<Uint8Array> | null },
  options: StoreOptions = {},
): Promise<CustomerFileRow> {
  // Another branch's customer does not exist for the caller, whatever the upload looks like.
  await db.tenant(actor.tenantId, (tx) => assertInScope(tx, actor, 'customer', input.customerId));
  const meta = checkUploadMeta(input);
  const bytes = await readLimited(input.body, meta.rule.maxBytes);
  if (bytes.length === 0) throw new AppError('BAD_REQUEST', 'The file is empty', { field: 'file' });
  const { file } = await storeCustomerFile(
    db,
    actor,
    { customerId: input.customerId, kind: meta.kind, fileName: meta.fileName, contentType: meta.contentType, bytes },
    options,
  );
  return file;
}

export async function listCustomerFiles(tx: Tx, customerId: string, kind?: FileKind): Promise<CustomerFileRow[]> {
  return tx.query<CustomerFileRow>(
    `select * from customer_files where customer_id = $1 and ($2::text is null or kind = $2) order by created_at desc, id`,
    [customerId, kind ?? null],
  );
}

/** One file of one customer (404 when it is not theirs or outside the caller's scope). */
export async function getCustomerFile(
  tx: Tx,
  customerId: string,
  fileId: string,
  scopeNodes: string[] | null,
): Promise<CustomerFileRow> {
  await assertCustomerVisible(tx, customerId, scopeNodes);
  assertUuid(fileId, 'fileId');
  const rows = await tx.query<CustomerFileRow>(`select * from customer_files where id = $1 and customer_id = $2`, [
    fileId,
    customerId,
  ]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'File not found', { field: 'fileId' });
  return rows[0];
}

export async function readCustomerFile(file: CustomerFileRow, root = filesRoot()): Promise<Buffer> {
  try {
    return await fs.readFile(storagePath(root, file.storage_key));
  } catch (error) {
    throw new AppError('NOT_FOUND', 'The file is missing from storage', { field: 'fileId', cause: error });
  }
}

/** Records the download in the audit trail (who read which customer document). */
export async function auditDownload(tx: Tx, actor: Actor, file: CustomerFileRow): Promise<void> {
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action: 'customer_file.download',
    objectType: 'customer_file',
    objectId: file.id,
    after: { customerId: file.customer_id, fileName: file.file_name },
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
}

/**
 * Deletes a file: the row (with its audit) first, then the bytes. An imported bank statement stays,
 * because the transactions it produced point at it.
 */
export async function deleteCustomerFile(
  db: Db,
  actor: Actor,
  customerId: string,
  fileId: string,
  options: StoreOptions = {},
): Promise<void> {
  const root = options.root ?? filesRoot();
  const file = await db.tenant(actor.tenantId, async (tx) => {
    await assertInScope(tx, actor, 'customer', customerId);
    const row = await getCustomerFile(tx, customerId, fileId, null);
    const used = await tx.query(`select 1 from bank_statement_imports where file_id = $1`, [row.id]);
    if (used[0])
      throw new AppError('CONFLICT', 'An imported bank statement cannot be deleted: its transactions refer to it', {
        field: 'fileId',
      });
    await tx.query(`delete from customer_files where id = $1`, [row.id]);
    await recordAudit(tx, {
      tenantId: actor.tenantId,
      actorId: actor.userId,
      actorKind: actor.kind ?? 'user',
      action: 'customer_file.delete',
      objectType: 'customer_file',
      objectId: row.id,
      before: {
        customerId: row.customer_id,
        kind: row.kind,
        fileName: row.file_name,
        sizeBytes: row.size_bytes,
        sha256: row.sha256,
      },
      ip: actor.ip,
      requestId: actor.requestId,
      outcome: 'success',
    });
    return row;
  });
  await fs.rm(storagePath(root, file.storage_key), { force: true });
}

export function customerFileJson(f: CustomerFileRow) {
  return {
    id: f.id,
    customerId: f.customer_id,
    kind: f.kind,
    fileName: f.file_name,
    contentType: f.content_type,
    sizeBytes: f.size_bytes,
    sha256: f.sha256,
    hasExtractedText: f.extracted_text !== null,
    uploadedBy: f.uploaded_by,
    createdAt: f.created_at,
  };
}
