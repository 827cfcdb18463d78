import fs from 'node:fs';
import { Readable } from 'node:stream';
import { contentDisposition } from './content-disposition.ts';

/**
 * A stored file as an attachment answer: streamed from disk (never buffered whole), private, not
 * sniffed. Used by the administrators' downloads and the contracts' documents.
 */
export function fileResponse(
  filePath: string,
  file: { contentType: string; fileName: string; sizeBytes?: number | bigint | null },
): Response {
  const stream = Readable.toWeb(fs.createReadStream(filePath)) as unknown as ReadableStream;
  const headers: Record<string, string> = {
    'content-type': file.contentType,
    'content-disposition': contentDisposition('attachment', file.fileName),
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  };
  if (file.sizeBytes !== undefined && file.sizeBytes !== null) headers['content-length'] = String(file.sizeBytes);
  return new Response(stream, { headers });
}
