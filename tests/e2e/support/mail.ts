import fs from 'node:fs';
import path from 'node:path';
import { expect } from '@playwright/test';

/** The newest message in the server's outbox (DATA_DIR/outbox) addressed to `to`, decoded to text. */
export async function latestMailTo(to: string, since: number): Promise<string> {
  const outbox = path.join(process.env.E2E_DATA_DIR ?? '', 'outbox');
  let found: string | undefined;
  await expect
    .poll(
      () => {
        if (!fs.existsSync(outbox)) return false;
        const files = fs
          .readdirSync(outbox)
          .map((name) => path.join(outbox, name))
          .filter((file) => fs.statSync(file).mtimeMs >= since)
          .sort();
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
