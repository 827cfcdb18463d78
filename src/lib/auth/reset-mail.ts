import { env } from '../config/env.ts';
import type { Db } from '../db/index.ts';
import { getT, languageOf } from '../i18n/index.ts';
import { sendMail } from './mailer.ts';
import type { ResetLink } from './password-reset.ts';

/**
 * Mails each reset link to its address, in the language of that account and naming its lender. One
 * function for the reset page's form and for POST /v1/auth/password-reset. `onMailError` receives
 * a failed send (the page logs it and answers as usual); without it the failure is thrown.
 */
export async function mailResetLinks(
  db: Db,
  links: ResetLink[],
  origin: string,
  onMailError?: (error: unknown) => void,
): Promise<void> {
  for (const link of links) {
    const [user] = await db.tenant(link.tenantId, (tx) =>
      tx.query<{ language: string }>('select language from users where lower(email) = $1', [link.email]),
    );
    const [tenant] = await db.system((tx) =>
      tx.query<{ name: string }>('select name from tenants where id = $1', [link.tenantId]),
    );
    const t = await getT(languageOf(user?.language));
    const url = `${origin}/user/reset-password?${new URLSearchParams({ tenant: link.tenantId, token: link.token })}`;
    const sending = sendMail(
      { smtpUrl: env().smtpUrl, dataDir: env().dataDir },
      {
        to: link.email,
        subject: t('auth:reset.mailSubject'),
        text: t('auth:reset.mailBody', { link: url, lender: tenant?.name ?? '' }),
      },
    );
    if (onMailError) await sending.catch(onMailError);
    else await sending;
  }
}
