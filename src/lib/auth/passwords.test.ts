import { describe, expect, it } from 'vitest';
import { personalPasswords, STRONG_PASSWORDS, WEAK_PASSWORDS } from '../../../tests/e2e/support/payloads-passwords.ts';
import { AppError } from '../errors/app-error.ts';
import {
  assertPasswordAllowed,
  DEFAULT_PASSWORD_POLICY,
  hashPassword,
  type PasswordContext,
  verifyPassword,
} from './passwords.ts';

const JANE: PasswordContext = {
  email: 'jane.doe@northwind.test',
  displayName: 'Jane Doe',
  tenantName: 'Northwind Credit',
  tenantSlug: 'northwind',
};

function refusal(password: string, context: PasswordContext = JANE): AppError | null {
  try {
    assertPasswordAllowed(password, DEFAULT_PASSWORD_POLICY, 'new_password', context);
    return null;
  } catch (error) {
    return error as AppError;
  }
}

const WEAK: Record<string, readonly string[]> = {
  ...WEAK_PASSWORDS,
  'name, e-mail or lender inside': [
    ...personalPasswords({
      email: JANE.email!,
      displayName: JANE.displayName!,
      tenantName: JANE.tenantName!,
      tenantSlug: JANE.tenantSlug!,
    }),
    'JaneDoe!2024x',
    'jane.doe-was-here',
    'xx-JANE_DOE-2024',
    'northwindcredit1',
    'Northwind2024!!',
    'janedoe@northwind',
    'Doe-Jane-1985!!',
  ],
};
const STRONG = STRONG_PASSWORDS;

describe('password policy', () => {
  it('accepts a 64-character passphrase', () => {
    const passphrase = STRONG[0];
    expect([...passphrase].length).toBe(64);
    expect(refusal(passphrase)).toBeNull();
  });

  it.each(STRONG)('accepts %s', (password) => {
    expect(refusal(password)).toBeNull();
  });

  for (const [kind, passwords] of Object.entries(WEAK)) {
    it.each(passwords)(`refuses ${kind}: %s`, (password) => {
      const error = refusal(password);
      expect(error, password).toBeInstanceOf(AppError);
      expect(error!.status).toBe(400);
      expect(error!.field).toBe('new_password');
      expect(['weak', 'common', 'personal', 'too_short']).toContain(error!.details?.reason);
    });
  }

  it("refuses the account's own words even inside an otherwise strong password", () => {
    expect(refusal('Jane Doe likes tapioca lighthouse')?.details?.reason).toBe('personal');
    expect(refusal('tapioca jane.doe@northwind.test lighthouse')?.details?.reason).toBe('personal');
    expect(refusal('tapioca lighthouse wobble', { email: 'tapioca@x.test' })?.details?.reason).toBe('personal');
  });

  it("says why and how: the estimator's warning and suggestions come with the refusal", () => {
    const error = refusal('qwertyuiop12')!;
    expect(error.details).toMatchObject({ reason: expect.stringMatching(/weak|common/) });
    expect(typeof error.details?.warning).toBe('string');
    expect(Array.isArray(error.details?.suggestions)).toBe(true);
  });

  it('keeps the minimum length and the maximum', () => {
    expect(refusal('Short-1!')?.details).toMatchObject({ reason: 'too_short', min_length: 12 });
    expect(refusal('x'.repeat(257))?.details).toMatchObject({ reason: 'too_long' });
  });

  it('hashes with Argon2id, m=19 MiB, t=2', async () => {
    const hash = await hashPassword('a long enough passphrase');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(hash, 'a long enough passphrase')).toBe(true);
    expect(await verifyPassword(hash, 'another passphrase')).toBe(false);
    expect(await verifyPassword('not a hash', 'x')).toBe(false);
  });
});
