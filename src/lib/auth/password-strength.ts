/**
 * How guessable a password is, with zxcvbn-ts (a maintained port of Dropbox's zxcvbn): it finds
 * keyboard walks, repeats, sequences, dates, l33t-speak and dictionary words, among them the
 * common-password lists of breach corpora that @zxcvbn-ts/language-common ships, plus English and
 * French words and names, plus the context words of the account (the user's name and e-mail, the
 * lender, the product). Offline: nothing is sent anywhere.
 *
 * Feedback comes back as the estimator's own keys (warnings.* / suggestions.*), which the auth
 * messages translate from our locale files (auth:passwordStrength.*), in English and French.
 */
import { type FeedbackType, ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';
import * as fr from '@zxcvbn-ts/language-fr';

/** zxcvbn's top score: at least 10^10 guesses ("very unguessable"), since a back office moves money; a 12-character minimum alone lets "Summer2025!!" through at score 3. */
export const MIN_STRENGTH_SCORE = 4;

/** Who the password is for: the words an attacker who knows the account would try first. */
export type PasswordContext = {
  email?: string | null;
  displayName?: string | null;
  tenantName?: string | null;
  tenantSlug?: string | null;
};

/** The product's own names, in both languages (BaseLayout's titles). */
const PRODUCT_WORDS = ['Lending back office', 'Back-office crédit', 'lending', 'backoffice', 'credit', 'crédit'];

export type StrengthVerdict = {
  score: number;
  /** The estimator's warning key (e.g. 'straightRow', 'userInputs'), or null. */
  warning: string | null;
  /** The estimator's suggestion keys (e.g. 'anotherWord'). */
  suggestions: string[];
};

const identity = (keys: Record<string, unknown>) => Object.fromEntries(Object.keys(keys).map((k) => [k, k]));

let factory: ZxcvbnFactory | undefined;
function estimator(): ZxcvbnFactory {
  // Built on first use (the dictionaries take a few hundred milliseconds to rank), then shared.
  factory ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...en.dictionary, ...fr.dictionary },
    graphs: common.adjacencyGraphs,
    // Keys instead of sentences: our locale files say it, in the reader's language.
    translations: {
      warnings: identity(en.translations.warnings),
      suggestions: identity(en.translations.suggestions),
      timeEstimation: en.translations.timeEstimation,
    } as typeof en.translations,
    // Levenshtein matching costs seconds per check on long inputs; l33t and case variants stay on.
    useLevenshteinDistance: false,
  });
  return factory;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .normalize('NFKC')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * The context words: each value whole, its pieces, and the pieces joined (so "Jane Doe" also gives
 * "janedoe", and jane.doe@demo.test gives "jane.doe", "janedoe", "jane", "doe", "demo").
 */
export function contextWords(context: PasswordContext): string[] {
  const out = new Set<string>(PRODUCT_WORDS.map((w) => w.toLowerCase()));
  const add = (value: string | null | undefined) => {
    if (!value) return;
    const lower = value.toLowerCase().trim();
    const pieces = words(lower);
    out.add(lower);
    out.add(pieces.join(''));
    for (const piece of pieces) if (piece.length >= 3) out.add(piece);
  };
  add(context.email);
  if (context.email?.includes('@')) {
    const [local, domain] = context.email.split('@');
    add(local);
    add(domain.split('.').slice(0, -1).join('.'));
  }
  add(context.displayName);
  add(context.tenantName);
  add(context.tenantSlug);
  out.delete('');
  return [...out];
}

/**
 * Personal text inside the password, whatever the rest: the e-mail, its local part, the user's full name.
 * Compared on letters and digits only, so separators and case do not hide it ("JANE_doe-2024").
 */
export function containsPersonalInfo(password: string, context: PasswordContext): boolean {
  const squeezed = words(password).join('');
  // Whole values only: a single piece ("reset" of e2e.reset@…) is left to the estimator, which
  // discounts it as a context word without refusing every password that happens to contain it.
  const needles: string[] = [];
  if (context.email) {
    needles.push(words(context.email).join(''));
    needles.push(words(context.email.split('@')[0] ?? '').join(''));
  }
  if (context.displayName) {
    const pieces = words(context.displayName);
    needles.push(pieces.join(''), [...pieces].reverse().join('')); // "Jane Doe" and "Doe Jane"
  }
  return needles.some((needle) => needle.length >= 3 && squeezed.includes(needle));
}

export function estimateStrength(password: string, context: PasswordContext = {}): StrengthVerdict {
  const result = estimator().check(password, contextWords(context));
  const feedback: FeedbackType = result.feedback;
  return { score: result.score, warning: feedback.warning || null, suggestions: feedback.suggestions };
}
