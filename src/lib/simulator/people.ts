import type { Rng } from './prng.ts';

/** Plausible customer identities for an English/French-speaking lender. Invented, never real data. */
const FIRST = [
  'Amina',
  'Lucas',
  'Chloé',
  'Mohamed',
  'Emma',
  'Hugo',
  'Léa',
  'Noah',
  'Inès',
  'Louis',
  'Jade',
  'Gabriel',
  'Sarah',
  'Adam',
  'Camille',
  'Yanis',
  'Manon',
  'Nathan',
  'Zoé',
  'Théo',
  'Olivia',
  'James',
  'Sophia',
  'William',
  'Ava',
  'Benjamin',
  'Mia',
  'Elijah',
  'Charlotte',
  'Daniel',
  'Fatou',
  'Moussa',
  'Aïcha',
  'Ibrahim',
  'Grace',
  'Samuel',
  'Ruth',
  'David',
  'Esther',
  'Joseph',
];
const LAST = [
  'Martin',
  'Bernard',
  'Dubois',
  'Thomas',
  'Robert',
  'Richard',
  'Petit',
  'Durand',
  'Leroy',
  'Moreau',
  'Simon',
  'Laurent',
  'Lefebvre',
  'Michel',
  'Garcia',
  'David',
  'Bertrand',
  'Roux',
  'Vincent',
  'Fournier',
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Miller',
  'Davis',
  'Wilson',
  'Anderson',
  'Taylor',
  'Diallo',
  'Traoré',
  'Ndiaye',
  'Mensah',
  'Okafor',
  'Nguyen',
  'Kowalski',
  'Rossi',
  'Silva',
  'Haddad',
];

export const SEGMENTS = ['salaried', 'self_employed', 'micro_business', 'farmer', 'student', 'retired'] as const;
export const RISK_CLASSES = ['A', 'B', 'C', 'D'] as const;

export type Person = {
  firstName: string;
  lastName: string;
  nationalId: string;
  phone: string;
  email: string;
  dateOfBirth: string;
};

/** `index` makes national ids, phones and e-mails unique within a tenant. */
export function makePerson(rng: Rng, index: number, slug: string, countryPrefix: string): Person {
  const firstName = rng.pick(FIRST);
  const lastName = rng.pick(LAST);
  const year = rng.int(1955, 2004);
  const month = rng.int(1, 12);
  const day = rng.int(1, 28);
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  const ascii = (s: string) =>
    s
      .normalize('NFD')
      .replace(/[^A-Za-z]/g, '')
      .toLowerCase();
  return {
    firstName,
    lastName,
    nationalId: `${slug.slice(0, 3).toUpperCase()}${pad(year % 100, 2)}${pad(month, 2)}${pad(index, 7)}`,
    phone: `${countryPrefix}6${pad(10_000_000 + index, 8)}`,
    email: `${ascii(firstName)}.${ascii(lastName)}.${index}@example.com`,
    dateOfBirth: `${year}-${pad(month, 2)}-${pad(day, 2)}`,
  };
}
