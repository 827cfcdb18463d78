import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
import type { FormDocument } from './document.ts';
import { keptAnswers, type Answers } from './fields.ts';

/**
 * Answers are checked against the form's JSON Schema by Ajv, on the server, for every kind of form.
 * One Ajv instance; compiled validators are kept by the schema's JSON text (at most CACHE_SIZE, the oldest
 * dropped and removed from Ajv, so a server that sees many form versions does not grow without end).
 */

/** Why an answer was refused: the field, a key of the `forms:errors` namespace, and its parameters. */
export type FieldError = { field: string; key: FieldErrorKey; params?: Record<string, string | number> };
export type FieldErrorKey =
  | 'required'
  | 'type'
  | 'minLength'
  | 'maxLength'
  | 'pattern'
  | 'email'
  | 'date'
  | 'dateMin'
  | 'dateMax'
  | 'minimum'
  | 'maximum'
  | 'integer'
  | 'choice'
  | 'money'
  | 'minAmount'
  | 'maxAmount'
  | 'invalid';

export type Validation = { ok: true; answers: Answers } | { ok: false; answers: Answers; errors: FieldError[] };

/** Schemas are at most 256 KB (check.ts), so the cache's keys hold at most 16 MB. */
const CACHE_SIZE = 64;

/** Cents of a money answer ("1234.5" → 123450n), or null when it is not one. */
export function amountCents(text: string): bigint | null {
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return null;
  return BigInt(match[1]) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

type AddFormats = (ajv: Ajv, options: { formats: string[]; keywords: boolean }) => Ajv;
const addFormats = addFormatsModule as unknown as AddFormats;

/**
 * JSON Schema `pattern`s run on RE2 (re2js, a linear-time engine), not on the JavaScript engine:
 * an administrator writes the pattern and strangers write the answers, and a backtracking engine
 * lets one answer hold the server for seconds ("^(\\w|\\d)+$" on 26 characters). RE2 has no
 * backreferences or lookarounds; a pattern using them does not compile and the form is refused.
 */
const compiledPatterns = new Map<string, RE2JS>();
function linearPattern(pattern: string): RE2JS {
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    compiled = RE2JS.compile(pattern);
    if (compiledPatterns.size >= 1000) compiledPatterns.clear();
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}
const linearRegExp = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = linearPattern(pattern);
    return {
      // JSON Schema patterns are not anchored: a match anywhere in the answer.
      test: (text: string) => compiled.matcher(text).find(),
      // Ajv shares compiled patterns by this text: it must name the pattern.
      toString: () => `/${pattern}/${flags}`,
    };
  },
  { code: 'linearRegExp' },
);

/** Whether a pattern compiles on the engine that runs it (RE2 syntax). */
export function patternCompiles(pattern: string): boolean {
  try {
    linearPattern(pattern);
    return true;
  } catch {
    return false;
  }
}

function makeAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: false,
    code: { regExp: linearRegExp },
  });
  addFormats(ajv, { formats: ['email', 'date'], keywords: true });
  for (const [keyword, holds] of [
    ['minAmount', (value: bigint, limit: bigint) => value >= limit],
    ['maxAmount', (value: bigint, limit: bigint) => value <= limit],
  ] as const) {
    ajv.addKeyword({
      keyword,
      type: 'string',
      schemaType: 'string',
      errors: false,
      validate: (limit: string, data: string) => {
        const value = amountCents(data);
        const bound = amountCents(limit);
        return value === null || bound === null || holds(value, bound);
      },
    });
  }
  return ajv;
}

let ajv: Ajv | null = null;
const cache = new Map<string, ValidateFunction>();

/** The shared Ajv (also used by ./check.ts to check a schema against the meta-schema). */
export function formsAjv(): Ajv {
  ajv ??= makeAjv();
  return ajv;
}

/** A validator for a form's schema (compiled once per distinct schema). Throws when the schema does not compile. */
export function validatorFor(doc: FormDocument): ValidateFunction {
  // The text itself is the key (no node:crypto, so the module also loads in the builder island).
  const key = JSON.stringify(doc.schema);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const instance = formsAjv();
  const schema = structuredClone(doc.schema);
  const validate = instance.compile(schema);
  cache.set(key, validate);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value as string;
    const dropped = cache.get(oldest);
    cache.delete(oldest);
    if (dropped?.schema) instance.removeSchema(dropped.schema as object);
  }
  return validate;
}

function fieldOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String((error.params as { missingProperty: string }).missingProperty);
  return error.instancePath.split('/')[1] ?? '';
}

function toFieldError(doc: FormDocument, error: ErrorObject): FieldError | null {
  const field = fieldOf(error);
  const property = doc.schema.properties[field];
  const widget = doc.ui.fields[field]?.widget;
  const limit = (error.params as { limit?: number | string }).limit;
  switch (error.keyword) {
    case 'required':
      return { field, key: 'required' };
    case 'type':
      return {
        field,
        key: property?.type === 'integer' ? 'integer' : property?.type === 'number' ? 'type' : 'invalid',
      };
    case 'minLength':
    case 'maxLength':
    case 'minimum':
    case 'maximum':
      return { field, key: error.keyword, params: { limit: String(limit) } };
    case 'pattern':
      return { field, key: widget === 'money' ? 'money' : 'pattern' };
    case 'format':
      return { field, key: property?.format === 'date' ? 'date' : 'email' };
    case 'formatMinimum':
      return { field, key: 'dateMin', params: { limit: String(limit) } };
    case 'formatMaximum':
      return { field, key: 'dateMax', params: { limit: String(limit) } };
    case 'enum':
    case 'const':
      return { field, key: 'choice' };
    case 'minAmount':
    case 'maxAmount':
      return { field, key: error.keyword, params: { limit: String(property?.[error.keyword] ?? '') } };
    case 'if':
      return null;
    default:
      return { field, key: 'invalid' };
  }
}

/**
 * Checks answers against a form: hidden, unknown and empty answers are dropped first (./fields.ts),
 * then the schema decides. Errors come one per field (the first), in form order.
 * `only` limits the check to some fields (one step of a multi-step form); required fields outside it
 * are not reported.
 */
export function validateAnswers(doc: FormDocument, answers: Answers, only?: readonly string[]): Validation {
  const kept = keptAnswers(doc, answers);
  const validate = validatorFor(doc);
  if (validate(kept)) return { ok: true, answers: kept };
  const scope = only ? new Set(only) : null;
  const byField = new Map<string, FieldError>();
  for (const error of validate.errors ?? []) {
    const mapped = toFieldError(doc, error);
    if (!mapped || !mapped.field) continue;
    if (scope && !scope.has(mapped.field)) continue;
    if (!byField.has(mapped.field)) byField.set(mapped.field, mapped);
  }
  if (byField.size === 0) return { ok: true, answers: kept };
  const order = doc.ui.steps.flatMap((s) => s.fields);
  const errors = [...byField.values()].sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field));
  return { ok: false, answers: kept, errors };
}
