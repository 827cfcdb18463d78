import { env } from '../config/env.ts';
import { getT, languageOf } from '../i18n/index.ts';
import { sendMail } from '../auth/mailer.ts';
import type { TenantsRow } from '../db/schema.generated.ts';
import type { AdminUser } from './directory.ts';

/**
 * The invitation e-mail, in the invitee's language and naming the lender: with a token, a link to
 * /user/reset-password that lets them choose their first password (7 days, once); without one (a
 * user who signs in with single sign-on only), a notice with the sign-in address.
 */
export async function mailInvitation(input: {
  tenant: Pick<TenantsRow, 'id' | 'slug' | 'name'>;
  user: Pick<AdminUser, 'email' | 'display_name' | 'language'>;
  token: string | null;
  origin: string;
}): Promise<void> {
  const t = await getT(languageOf(input.user.language));
  const params = { name: input.user.display_name, lender: input.tenant.name };
  const text = input.token
    ? t('users:mail.inviteBody', {
        ...params,
        link: `${input.origin}/user/reset-password?${new URLSearchParams({ tenant: input.tenant.id, token: input.token })}`,
      })
    : t('users:mail.ssoBody', {
        ...params,
        link: `${input.origin}/user/login?${new URLSearchParams({ tenant: input.tenant.slug })}`,
      });
  await sendMail(
    { smtpUrl: env().smtpUrl, dataDir: env().dataDir },
    { to: input.user.email, subject: t('users:mail.subject', params), text },
  );
}
