import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for the few secrets stored in tenant configuration (the single sign-on client
 * secret): AES-256-GCM with a key derived from SESSION_SECRET by HKDF-SHA256 with a fixed info
 * string, so no second key has to be managed. Stored as a versioned string
 *   enc:v1:<iv>:<tag>:<ciphertext>   (each part base64url)
 * so the scheme can change later. A value without the prefix is a plain secret written before
 * encryption existed: it still works, and the next save of the settings encrypts it.
 * Rotating SESSION_SECRET makes stored secrets unreadable: the administrator enters them again.
 */
const PREFIX = 'enc:v1:';
const INFO = 'lending-backoffice tenant-config secret v1';

function keyOf(sessionSecret: string | undefined): Buffer {
  if (!sessionSecret || sessionSecret.length < 32)
    throw new Error('SESSION_SECRET is missing or shorter than 32 characters (boot sets it)');
  return Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), INFO, 32));
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** Encrypts a secret for storage (a fresh random IV every time). */
export function sealSecret(plain: string, sessionSecret = process.env.SESSION_SECRET): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionSecret), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `${PREFIX}${iv.toString('base64url')}:${tag.toString('base64url')}:${ciphertext.toString('base64url')}`;
}

/**
 * The plain secret of a stored value: decrypted when sealed (throws when it was altered or sealed
 * with another key: GCM checks the tag), returned as it is when plain (written before encryption).
 */
export function openSecret(stored: string, sessionSecret = process.env.SESSION_SECRET): string {
  if (!isSealed(stored)) return stored;
  const parts = stored.slice(PREFIX.length).split(':');
  if (parts.length !== 3) throw new Error('sealed secret is malformed');
  const [iv, tag, ciphertext] = parts.map((part) => Buffer.from(part, 'base64url'));
  if (iv.length !== 12 || tag.length !== 16) throw new Error('sealed secret is malformed');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionSecret), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}
