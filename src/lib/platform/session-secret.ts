import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The cookie-sealing secret: SESSION_SECRET when given, otherwise one generated on first run and kept
 * in DATA_DIR (mode 600) so sessions survive restarts. Several app servers must share SESSION_SECRET.
 */
export function resolveSessionSecret(dataDir: string, configured: string | undefined): string {
  if (configured) {
    if (configured.length < 32) throw new Error('SESSION_SECRET must be at least 32 characters long');
    return configured;
  }
  const file = path.join(dataDir, 'session-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = crypto.randomBytes(48).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}
