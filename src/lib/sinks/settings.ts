import { openSecret, sealSecret } from '../auth/secret-box.ts';
import { env } from '../config/env.ts';
import { AppError } from '../errors/app-error.ts';
import { EVENT_AREAS, EVENT_TYPES } from '../events/catalog.ts';
import { checkTargetAddress, checkTargetUrl } from '../net/outbound.ts';

/**
 * A sink's connection settings: what each type needs, how a posted value is checked (a 400 naming the
 * field, never a 500), sealed at rest (`sealSecret`) and shown masked (`settingsHint`). Every host a
 * user types goes through the outbound guard here when saved, and again when connecting.
 */

export const SINK_TYPES = ['bigquery', 'fineract', 'postgres'] as const;
export type SinkType = (typeof SINK_TYPES)[number];

export function isSinkType(value: string): value is SinkType {
  return (SINK_TYPES as readonly string[]).includes(value);
}

export type PostgresSettings = { connectionString: string; schema: string };
export type BigQuerySettings = {
  projectId: string;
  dataset: string;
  /** The service-account JSON key, as pasted. */
  credentials: string;
  /** Only with ALLOW_PRIVATE_TARGETS (a local stand-in); otherwise Google's own endpoint. */
  apiEndpoint: string | null;
};
export type FineractSettings = {
  baseUrl: string;
  tenantIdentifier: string;
  username: string;
  password: string;
  officeId: number;
  loanProductId: number;
};
export type SinkSettings =
  | ({ type: 'postgres' } & PostgresSettings)
  | ({ type: 'bigquery' } & BigQuerySettings)
  | ({ type: 'fineract' } & FineractSettings);

/** The fields each type's form and JSON body carry (secrets may be left empty on an update: kept). */
export const SETTINGS_FIELDS: Record<SinkType, readonly string[]> = {
  postgres: ['connectionString', 'schema'],
  bigquery: ['projectId', 'dataset', 'credentials', 'apiEndpoint'],
  fineract: ['baseUrl', 'tenantIdentifier', 'username', 'password', 'officeId', 'loanProductId'],
};
/** Secret fields: never sent back; empty on an update keeps the stored value. */
export const SECRET_FIELDS = new Set(['connectionString', 'credentials', 'password']);

const bad = (field: string, message: string) => new AppError('BAD_REQUEST', `${field} ${message}`, { field });

function text(raw: Record<string, unknown>, field: string, max: number, required = true): string {
  const value = raw[field];
  if (value === undefined || value === null || value === '') {
    if (required) throw bad(field, 'is required');
    return '';
  }
  if (typeof value !== 'string') throw bad(field, 'must be text');
  const trimmed = value.trim();
  if (trimmed.length > max) throw bad(field, `must be at most ${max} characters`);
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(trimmed)) throw bad(field, 'must not contain control characters');
  if (required && !trimmed) throw bad(field, 'is required');
  return trimmed;
}

function positiveInt(raw: Record<string, unknown>, field: string, fallback?: number): number {
  const value = raw[field];
  if ((value === undefined || value === null || value === '') && fallback !== undefined) return fallback;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,9}$/.test(value.trim())
        ? Number(value)
        : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 999_999_999) throw bad(field, 'must be a whole number from 1');
  return n;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** A Postgres connection string: postgres://user:password@host:port/database?sslmode=… */
export function parsePostgresUrl(connectionString: string): {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  sslmode: string;
} {
  const url = new URL(connectionString);
  const params = url.searchParams;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 5432,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres',
    sslmode: params.get('sslmode') ?? 'prefer',
  };
}

async function checkPostgres(
  raw: Record<string, unknown>,
  allowPrivate: boolean | undefined,
): Promise<PostgresSettings> {
  const connectionString = text(raw, 'connectionString', 2000);
  const url = await checkTargetAddress(connectionString, 'connectionString', ['postgres:', 'postgresql:'], {
    allowPrivate,
  });
  if (!url.hostname.replace(/^\[|\]$/g, '')) throw bad('connectionString', 'must name a host');
  if (url.port && (Number(url.port) < 1 || Number(url.port) > 65535))
    throw bad('connectionString', 'has an invalid port');
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode && !['disable', 'prefer', 'require', 'verify-full'].includes(sslmode))
    throw bad('connectionString', 'sslmode must be disable, prefer, require or verify-full');
  for (const key of url.searchParams.keys())
    if (key !== 'sslmode') throw bad('connectionString', `may only carry the sslmode parameter (not ${key})`);
  const schema = text(raw, 'schema', 63, false) || 'public';
  if (!IDENTIFIER.test(schema)) throw bad('schema', 'must be a lower-case identifier (letters, digits, _)');
  return { connectionString, schema };
}

type ServiceAccountKey = { client_email: string; private_key: string; token_uri: string; project_id?: string };

/** The parts of a service-account key the sink uses (400 on `credentials` when it is not one). */
export function readServiceAccountKey(credentials: string): ServiceAccountKey {
  let key: Record<string, unknown>;
  try {
    key = JSON.parse(credentials) as Record<string, unknown>;
  } catch {
    throw bad('credentials', 'must be a service-account JSON key');
  }
  if (!key || typeof key !== 'object' || key.type !== 'service_account')
    throw bad('credentials', 'must be a service-account JSON key ("type": "service_account")');
  if (typeof key.client_email !== 'string' || !key.client_email.includes('@'))
    throw bad('credentials', 'must carry client_email');
  if (typeof key.private_key !== 'string' || !key.private_key.includes('PRIVATE KEY'))
    throw bad('credentials', 'must carry private_key');
  const tokenUri =
    typeof key.token_uri === 'string' && key.token_uri ? key.token_uri : 'https://oauth2.googleapis.com/token';
  return { client_email: key.client_email, private_key: key.private_key, token_uri: tokenUri };
}

async function checkBigQuery(
  raw: Record<string, unknown>,
  allowPrivate: boolean | undefined,
): Promise<BigQuerySettings> {
  const projectId = text(raw, 'projectId', 100);
  if (!/^[a-z0-9][a-z0-9.:-]{2,99}$/.test(projectId)) throw bad('projectId', 'must be a Google Cloud project id');
  const dataset = text(raw, 'dataset', 100);
  if (!/^[A-Za-z0-9_]{1,100}$/.test(dataset)) throw bad('dataset', 'must be letters, digits and _');
  const credentials = text(raw, 'credentials', 20_000);
  const key = readServiceAccountKey(credentials);
  // The token exchange goes to the key's token_uri: an address typed by a user, like any other.
  await checkTargetAddress(key.token_uri, 'credentials', ['https:', 'http:'], { allowPrivate });
  const endpoint = text(raw, 'apiEndpoint', 500, false);
  let apiEndpoint: string | null = null;
  if (endpoint) {
    const optedIn = allowPrivate ?? env().allowPrivateTargets;
    if (!optedIn)
      throw bad('apiEndpoint', 'may only be set when the operator allows private targets (ALLOW_PRIVATE_TARGETS)');
    apiEndpoint = checkTargetUrl(endpoint, 'apiEndpoint', ['https:', 'http:'], { allowPrivate }).origin;
  }
  return { projectId, dataset, credentials, apiEndpoint };
}

/** Fineract's server root (https://host[:port]); a pasted …/fineract-provider[/api/v1] is cut back. */
export function fineractRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/fineract-provider(\/api\/v1)?$/, '');
}

async function checkFineract(
  raw: Record<string, unknown>,
  allowPrivate: boolean | undefined,
): Promise<FineractSettings> {
  const baseUrl = text(raw, 'baseUrl', 500);
  const url = await checkTargetAddress(baseUrl, 'baseUrl', ['https:', 'http:'], { allowPrivate });
  if (url.search || url.hash) throw bad('baseUrl', 'must not carry a query or fragment');
  const tenantIdentifier = text(raw, 'tenantIdentifier', 100, false) || 'default';
  if (!/^[A-Za-z0-9_-]+$/.test(tenantIdentifier)) throw bad('tenantIdentifier', 'must be letters, digits, _ and -');
  const username = text(raw, 'username', 100);
  if (username.includes(':')) throw bad('username', 'must not contain ":"');
  const password = text(raw, 'password', 200);
  return {
    baseUrl: fineractRoot(url.toString()),
    tenantIdentifier,
    username,
    password,
    officeId: positiveInt(raw, 'officeId', 1),
    loanProductId: positiveInt(raw, 'loanProductId'),
  };
}

/**
 * Checks the posted settings of a type. On an update, `previous` fills the secret fields left empty
 * (the browser never had them).
 */
export async function checkSettings(
  type: SinkType,
  raw: Record<string, unknown>,
  previous: SinkSettings | null = null,
  options: { allowPrivate?: boolean } = {},
): Promise<SinkSettings> {
  const merged: Record<string, unknown> = { ...raw };
  const kept = new Set<string>();
  if (previous && previous.type === type)
    for (const field of SETTINGS_FIELDS[type]) {
      const value = merged[field];
      if (value === undefined || (SECRET_FIELDS.has(field) && value === '')) {
        merged[field] = (previous as Record<string, unknown>)[field];
        if (SECRET_FIELDS.has(field)) kept.add(field);
      }
    }
  if (type === 'postgres') return { type, ...(await checkPostgres(merged, options.allowPrivate)) };
  if (type === 'bigquery') {
    const checked: SinkSettings = { type, ...(await checkBigQuery(merged, options.allowPrivate)) };
    // The key's token goes to apiEndpoint: a stored key is only used again with the endpoint it was saved with.
    if (kept.has('credentials') && previous?.type === 'bigquery' && previous.apiEndpoint !== checked.apiEndpoint)
      throw bad('credentials', 'must be typed again: the API endpoint changed');
    return checked;
  }
  const checked: SinkSettings = { type, ...(await checkFineract(merged, options.allowPrivate)) };
  // The password goes to baseUrl (HTTP Basic): a stored one is only sent again to the server it was typed for.
  if (
    kept.has('password') &&
    previous?.type === 'fineract' &&
    (previous.baseUrl !== checked.baseUrl || previous.username !== checked.username)
  )
    throw bad('password', 'must be typed again: the server address or user name changed');
  return checked;
}

export function sealSettings(settings: SinkSettings): string {
  return sealSecret(JSON.stringify(settings));
}

export function openSettings(sealed: string): SinkSettings {
  return JSON.parse(openSecret(sealed)) as SinkSettings;
}

const MASK = '••••';

/** What people see of saved settings: hosts and names, never a password, key or full connection string. */
export function settingsHint(settings: SinkSettings): string {
  if (settings.type === 'postgres') {
    const p = parsePostgresUrl(settings.connectionString);
    const host = p.host.includes(':') ? `[${p.host}]` : p.host;
    return `postgres://${p.user ? `${p.user}:${MASK}@` : ''}${host}:${p.port}/${p.database} · schema ${settings.schema}`;
  }
  if (settings.type === 'bigquery') {
    const key = readServiceAccountKey(settings.credentials);
    return `${settings.projectId}.${settings.dataset} · ${key.client_email} (key ${MASK})${settings.apiEndpoint ? ` · ${settings.apiEndpoint}` : ''}`;
  }
  return `${settings.baseUrl} · tenant ${settings.tenantIdentifier} · ${settings.username}:${MASK} · office ${settings.officeId} · product ${settings.loanProductId}`;
}

/** The non-secret settings an edit form may show again (secret fields come back empty). */
export function visibleSettings(settings: SinkSettings): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of SETTINGS_FIELDS[settings.type]) {
    if (SECRET_FIELDS.has(field)) continue;
    const value = (settings as Record<string, unknown>)[field];
    out[field] = value === null || value === undefined ? '' : String(value);
  }
  return out;
}

/**
 * The event filter: '*', a published type, or `area.*` / `area.object.*` of a published area. Takes
 * an array or a comma/space/newline separated text (the form's textarea).
 */
export function checkEventFilter(raw: unknown): string[] {
  const items =
    raw === undefined || raw === null || raw === ''
      ? ['*']
      : Array.isArray(raw)
        ? raw
        : typeof raw === 'string'
          ? raw.split(/[\s,]+/).filter(Boolean)
          : null;
  if (!items) throw bad('events', 'must be a list of event types or patterns');
  if (items.length > 100) throw bad('events', 'may list at most 100 types or patterns');
  const areas = new Set(Object.values(EVENT_AREAS));
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string' || item.length > 100) throw bad('events', 'must be a list of event types or patterns');
    const ok =
      item === '*' ||
      EVENT_TYPES.includes(item) ||
      (/^[a-z_]+(\.[a-z_]+)?\.\*$/.test(item) && areas.has(item.split('.')[0] as never)) ||
      /^[a-z_]+\.record\.[a-z0-9_]+$/.test(item);
    if (!ok) throw bad('events', `has an unknown event type or pattern: ${item.slice(0, 100)}`);
    if (!out.includes(item)) out.push(item);
  }
  return out.length ? out : ['*'];
}

/** The SQL condition of a filter on domain_events.type (for the lag count). */
export function filterSql(_patterns: readonly string[], param: number): string {
  return `(exists (select 1 from unnest($${param}::text[]) p where p = '*' or p = type
           or (right(p, 2) = '.*' and starts_with(type, left(p, -1)))))`;
}
