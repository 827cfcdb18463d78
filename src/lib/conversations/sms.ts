import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { logger } from '../observability/log.ts';

/**
 * The SMS provider adapter. Contract (README "Conversations"):
 *
 *   POST $SMS_PROVIDER_URL
 *   Authorization: Bearer $SMS_PROVIDER_TOKEN        (when set)
 *   Content-Type: application/json
 *   { "to": "+33612345678", "body": "…", "reference": "<our message id>" }
 *   → 2xx { "id": "<provider message id>" }
 *
 * A 4xx answer is a refusal that will not change on retry (bad number, bad request): `SmsError` with
 * `permanent: true`. A 5xx, a timeout or a network error is temporary (the job retries with back-off).
 * Without SMS_PROVIDER_URL the SMS is written as a JSON file into DATA_DIR/outbox/sms (like mail).
 */
export type SmsConfig = { providerUrl?: string; token?: string; dataDir: string; timeoutMs?: number };
export type Sms = { to: string; body: string; reference: string };

export class SmsError extends Error {
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.name = 'SmsError';
    this.permanent = permanent;
  }
}

export async function sendSms(config: SmsConfig, sms: Sms): Promise<{ id: string; file?: string }> {
  if (!config.providerUrl) {
    const dir = path.join(config.dataDir, 'outbox', 'sms');
    fs.mkdirSync(dir, { recursive: true });
    const id = `outbox-${crypto.randomUUID()}`;
    const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.json`);
    fs.writeFileSync(file, JSON.stringify({ ...sms, id }, null, 2), { mode: 0o600 });
    logger.info('sms written to outbox (SMS_PROVIDER_URL not set)', { reference: sms.reference, file });
    return { id, file };
  }
  let response: Response;
  try {
    response = await fetch(config.providerUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(config.token ? { authorization: `Bearer ${config.token}` } : {}),
      },
      body: JSON.stringify(sms),
      signal: AbortSignal.timeout(config.timeoutMs ?? 15_000),
    });
  } catch (error) {
    throw new SmsError(`SMS provider unreachable: ${error instanceof Error ? error.message : String(error)}`, false);
  }
  const text = await response.text().catch(() => '');
  if (!response.ok)
    throw new SmsError(
      `SMS provider answered ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
      response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429,
    );
  let id: unknown;
  try {
    id = (JSON.parse(text) as { id?: unknown }).id;
  } catch {
    id = undefined;
  }
  if (typeof id !== 'string' && typeof id !== 'number')
    throw new SmsError('SMS provider answered without a message id', false);
  return { id: String(id) };
}
