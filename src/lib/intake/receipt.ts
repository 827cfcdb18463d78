import { env } from '../config/env.ts';
import { sendMail } from '../auth/mailer.ts';
import { getT } from '../i18n/index.ts';
import { logger } from '../observability/log.ts';
import type { Outcome } from './submit.ts';

/**
 * The e-mail receipt of a public application, in the applicant's language, through the product's
 * mailer (SMTP_URL, or the outbox under DATA_DIR/outbox without it). Only when the form asked for an
 * e-mail address (`customer.email`); a failed send is logged, never shown to the applicant (the page
 * already tells them the reference).
 */
export async function sendReceipt(input: {
  to: string | null;
  language: 'en' | 'fr';
  formTitle: string;
  reference: string;
  outcome: Outcome;
}): Promise<boolean> {
  if (!input.to) return false;
  const t = await getT(input.language);
  try {
    await sendMail(
      { smtpUrl: env().smtpUrl, dataDir: env().dataDir },
      {
        to: input.to,
        subject: t('apply:receipt.subject', { reference: input.reference }),
        text: [
          t('apply:receipt.greeting'),
          t('apply:receipt.body', { form: input.formTitle, reference: input.reference }),
          t(`apply:outcome.${input.outcome}.text`),
          t('apply:receipt.closing'),
        ].join('\n\n'),
      },
    );
    return true;
  } catch (error) {
    logger.warn('public application receipt not sent', {
      reference: input.reference,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}
