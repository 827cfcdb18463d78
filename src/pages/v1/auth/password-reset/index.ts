import type { APIRoute } from 'astro';
import { z } from 'zod';
import { env } from '../../../../lib/config/env.ts';
import { createPasswordResets } from '../../../../lib/auth/password-reset.ts';
import { sendMail } from '../../../../lib/auth/mailer.ts';
import { getDb } from '../../../../lib/db/index.ts';
import { getT, languageOf } from '../../../../lib/i18n/index.ts';
import { handle, json, readJson } from '../../../../lib/http/respond.ts';
import { publicOrigin, requestIp } from '../../../../server/session.ts';
import type { TenantsRow, UsersRow } from '../../../../lib/db/schema.generated.ts';

const ResetRequest = z.object({ email: z.string().trim().min(1).max(320) });

/** POST /v1/auth/password-reset {email} → 202, whether or not the address has an account; the link goes by e-mail. */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const body = await readJson(context.request, ResetRequest);
    const db = await getDb();
    const links = await createPasswordResets(db, { email: body.email, now: new Date(), ip: requestIp(context) });
    for (const link of links) {
      const [user] = await db.tenant(link.tenantId, (tx) => tx.query<Pick<UsersRow, 'language'>>('select language from users where lower(email) = $1', [link.email]));
      const [tenant] = await db.system((tx) => tx.query<Pick<TenantsRow, 'name'>>('select name from tenants where id = $1', [link.tenantId]));
      const t = await getT(languageOf(user?.language));
      const url = `${publicOrigin(context.url)}/user/reset-password?${new URLSearchParams({ tenant: link.tenantId, token: link.token })}`;
      await sendMail({ smtpUrl: env().smtpUrl, dataDir: env().dataDir }, { to: link.email, subject: t('auth:reset.mailSubject'), text: t('auth:reset.mailBody', { link: url, lender: tenant?.name ?? '' }) });
    }
    return json({ status: 'sent' }, { status: 202 });
  });
