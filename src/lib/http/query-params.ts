/**
 * The one query-parameter layer of lists, searches and exports (a client's
 * mistake is a 400 naming the parameter, never a 500). Two levels:
 *
 *  1. `checkQueryString` looks at the RAW query string of every request (the middleware step
 *     src/server/middleware/client-errors.ts runs it before any page or endpoint): malformed
 *     percent-encoding, bytes that are not UTF-8 (`%FF`, overlong `%C0%AF`, lone surrogates
 *     `%ED%A0%80` — `decodeURIComponent` refuses all three), NUL and other control characters, and
 *     values too long to be anything but an attack. None of these appears in a link the product
 *     writes, and Postgres refuses NUL in text (22021), so they are refused before they reach a query.
 *  2. `QueryReader` reads one endpoint's parameters with their types: whole numbers within a range
 *     (`limit=1.5`, `limit=-1`, `limit=NaN`, `limit=1e9` are refused, not coerced), ids, enums,
 *     bounded text; a parameter given twice (`limit=1&limit=2`, `limit[]=`-style arrays are simply
 *     unknown names) is refused instead of silently taking the first.
 */
import { AppError } from '../errors/app-error.ts';

/** Longest value of one query parameter; lists cap search at 100 characters, cursors at 512. */
export const MAX_QUERY_VALUE_LENGTH = 2_000;
/** Longest whole query string. */
export const MAX_QUERY_LENGTH = 8_000;

export type QueryIssue = { param: string; message: string };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function decodeComponent(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** A printable name for an offending parameter: its decoded name when readable, else a placeholder. */
function nameOf(rawName: string): string {
  const decoded = decodeComponent(rawName);
  return decoded !== null && !CONTROL.test(decoded) && decoded.length <= 100 ? decoded : '(parameter name)';
}

/**
 * The first problem of a raw query string (`url.search`, with or without '?'), or null when every
 * parameter decodes to clean UTF-8 text of a sane length.
 */
export function checkQueryString(search: string): QueryIssue | null {
  const raw = search.startsWith('?') ? search.slice(1) : search;
  if (!raw) return null;
  for (const pair of raw.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    const name = decodeComponent(rawName);
    const param = nameOf(rawName);
    if (name === null) return { param, message: 'the parameter name is not valid percent-encoded UTF-8' };
    if (CONTROL.test(name)) return { param, message: 'the parameter name contains a control character' };
    const value = decodeComponent(rawValue);
    if (value === null) return { param, message: 'the value is not valid percent-encoded UTF-8' };
    if (CONTROL.test(value)) return { param, message: 'the value contains a control character (such as NUL)' };
    if (value.length > MAX_QUERY_VALUE_LENGTH)
      return { param, message: `the value is longer than ${MAX_QUERY_VALUE_LENGTH} characters` };
  }
  // After the parameters, so that one overlong value is named rather than the whole query.
  if (raw.length > MAX_QUERY_LENGTH)
    return { param: '(query)', message: `the query string is longer than ${MAX_QUERY_LENGTH} characters` };
  return null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

function bad(param: string, message: string): AppError {
  return new AppError('BAD_REQUEST', `${param}: ${message}`, { field: param });
}

/**
 * Typed reads of one request's query parameters. Every refusal is an AppError BAD_REQUEST naming
 * the parameter (`field`), answered as `{ error: { code, message, field } }` by respond.ts.
 */
export class QueryReader {
  readonly params: URLSearchParams;

  /** With `known`, a parameter outside it (a typo, `limit[]`) is refused rather than ignored. */
  constructor(params: URLSearchParams, known?: readonly string[]) {
    this.params = params;
    if (known) {
      for (const name of params.keys()) {
        if (!known.includes(name))
          throw bad(
            CONTROL.test(name) ? '(parameter name)' : name.slice(0, 100),
            `unknown parameter; this endpoint reads ${known.join(', ')}`,
          );
      }
    }
  }

  /** The single value of a parameter, undefined when absent; given twice is a mistake. */
  one(name: string): string | undefined {
    const values = this.params.getAll(name);
    if (values.length > 1) throw bad(name, 'give this parameter once');
    const value = values[0];
    if (value !== undefined && CONTROL.test(value)) throw bad(name, 'contains a control character');
    return value;
  }

  /** A whole number in [min, max] written as plain digits; absent or empty → fallback. */
  int(name: string, options: { min: number; max: number; fallback: number }): number;
  int(name: string, options: { min: number; max: number; fallback?: undefined }): number | undefined;
  int(name: string, { min, max, fallback }: { min: number; max: number; fallback?: number }): number | undefined {
    const raw = this.one(name)?.trim();
    if (raw === undefined || raw === '') return fallback;
    if (!/^-?\d{1,15}$/.test(raw)) throw bad(name, `must be a whole number from ${min} to ${max}`);
    const value = Number(raw);
    if (value < min || value > max) throw bad(name, `must be a whole number from ${min} to ${max}`);
    return value;
  }

  /** One of a fixed set of values. */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const raw = this.one(name);
    if (raw === undefined || raw === '') return undefined;
    if (!(allowed as readonly string[]).includes(raw)) throw bad(name, `must be one of ${allowed.join(', ')}`);
    return raw as T;
  }

  /** An object id (uuid, lower-cased). */
  uuid(name: string): string | undefined {
    const raw = this.one(name)?.trim();
    if (raw === undefined || raw === '') return undefined;
    if (!isUuid(raw)) throw bad(name, 'must be an id (uuid)');
    return raw.toLowerCase();
  }

  /** Free text (a search), trimmed, whitespace collapsed, at most `max` characters. */
  text(name: string, { max }: { max: number }): string | undefined {
    const raw = this.one(name);
    if (raw === undefined) return undefined;
    const value = raw.trim().replace(/\s+/g, ' ');
    if (value.length > max) throw bad(name, `must be at most ${max} characters`);
    return value || undefined;
  }

  /** An opaque cursor as the API hands them out (base64url), at most 512 characters. */
  cursor(name: string): string | undefined {
    const raw = this.one(name);
    if (raw === undefined || raw === '') return undefined;
    if (!/^[A-Za-z0-9_-]{1,512}$/.test(raw)) throw bad(name, 'is not a cursor this API handed out');
    return raw;
  }
}
