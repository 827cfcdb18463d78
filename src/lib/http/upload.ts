import { AppError } from '../errors/app-error.ts';
import { readLimited, tooLarge } from '../customer-files/files.ts';
import { FORM_OVERHEAD } from '../customer-files/form-upload.ts';

/**
 * One uploaded file from a /v1 request: a multipart form's `file` field (browsers), or the raw body
 * (API clients: `Content-Type: application/pdf`, `application/json`, the XLSX type…). The declared
 * length is refused before reading, and the body is read under the limit whatever it declares.
 */
export type UploadedFile = { fileName: string; contentType: string; bytes: Uint8Array; fields: Map<string, string> };

export async function readUploadedFile(request: Request, maxBytes: number): Promise<UploadedFile | null> {
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  const isMultipart = type.startsWith('multipart/form-data');
  const limit = isMultipart ? maxBytes + FORM_OVERHEAD : maxBytes;
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(maxBytes);
  const bytes = await readLimited(request.body, limit).catch((error) => {
    throw error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE' ? tooLarge(maxBytes) : error;
  });
  if (!isMultipart) {
    if (bytes.byteLength === 0) return null;
    const name = new URL(request.url).searchParams.get('name') ?? 'upload';
    return { fileName: name, contentType: type.split(';')[0].trim(), bytes, fields: new Map() };
  }
  const form = await new Response(new Uint8Array(bytes), {
    headers: { 'content-type': request.headers.get('content-type') ?? '' },
  })
    .formData()
    .catch(() => {
      throw new AppError('BAD_REQUEST', 'Send the file as multipart/form-data with a "file" field.', { field: 'file' });
    });
  const fields = new Map<string, string>();
  let file: UploadedFile | null = null;
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields.set(name, value);
    else if (name === 'file' && value.size > 0) {
      if (value.size > maxBytes) throw tooLarge(maxBytes);
      file = {
        fileName: value.name,
        contentType: value.type,
        bytes: new Uint8Array(await value.arrayBuffer()),
        fields,
      };
    }
  }
  return file;
}
