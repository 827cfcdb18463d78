import type { APIRoute } from 'astro';
import { env } from '#lib/config/env.ts';
import { deleteDownloadCommand } from '#lib/downloads/admin.ts';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';

/** DELETE /v1/downloads/{id}: removes a generated file of the tenant, row and bytes (admin.downloads.delete, audited). */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteDownloadCommand(env().dataDir), {
    objectId: id,
    input: () => ({ id }),
    answer: (result) => ({ status: 200, body: result }),
  });
};
