import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { runCommand } from '#lib/http/command.ts';
import { errorResponse, json } from '#lib/http/respond.ts';
import { apiContext } from '#lib/lending/api.ts';
import { actorFromPrincipal } from '#lib/lending/actor.ts';
import type { Language } from '#lib/i18n/index.ts';
import {
  readTenantLogo,
  removeTenantLogoCommand,
  setTenantLogoCommand,
  settingsMessage,
} from '#lib/tenancy/settings.ts';
import { pageDb } from '../../../server/db.ts';

/**
 * GET /v1/tenant-settings/logo → the tenant's logo (PNG or JPEG, checked by content when uploaded),
 * same-origin, with its type and nosniff; the header asks for it with ?v=<version>, so it may be kept.
 */
export const GET: APIRoute = async (context) => {
  const ctx = apiContext(context);
  try {
    const principal = requirePrincipal(ctx.principal);
    const db = await pageDb();
    const logo = await db.tenant(principal.tenantId, (tx) => readTenantLogo(tx, principal.tenantId));
    if (!logo) throw new AppError('NOT_FOUND', settingsMessage(ctx.language ?? 'en', 'logoNone'));
    return new Response(new Uint8Array(logo.bytes), {
      status: 200,
      headers: {
        'content-type': logo.contentType,
        'content-length': String(logo.bytes.length),
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, max-age=86400',
        'last-modified': logo.updatedAt.toUTCString(),
      },
    });
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
};

/** The `file` field of a multipart body, as bytes (an empty array when there is none). */
async function uploadedBytes(request: Request, language: Language): Promise<Uint8Array> {
  const form = await request.formData().catch(() => {
    throw new AppError('BAD_REQUEST', settingsMessage(language, 'logoMultipart'), { field: 'logo' });
  });
  const file = form.get('file');
  return file instanceof File ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array();
}

async function run(context: Parameters<APIRoute>[0], isRemove: boolean): Promise<Response> {
  const ctx = apiContext(context);
  try {
    const principal = requirePrincipal(ctx.principal);
    const actor = actorFromPrincipal(principal, { ip: ctx.ip, requestId: ctx.requestId });
    const call = {
      db: await pageDb(),
      actor,
      permissionSubject: principal,
      objectId: actor.tenantId,
      language: ctx.language,
    };
    const view = isRemove
      ? await runCommand(call, removeTenantLogoCommand, () => ({}))
      : await runCommand(call, setTenantLogoCommand, async () => ({
          bytes: await uploadedBytes(context.request, ctx.language ?? 'en'),
        }));
    return json(view);
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}

/** POST /v1/tenant-settings/logo (multipart, field `file`: PNG or JPEG up to 256 KB; SVG refused) → the settings. */
export const POST: APIRoute = (context) => run(context, false);

/** DELETE /v1/tenant-settings/logo → the settings, with the default logo back in the header. */
export const DELETE: APIRoute = (context) => run(context, true);
