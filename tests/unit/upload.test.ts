import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors/app-error.ts';
import { readUploadedFile } from '#lib/http/upload.ts';

describe('readUploadedFile', () => {
  it('a malformed multipart body is a 400 on the file field, not a 500', async () => {
    const request = new Request('http://x/v1/translation-overrides/import', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: 'this is not a multipart body',
    });
    const error = await readUploadedFile(request, 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'BAD_REQUEST', status: 400, field: 'file' });
  });

  it('a well-formed multipart body still gives its file', async () => {
    const form = new FormData();
    form.set('file', new File(['hello'], 'a.txt', { type: 'text/plain' }));
    const file = await readUploadedFile(new Request('http://x/', { method: 'POST', body: form }), 1024);
    expect(file).toMatchObject({ fileName: 'a.txt', contentType: 'text/plain' });
    expect(new TextDecoder().decode(file!.bytes)).toBe('hello');
  });
});
