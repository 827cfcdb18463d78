import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import nodemailer from 'nodemailer';
import { logger } from '../observability/log.ts';

export type Mail = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Conversation e-mails: where a reply goes (`reply+<token>@…`) and a Message-ID naming the thread. */
  replyTo?: string;
  messageId?: string;
  attachments?: { filename: string; content: Buffer; contentType: string }[];
};

export type MailerConfig = { smtpUrl?: string; dataDir: string; from?: string };

/**
 * Sends mail over SMTP_URL with nodemailer. Without SMTP_URL (development, tests, a demo) the message
 * is written as an .eml file into DATA_DIR/outbox and logged, so nothing is lost and tests can read it.
 */
export async function sendMail(config: MailerConfig, mail: Mail): Promise<{ file?: string }> {
  const from = config.from ?? process.env.MAIL_FROM ?? 'Lending back office <no-reply@localhost>';
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    await transport.sendMail({ from, ...mail });
    logger.info('mail sent', { to: mail.to, subject: mail.subject });
    return {};
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const info = await transport.sendMail({ from, ...mail });
  const outbox = path.join(config.dataDir, 'outbox');
  fs.mkdirSync(outbox, { recursive: true });
  const file = path.join(
    outbox,
    `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(4).toString('hex')}.eml`,
  );
  fs.writeFileSync(file, info.message as Buffer, { mode: 0o600 });
  logger.info('mail written to outbox (SMTP_URL not set)', { to: mail.to, subject: mail.subject, file });
  return { file };
}
