/**
 * Passwords that must be refused (weak passwords must never be accepted) and passwords that
 * must be accepted. All weak ones are at least 12 characters, so only the strength rule can refuse
 * them. Used by src/lib/auth/passwords.test.ts and tests/e2e/security-passwords.spec.ts.
 */
export const WEAK_PASSWORDS: Readonly<Record<string, readonly string[]>> = {
  'long but trivial': ['123456789012', 'aaaaaaaaaaaa'],
  'keyboard walks': [
    'qwertyuiopas',
    'qwertyuiop12',
    'azertyuiop123',
    '1qaz2wsx3edc',
    'zaq12wsxcde3',
    'Zaq12wsxcde3',
    'asdfghjkl;12',
    'qazwsxedcrfv',
    '!QAZ2wsx#EDC',
    'poiuytrewqas',
    'qwertzuiop12',
    '1q2w3e4r5t6y',
  ],
  repeats: [
    'aaaaaaaaaaaaaaaa',
    '111111111111',
    'abcabcabcabc',
    'xyzxyzxyzxyz',
    '!!!!!!!!!!!!',
    'hahahahahaha',
    'abab1212abab1212',
  ],
  sequences: ['abcdefghijkl', '123456789abc', '0123456789012', 'abcd1234efgh', '987654321098', 'ZYXWVUTSRQPO'],
  'dictionary words and l33t': [
    'passwordpassword',
    'P@ssw0rd2024!',
    'Passw0rd1234',
    'p4ssw0rd1234',
    'Welcome2024!',
    'iloveyou1234',
    'Sunshine2023!',
    'M0nkey123456',
    'Dragon123456',
    'motdepasse123',
    'Bonjour12345',
    'soleil123456',
    'Football1234',
    'baseball1234',
    'princess1234',
    'L3tm31n12345',
    'Summer2025!!',
    'Qwerty123456!',
    'Azerty123456!',
    'Administrator1',
  ],
  dates: ['19850412jane', '01/01/2000xyz', '1990-12-31ab', '12345619900101', '3112199931121999'],
};

/** Who a password is for, as the server knows it. */
export type Account = { email: string; displayName: string; tenantName: string; tenantSlug: string };

/** The account's own words, decorated: its e-mail, local part, name and lender inside a password. */
export function personalPasswords(account: Account): string[] {
  const local = account.email.split('@')[0];
  const [first, last = ''] = account.displayName.split(' ');
  const squeezedName = account.displayName.replace(/\s+/g, '');
  const tenant = account.tenantName.replace(/\s+/g, '');
  return [
    account.email,
    `${account.email}1`,
    `${account.email.toUpperCase()}!`,
    `${local}-2024!!`,
    `xx-${local.toUpperCase()}-99`,
    `${squeezedName}!2024x`,
    `${first}.${last}.1985!`,
    `${last}-${first}-2024!!`,
    `${tenant}2024!!`,
    `${account.tenantSlug}${account.tenantSlug}2025!`,
  ];
}

export const STRONG_PASSWORDS: readonly string[] = [
  'correct horse battery staple and a lender that keeps its books o', // 64 characters
  'Demo-Lender-2026!',
  'plum-river-cactus-78',
  'kT9#vQ2!mZ7pW4',
  'Brand new reset passphrase',
  'tapioca lighthouse wobble',
  'Gr1ffon-Velours-Marmite',
  'vendredi-orchidée-cerf-volant',
];
