import fs from 'node:fs';
import path from 'node:path';
import { expect } from '@playwright/test';

/**
 * The newest message addressed to `to`, decoded to text, as the test SMTP server received it
 * (DATA_DIR/smtp-received, written by scripts/test-e2e.ts), or from the server's outbox
 * (DATA_DIR/outbox) when the tests run without that SMTP server.
 */
export async function latestMailTo(to: string, since: number): Promise<string> {
  const dirs = ['smtp-received', 'outbox'].map((d) => path.join(process.env.E2E_DATA_DIR ?? '', d));
  let found: string | undefined;
  await expect
    .poll(
      () => {
        const files = dirs
          .filter((dir) => fs.existsSync(dir))
          .flatMap((dir) => fs.readdirSync(dir).map((name) => path.join(dir, name)))
          .filter((file) => fs.statSync(file).isFile())
          .filter((file) => fs.statSync(file).mtimeMs >= since)
          .sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs);
        found = files
          .map((file) => fs.readFileSync(file, 'utf8'))
          .reverse()
          .find((text) => new RegExp(`^To: ${to.replace('.', '\\.')}`, 'mi').test(text));
        return Boolean(found);
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  // quoted-printable bodies: soft line breaks and =XX escapes.
  return found!
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
