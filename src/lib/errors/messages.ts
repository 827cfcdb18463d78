import enValidation from '../i18n/locales/en/validation.json' with { type: 'json' };
import frValidation from '../i18n/locales/fr/validation.json' with { type: 'json' };
import type { Language } from '../i18n/index.ts';
import { INTL_LOCALE } from '../i18n/intl-locale.ts';
import { AppError, toAppError, type ErrorCode } from './app-error.ts';

/**
 * The one mapping from a refused input to words for people: every validation failure — a zod issue
 * at an endpoint's edge, or an AppError carrying a message key from a parser or a command — becomes
 * "<the field's label> <what is allowed>" in the request's language. The JSON answer, the form pages,
 * the islands and the CLI all go through here. Plain TypeScript with only the two small validation
 * bundles, so islands can show the very message the server would, before sending.
 */

type Bundle = typeof enValidation;
const BUNDLES: Record<Language, Bundle> = { en: enValidation, fr: frValidation as Bundle };

type Params = Record<string, string | number>;

function lookup(language: Language, path: string): string | undefined {
  let node: unknown = BUNDLES[language] ?? BUNDLES.en;
  for (const part of path.split('.'))
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  return typeof node === 'string' ? node : undefined;
}

/** The label of a field named by its path ("amount", "formData.purpose", "calendar.holidays[0].to"). */
export function fieldLabel(language: Language, field: string | undefined): string {
  if (!field) return lookup(language, 'fields.body') ?? 'Request';
  const last = field
    .split('.')
    .pop()!
    .replace(/\[\d+\]$/, '');
  return lookup(language, `fields.${last}`) ?? lookup('en', `fields.${last}`) ?? field;
}

const AMOUNT = /^-?\d+(\.\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A decimal string as people read it in their language (grouped, the language's decimal mark), exactly. */
export function readableAmount(text: string, language: Language): string {
  const decimals = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
  // Intl formats a decimal string exactly (no float in between).
  return new Intl.NumberFormat(INTL_LOCALE[language] ?? 'en-US', {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  }).format(text as unknown as number);
}

function readableDate(text: string, language: Language): string {
  const m = DATE.exec(text);
  if (!m) return text;
  return language === 'fr' ? `${m[3]}/${m[2]}/${m[1]}` : `${m[2]}/${m[3]}/${m[1]}`;
}

function readable(value: string | number, language: Language): string {
  const text = String(value);
  if (DATE.test(text)) return readableDate(text, language);
  if (AMOUNT.test(text) && text.replace(/^-/, '').length > 3) return readableAmount(text, language);
  return text;
}

/** The message for a key under `messages`, with the field's label and readable parameters. */
export function validationMessage(language: Language, key: string, params: Params = {}, field?: string): string {
  const template =
    lookup(language, `messages.${key}`) ?? lookup('en', `messages.${key}`) ?? lookup(language, 'messages.invalid')!;
  const values: Record<string, string> = { field: fieldLabel(language, field) };
  for (const [name, value] of Object.entries(params)) {
    values[name] =
      name === 'expected'
        ? (lookup(language, `messages.types.${value}`) ?? String(value))
        : name === 'example'
          ? String(value)
          : readable(value, language);
  }
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '');
}

/** An input error naming its field, with an English message (logs, audit) and a key for every language. */
export function validationError(
  field: string,
  key: string,
  params: Params = {},
  code: ErrorCode = 'BAD_REQUEST',
  details?: Record<string, unknown>,
): AppError {
  return new AppError(code, validationMessage('en', key, params, field), { field, key, params, details });
}

type ZodIssueLike = {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  input?: unknown;
  origin?: string;
  format?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  values?: unknown[];
  keys?: string[];
};

function pathText(path: PropertyKey[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${String(part)}` : String(part)),
    '',
  );
}

/** A zod issue as a message key and parameters (zod 4 issue shapes). */
export function zodIssueKey(issue: ZodIssueLike): { field: string | undefined; key: string; params: Params } {
  let field = pathText(issue.path) || undefined;
  switch (issue.code) {
    case 'invalid_type':
      // zod 4 keeps the input out of issues by default; its message still says what was received.
      if (issue.input === null || /received (undefined|null)$/.test(issue.message))
        return { field, key: 'required', params: {} };
      if (issue.expected === 'int') return { field, key: 'number.whole', params: {} };
      return { field, key: 'type', params: { expected: issue.expected ?? 'string' } };
    case 'too_small': {
      const min = String(issue.minimum ?? '');
      if (issue.origin === 'string')
        return Number(min) <= 1
          ? { field, key: 'required', params: {} }
          : { field, key: 'text.tooShort', params: { min } };
      if (issue.origin === 'array' || issue.origin === 'set') return { field, key: 'number.min', params: { min } };
      return { field, key: 'number.min', params: { min } };
    }
    case 'too_big': {
      const max = String(issue.maximum ?? '');
      if (issue.origin === 'string') return { field, key: 'text.tooLong', params: { max } };
      return { field, key: 'number.max', params: { max } };
    }
    case 'invalid_value':
      return { field, key: 'choice', params: { options: (issue.values ?? []).map(String).join(', ') } };
    case 'invalid_format':
      return { field, key: 'text.format', params: {} };
    case 'unrecognized_keys': {
      const key = issue.keys?.[0];
      field = key ? (field ? `${field}.${key}` : key) : field;
      return { field, key: 'unknownField', params: {} };
    }
    case 'custom': {
      // Our refinements (money, dates) put their key and parameters in the issue's params.
      const custom = (issue as { params?: { key?: string; params?: Params } }).params;
      if (custom?.key) return { field, key: custom.key, params: custom.params ?? {} };
      return { field, key: 'invalid', params: {} };
    }
    default:
      return { field, key: 'invalid', params: {} };
  }
}

/** A zod failure, recognised by shape so this module (islands import it) does not pull zod in. */
function isZodError(error: unknown): error is { issues: ZodIssueLike[] } {
  return error instanceof Error && error.name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues);
}

/** What an expected error says to its reader; null for an unexpected error (a 500 with a reference). */
export type ErrorView = { status: number; body: Record<string, unknown> };

/**
 * Turns any error into the one error answer's body in `language`: zod failures and keyed AppErrors
 * get a labelled message; other AppErrors keep theirs. Null when the error is not an expected one.
 */
export function describeError(error: unknown, language: Language = 'en'): ErrorView | null {
  const known = toAppError(error);
  if (isZodError(known)) {
    const issue = known.issues[0];
    if (!issue) return { status: 400, body: { code: 'BAD_REQUEST', message: validationMessage(language, 'invalid') } };
    const { field, key, params } = zodIssueKey(issue);
    return {
      status: 400,
      body: {
        code: 'BAD_REQUEST',
        message: validationMessage(language, key, params, field),
        ...(field ? { field } : {}),
        key,
        params,
      },
    };
  }
  if (known instanceof AppError) {
    const body = (known.toJSON() as { error: Record<string, unknown> }).error;
    if (known.key) body.message = validationMessage(language, known.key, known.params ?? {}, known.field);
    return { status: known.status, body };
  }
  return null;
}

/** The message and field of an error for a form page (null: unexpected, let it be a 500). */
export function formErrorOf(
  error: unknown,
  language: Language,
): { status: number; field?: string; message: string } | null {
  const view = describeError(error, language);
  if (!view || view.status >= 500) return null;
  return { status: view.status, field: view.body.field as string | undefined, message: String(view.body.message) };
}

/**
 * Rewrites the message of a stored JSON error answer (an idempotent command's first answer) in the
 * language of the request reading it; anything that is not a keyed error passes unchanged.
 */
export function localizeErrorBody(text: string, language: Language): string {
  if (language === 'en' || !text.includes('"key"')) return text;
  try {
    const parsed = JSON.parse(text) as { error?: { key?: unknown; params?: Params; field?: string; message?: string } };
    const e = parsed.error;
    if (!e || typeof e.key !== 'string') return text;
    e.message = validationMessage(language, e.key, e.params ?? {}, e.field);
    return JSON.stringify(parsed);
  } catch {
    return text;
  }
}
