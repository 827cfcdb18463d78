import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import type { ConversationAttachmentsRow } from '../db/schema.generated.ts';
import type { FileUpload } from './threads.ts';

/**
 * E-mail attachments: at most 10 MB each, of the types customer files accept, checked on the bytes
 * themselves (a PDF starts with %PDF-, a PNG and a JPEG with their signatures, text is UTF-8 without
 * NUL), not on the name or the declared type. Stored under DATA_DIR/conversation-files.
 */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_ATTACHMENTS = 5;

export function attachmentPath(dataDir: string, key: string): string {
  const root = path.join(dataDir, 'conversation-files');
  const full = path.resolve(root, key);
  if (!full.startsWith(root + path.sep)) throw new AppError('NOT_FOUND', 'File not found');
  return full;
}

/** The content type the bytes really are, or null when not an accepted type. */
export function sniffType(bytes: Buffer, fileName: string): string | null {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const ext = path.extname(fileName).toLowerCase();
  if ((ext === '.txt' || ext === '.csv') && !bytes.includes(0)) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      return ext === '.csv' ? 'text/csv' : 'text/plain';
    } catch {
      return null;
    }
  }
  return null;
}

export function cleanName(name: string): string {
  const base = [...path.basename(name.replace(/\\/g, '/'))]
    .filter((ch) => ch.charCodeAt(0) >= 32 && ch.charCodeAt(0) !== 127 && !'"<>'.includes(ch))
    .join('')
    .trim();
  return (base || 'file').slice(0, 200);
}

export function checkUploads(files: FileUpload[]): FileUpload[] {
  if (files.length > MAX_ATTACHMENTS)
    throw new AppError('UNPROCESSABLE', `At most ${MAX_ATTACHMENTS} attachments.`, { field: 'file' });
  return files.map((f) => {
    if (f.bytes.length > MAX_ATTACHMENT_BYTES)
      throw new AppError('PAYLOAD_TOO_LARGE', 'An attachment is larger than 10 MB.', { field: 'file' });
    const type = sniffType(f.bytes, f.fileName);
    if (!type)
      throw new AppError('UNPROCESSABLE', 'Attachments must be PDF, PNG, JPEG, CSV or plain text.', { field: 'file' });
    return { fileName: cleanName(f.fileName), contentType: type, bytes: f.bytes };
  });
}

/** Writes the files and their rows (in the caller's transaction); a failed transaction leaves stray files only. */
export function attachmentStore(dataDir: string) {
  return async (
    tx: Tx,
    tenantId: string,
    messageId: string,
    files: FileUpload[],
  ): Promise<ConversationAttachmentsRow[]> => {
    const rows: ConversationAttachmentsRow[] = [];
    for (const f of files) {
      const id = crypto.randomUUID();
      const key = [encodeURIComponent(tenantId), messageId, id].join('/');
      const full = attachmentPath(dataDir, key);
      await fs.mkdir(path.dirname(full), { recursive: true });
      await fs.writeFile(full, f.bytes, { flag: 'wx', mode: 0o600 });
      const [row] = await tx.query<ConversationAttachmentsRow>(
        `insert into conversation_attachments (tenant_id, id, message_id, file_name, content_type, size_bytes, storage_key)
         values ($1, $2, $3, $4, $5, $6, $7) returning *`,
        [tenantId, id, messageId, f.fileName, f.contentType, f.bytes.length, key],
      );
      rows.push(row);
    }
    return rows;
  };
}

/** An attachment of a thread (the caller has checked the thread's scope). */
export async function getAttachment(
  tx: Tx,
  conversationId: string,
  attachmentId: string,
): Promise<ConversationAttachmentsRow> {
  const [row] = /^[0-9a-f-]{36}$/i.test(attachmentId)
    ? await tx.query<ConversationAttachmentsRow>(
        `select a.* from conversation_attachments a join conversation_messages m on m.tenant_id = a.tenant_id and m.id = a.message_id
          where a.id = $1 and m.conversation_id = $2`,
        [attachmentId, conversationId],
      )
    : [];
  if (!row) throw new AppError('NOT_FOUND', 'File not found', { field: 'attachmentId' });
  return row;
}
