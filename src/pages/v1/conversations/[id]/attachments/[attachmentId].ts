import fs from 'node:fs/promises';
import type { APIRoute } from 'astro';
import { env } from '#lib/config/env.ts';
import { apiContext, query } from '#lib/lending/api.ts';
import { errorResponse } from '#lib/http/respond.ts';
import { attachmentPath, getAttachment } from '#lib/conversations/attachments.ts';
import { getThread } from '#lib/conversations/threads.ts';

/** GET /v1/conversations/{id}/attachments/{attachmentId} → the file (download), after the thread's scope check. */
export const GET: APIRoute = async (context) => {
  let file: { name: string; type: string; key: string } | null = null;
  const answer = await query(apiContext(context), async (tx, actor) => {
    const thread = await getThread(tx, actor, context.params.id ?? '');
    const a = await getAttachment(tx, thread.id, context.params.attachmentId ?? '');
    file = { name: a.file_name, type: a.content_type, key: a.storage_key };
    return {};
  });
  if (!file) return answer;
  const f = file as { name: string; type: string; key: string };
  try {
    const bytes = await fs.readFile(attachmentPath(env().dataDir, f.key));
    return new Response(bytes, {
      headers: {
        'content-type': f.type,
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(f.name)}`,
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
};
