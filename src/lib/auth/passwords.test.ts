import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.ts';
import { assertPasswordAllowed, DEFAULT_PASSWORD_POLICY, hashPassword, type PasswordContext, verifyPassword } from './passwords.ts';

const JANE: PasswordContext = { email: 'jane.doe@northwind.test', displayName: 'Jane Doe', tenantName: 'Northwind Credit', tenantSlug: 'northwind' };

function refusal(password: string, context: PasswordContext = JANE): AppError | null {
  try {
    assertPasswordAllowed(password, DEFAULT_PASSWORD_POLICY, 'new_password', context);
    return null;
  } catch (error) {
    return error as AppError;
  }
}

/** Twelve characters or more (the minimum), and all of them guessable. */
const WEAK: Record<string, string[]> = {
  'issue 9 examples': ['123456789012', 'aaaaaaaaaaaa', 'jane.doe@northwind.test', 'jane.doe@northwind.test1'],
  'keyboard walks': ['qwertyuiopas', 'qwertyuiop12', 'azertyuiop123', '1qaz2wsx3edc', 'zaq12wsxcde3', 'Zaq12wsxcde3', 'asdfghjkl;12', 'qazwsxedcrfv', '!QAZ2wsx#EDC', 'poiuytrewqas', 'qwertzuiop12', '1q2w3e4r5t6y'],
  repeats: ['aaaaaaaaaaaaaaaa', '111111111111', 'abcabcabcabc', 'xyzxyzxyzxyz', '!!!!!!!!!!!!', 'hahahahahaha', 'abab1212abab1212'],
  sequences: ['abcdefghijkl', '123456789abc', '0123456789012', 'abcd1234efgh', '987654321098', 'ZYXWVUTSRQPO'],
  'dictionary words and l33t': ['passwordpassword', 'P@ssw0rd2024!', 'Passw0rd1234', 'p4ssw0rd1234', 'Welcome2024!', 'iloveyou1234', 'Sunshine2023!', 'M0nkey123456', 'Dragon123456', 'motdepasse123', 'Bonjour12345', 'soleil123456', 'Football1234', 'baseball1234', 'princess1234', 'L3tm31n12345', 'Summer2025!!', 'Qwerty123456!', 'Azerty123456!', 'Administrator1'],
  dates: ['19850412jane', '01/01/2000xyz', '1990-12-31ab', '12345619900101', '3112199931121999'],
  'name, e-mail or lender inside': ['JaneDoe!2024x', 'jane.doe-was-here', 'xx-JANE_DOE-2024', 'northwindcredit1', 'Northwind2024!!', 'janedoe@northwind', 'Doe-Jane-1985!!'],
};

const STRONG = [
  'correct horse battery staple and a lender that keeps its books o',
  'Demo-Lender-2026!',
  'plum-river-cactus-78',
  'kT9#vQ2!mZ7pW4',
  'Brand new reset passphrase',
  'tapioca lighthouse wobble',
  'Gr1ffon-Velours-Marmite',
  'vendredi-orchidée-cerf-volant',
];

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

  it('refuses the account\'s own words even inside an otherwise strong password', () => {
    expect(refusal('Jane Doe likes tapioca lighthouse')?.details?.reason).toBe('personal');
    expect(refusal('tapioca jane.doe@northwind.test lighthouse')?.details?.reason).toBe('personal');
    expect(refusal('tapioca lighthouse wobble', { email: 'tapioca@x.test' })?.details?.reason).toBe('personal');
  });

  it('says why and how: the estimator\'s warning and suggestions come with the refusal', () => {
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
