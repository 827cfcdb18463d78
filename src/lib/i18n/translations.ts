import crypto from 'node:crypto';
import { z } from 'zod';
import type { TFunction } from 'i18next';
import { AppError } from '../errors/app-error.ts';
import type { Db } from '../db/index.ts';
import { log } from '../observability/log.ts';
import { clashesWithBundle, isBundledKey } from './bundle-keys.ts';
import { LANGUAGES, getT, type Language } from './index.ts';
import { RESOURCES, type Namespace, type Resource } from './resources.ts';
import type { TranslationMissingKeysRow, TranslationOverridesRow } from '../db/schema.generated.ts';

/**
 * Translations served to browsers (GET /v1/translations/{lng}/{ns}): the bundled resources with the
 * tenant's overrides laid on top, and the missing keys browsers report (POST), kept once per key for
 * translators.
 */
export function parseLanguage(value: string | undefined): Language {
  if (!value || !(LANGUAGES as readonly string[]).includes(value)) {
    throw new AppError('NOT_FOUND', `lng: unknown language '${value ?? ''}'; use one of ${LANGUAGES.join(', ')}.`, {
      field: 'lng',
    });
  }
  return value as Language;
}

export function parseNamespace(value: string | undefined): Namespace {
  if (!value || !Object.hasOwn(RESOURCES.en, value)) {
    throw new AppError('NOT_FOUND', `ns: unknown namespace '${value ?? ''}'.`, { field: 'ns' });
  }
  return value as Namespace;
}

/** Sets a dotted key inside a nested resource, refusing prototype keys. */
function setPath(target: Resource, dotted: string, value: string): void {
  const parts = dotted.split('.');
  if (parts.some((p) => !p || p === '__proto__' || p === 'constructor' || p === 'prototype')) return;
  let node: Resource = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null) node[part] = {};
    node = node[part] as Resource;
  }
  node[parts[parts.length - 1]] = value;
}

type OverrideRow = Pick<TranslationOverridesRow, 'namespace' | 'key' | 'value'>;

async function loadOverrides(
  db: Db,
  tenantId: string,
  language: Language,
  namespace?: Namespace,
): Promise<OverrideRow[]> {
  return db.tenant(tenantId, (tx) =>
    namespace
      ? tx.query<OverrideRow>(
          'select namespace, key, value from translation_overrides where language = $1 and namespace = $2 order by key',
          [language, namespace],
        )
      : tx.query<OverrideRow>(
          'select namespace, key, value from translation_overrides where language = $1 order by namespace, key',
          [language],
        ),
  );
}

export async function getTranslations(
  db: Db,
  args: { tenantId: string; language: Language; namespace: Namespace },
): Promise<Resource> {
  const bundled = structuredClone(RESOURCES[args.language][args.namespace]) as Resource;
  for (const row of await loadOverrides(db, args.tenantId, args.language, args.namespace))
    setPath(bundled, row.key, row.value);
  return bundled;
}

/** A translator for server-rendered pages: bundled texts plus the tenant's overrides. */
export async function tenantTranslator(db: Db, tenantId: string, language: Language): Promise<TFunction> {
  const rows = await loadOverrides(db, tenantId, language);
  if (rows.length === 0) return getT(language);
  const resources: Partial<Record<Namespace, Resource>> = {};
  for (const row of rows) {
    if (!Object.hasOwn(RESOURCES.en, row.namespace)) continue;
    const ns = row.namespace as Namespace;
    setPath((resources[ns] ??= {}), row.key, row.value);
  }
  // The cache key changes with the content, so an edited override takes effect at once.
  const key = crypto
    .createHash('sha256')
    .update(`${tenantId}\n${JSON.stringify(rows)}`)
    .digest('hex')
    .slice(0, 16);
  return getT(language, { key, resources });
}

export async function setTranslationOverride(
  db: Db,
  args: { tenantId: string; language: Language; namespace: Namespace; key: string; value: string },
): Promise<void> {
  await db.tenant(args.tenantId, (tx) =>
    tx.query(
      `insert into translation_overrides (tenant_id, language, namespace, key, value) values ($1, $2, $3, $4, $5)
       on conflict (tenant_id, language, namespace, key) do update set value = excluded.value, updated_at = now()`,
      [args.tenantId, args.language, args.namespace, args.key, args.value],
    ),
  );
}

/**
 * i18next's saveMissing posts `{ "some.key": "fallback text", … }`. Keys are bounded in number and
 * length; a key reported again bumps its counter instead of adding a row.
 */
export const missingKeysSchema = z
  .record(
    z
      .string()
      .min(1)
      .max(300)
      .regex(/^[\w.\-: ]+$/, 'keys may contain letters, digits, dots, dashes, colons and spaces'),
    z.string().max(2000),
  )
  .refine((value) => Object.keys(value).length <= 100, { message: 'at most 100 keys per request' });

/** How many distinct missing keys a tenant keeps; past it, new keys are dropped (and logged), known ones still counted. */
export const MAX_MISSING_KEYS_PER_TENANT = 2000;

/**
 * Records the keys a browser reports missing; returns how many were stored or counted. Ignored: a
 * key that is a bundled text (nothing is missing) or clashes with the bundle's structure (a group
 * of texts such as `admin` in `nav`, or a key under a text), since a reported key becomes a legal
 * override key. Past MAX_MISSING_KEYS_PER_TENANT rows, new keys are dropped and counted in a log line.
 */
export async function recordMissingKeys(
  db: Db,
  args: { tenantId: string; language: Language; namespace: Namespace; keys: Record<string, string> },
  options: { maxRows?: number } = {},
): Promise<number> {
  const entries = Object.entries(missingKeysSchema.parse(args.keys)).filter(
    ([key]) => !isBundledKey(args.namespace, key) && !clashesWithBundle(args.namespace, key),
  );
  if (entries.length === 0) return 0;
  const maxRows = options.maxRows ?? MAX_MISSING_KEYS_PER_TENANT;
  const { stored, dropped } = await db.tenant(args.tenantId, async (tx) => {
    let [{ rows }] = await tx.query<{ rows: number }>('select count(*)::int as rows from translation_missing_keys');
    let stored = 0;
    let dropped = 0;
    for (const [key, fallback] of entries) {
      const bumped = await tx.query(
        `update translation_missing_keys set times_reported = times_reported + 1, last_seen_at = now()
          where language = $1 and namespace = $2 and key = $3 returning key`,
        [args.language, args.namespace, key],
      );
      if (bumped.length > 0) {
        stored++;
        continue;
      }
      if (rows >= maxRows) {
        dropped++;
        continue;
      }
      await tx.query(
        `insert into translation_missing_keys (tenant_id, language, namespace, key, fallback) values ($1, $2, $3, $4, $5)
         on conflict (tenant_id, language, namespace, key)
         do update set times_reported = translation_missing_keys.times_reported + 1, last_seen_at = now()`,
        [args.tenantId, args.language, args.namespace, key, fallback],
      );
      rows++;
      stored++;
    }
    return { stored, dropped };
  });
  if (dropped > 0)
    log('warn', 'translation missing keys: tenant at its limit, new keys dropped', {
      tenant_id: args.tenantId,
      language: args.language,
      namespace: args.namespace,
      dropped,
      limit: maxRows,
    });
  return stored;
}

export async function listMissingKeys(
  db: Db,
  tenantId: string,
): Promise<{ language: string; namespace: string; key: string; fallback: string; timesReported: number }[]> {
  const rows = await db.tenant(tenantId, (tx) =>
    tx.query<Pick<TranslationMissingKeysRow, 'language' | 'namespace' | 'key' | 'fallback' | 'times_reported'>>(
      'select language, namespace, key, fallback, times_reported from translation_missing_keys order by language, namespace, key',
    ),
  );
  return rows.map((r) => ({
    language: r.language,
    namespace: r.namespace,
    key: r.key,
    fallback: r.fallback,
    timesReported: r.times_reported,
  }));
}
