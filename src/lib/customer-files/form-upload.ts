import { AppError } from '../errors/app-error.ts';
import { checkUploadMeta, readLimited, tooLarge, type FileKind } from './files.ts';

/** Room for the multipart boundaries and the other fields of an upload form. */
export const FORM_OVERHEAD = 64 * 1024;

export type FormUpload = {
  fields: Map<string, string>;
  file: { fileName: string; contentType: string; bytes: Buffer } | null;
};

/**
 * Reads a multipart upload form (the no-JavaScript upload of the profile pages). The declared
 * Content-Length is refused (413) before reading when it exceeds the kind's limit; the body is read with
 * that limit, so a missing or false length cannot make us hold more. Then the file's own name and type
 * are checked against the kind's rules.
 */
export async function readUploadForm(request: Request, kind: FileKind, maxBytes: number): Promise<FormUpload> {
  const limit = maxBytes + FORM_OVERHEAD;
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(maxBytes);
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data'))
    throw new AppError('BAD_REQUEST', 'Send the form as multipart/form-data', { field: 'file' });
  const bytes = await readLimited(request.body, limit).catch((error) => {
    throw error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE' ? tooLarge(maxBytes) : error;
  });
  const form = await new Response(new Uint8Array(bytes), { headers: { 'content-type': type } }).formData();
  const fields = new Map<string, string>();
  let file: FormUpload['file'] = null;
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields.set(name, value);
    else if (name === 'file' && value.size > 0) {
      const meta = checkUploadMeta({ kind, fileName: value.name, contentType: value.type, declaredLength: value.size });
      file = { fileName: meta.fileName, contentType: meta.contentType, bytes: Buffer.from(await value.arrayBuffer()) };
    }
  }
  return { fields, file };
}
