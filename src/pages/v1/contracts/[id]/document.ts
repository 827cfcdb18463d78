import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { env } from '#lib/config/env.ts';
import {
  CONTRACT_DOCUMENT_MAX_BYTES,
  contractJson,
  openContractDocument,
  uploadContractDocumentCommand,
} from '#lib/contracts/contracts.ts';
import { fileResponse } from '#lib/http/file-response.ts';
import { handle } from '#lib/http/respond.ts';
import { readUploadedFile } from '#lib/http/upload.ts';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { pageDb } from '../../../../server/db.ts';

/** GET /v1/contracts/{id}/document → the current PDF (admin.contracts.view). */
export const GET: APIRoute = ({ params, locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const db = await pageDb();
    const { contract, path } = await db.tenant(principal.tenantId, (tx) =>
      openContractDocument(tx, env().dataDir, params.id ?? ''),
    );
    return fileResponse(path, {
      contentType: 'application/pdf',
      fileName: contract.document?.name ?? 'contract.pdf',
      sizeBytes: contract.document?.sizeBytes,
    });
  });

/**
 * PUT /v1/contracts/{id}/document: a new version of the document, as a multipart `file` or a raw
 * `application/pdf` body (`?name=` gives its file name); at most 10 MB, a PDF by its first bytes
 * (admin.contracts.update) → the contract.
 */
export const PUT: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), uploadContractDocumentCommand(env().dataDir), {
    objectId: id,
    readInput: async (request) => {
      const file = await readUploadedFile(request, CONTRACT_DOCUMENT_MAX_BYTES);
      return { id, document: file ? { fileName: file.fileName, bytes: file.bytes } : null };
    },
    answer: (contract) => ({ status: 200, body: contractJson(contract) }),
  });
};
