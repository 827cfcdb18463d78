import type { APIRoute } from 'astro';
import { z } from 'zod';
import { createPasswordResets } from '#lib/auth/password-reset.ts';
import { mailResetLinks } from '#lib/auth/reset-mail.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { publicOrigin, requestIp } from '../../../../server/session.ts';

const ResetRequest = z.object({ email: z.string().trim().min(1).max(320) });

/** POST /v1/auth/password-reset {email} → 202, whether or not the address has an account; the link goes by e-mail. */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const body = await readJson(context.request, ResetRequest);
    const db = await pageDb();
    const links = await createPasswordResets(db, { email: body.email, now: new Date(), ip: requestIp(context) });
    await mailResetLinks(db, links, publicOrigin(context.url));
    return json({ status: 'sent' }, { status: 202 });
  });
