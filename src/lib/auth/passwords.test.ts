import { describe, expect, it } from 'vitest';
import { assertPasswordAllowed, DEFAULT_PASSWORD_POLICY, hashPassword, isBreachedPassword, isCommonPassword, verifyPassword } from './passwords.ts';

describe('password policy', () => {
  it('accepts a 64-character passphrase', () => {
    const passphrase = 'correct horse battery staple and a lender that keeps its books o';
    expect([...passphrase].length).toBe(64);
    expect(() => assertPasswordAllowed(passphrase, DEFAULT_PASSWORD_POLICY)).not.toThrow();
  });

  it('refuses short, common and breached passwords, naming the field', () => {
    expect(() => assertPasswordAllowed('Short-1!', DEFAULT_PASSWORD_POLICY, 'new_password')).toThrow(/at least 12 characters/);
    expect(() => assertPasswordAllowed('passwordpassword', DEFAULT_PASSWORD_POLICY)).toThrow(/too common/);
    expect(() => assertPasswordAllowed('Zaq12wsxcde3', DEFAULT_PASSWORD_POLICY)).toThrow(/known data breaches/);
    try {
      assertPasswordAllowed('Short-1!', DEFAULT_PASSWORD_POLICY, 'new_password');
    } catch (error) {
      expect((error as { field: string }).field).toBe('new_password');
    }
  });

  it('sees decorated common passwords', () => {
    expect(isCommonPassword('Qwertyuiop2024!')).toBe(true);
    expect(isCommonPassword('Demo-Lender-2026!')).toBe(false);
    expect(isBreachedPassword('Welcome2024!')).toBe(true);
    expect(isBreachedPassword('Demo-Lender-2026!')).toBe(false);
  });

  it('hashes with Argon2id, m=19 MiB, t=2', async () => {
    const hash = await hashPassword('a long enough passphrase');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(hash, 'a long enough passphrase')).toBe(true);
    expect(await verifyPassword(hash, 'another passphrase')).toBe(false);
    expect(await verifyPassword('not a hash', 'x')).toBe(false);
  });
});
