import ExcelJS from 'exceljs';
import { z } from 'zod';
import type { TFunction } from 'i18next';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { neutralise } from '../exports/cells.ts';
import { defineCommand } from '../http/command.ts';
import { inspectZip } from '../http/zip-guard.ts';
import { need } from '../auth/permissions.ts';
import type { Actor } from '../lending/actor.ts';
import type { TranslationMissingKeysRow, TranslationOverridesRow } from '../db/schema.generated.ts';
import { clashesWithBundle } from './bundle-keys.ts';
import { LANGUAGES, getT, type Language } from './index.ts';
import { RESOURCES, type Namespace, type Resource } from './resources.ts';

/**
 * The administrators' side of translations (admin > platform > translations): the catalogue of every
 * bundled text with the tenant's overrides and the keys browsers reported missing, the checks an
 * override must pass, setting and removing one, and export/import of all of them.
 *
 * An override is accepted when its key exists in the bundle (either language) or was reported missing
 * for that language and namespace, its value is 1–2000 characters, and it keeps every `{{placeholder}}`
 * of the bundled text (a dropped placeholder would show an empty hole, or lose a count). Values are
 * plain text: pages render them escaped (i18next's own escaping is off because Astro escapes).
 *
 * Export/import format (both directions, documented in the page's help text):
 * - JSON: `{ "en": { "nav": { "admin.users": "Staff" } }, "fr": { … } }` — language → namespace →
 *   dotted key → value. Import also accepts a flat list `[{ "language", "namespace", "key", "value" }]`.
 * - XLSX: one sheet, header `language | namespace | key | value`, one row per override. Export
 *   neutralises cells a spreadsheet would run as formulas (as list exports do); import reads every
 *   cell as text and strips that neutralising quote again.
 * Import checks every row first and applies all of them or none, answering row-level errors.
 */

export const NAMESPACES = Object.keys(RESOURCES.en) as Namespace[];
export const MAX_OVERRIDE_LENGTH = 2000;
export const IMPORT_MAX_ROWS = 5000;
export const IMPORT_JSON_MAX_BYTES = 256 * 1024;
export const IMPORT_XLSX_MAX_BYTES = 1024 * 1024;
/** What an uploaded XLSX may expand to (its zip parts, measured before ExcelJS unpacks it): see src/lib/http/zip-guard.ts. */
export const IMPORT_XLSX_MAX_ENTRIES = 200;
export const IMPORT_XLSX_MAX_INFLATED_BYTES = 20 * 1024 * 1024;

function flatten(resource: Resource, prefix = '', out = new Map<string, string>()): Map<string, string> {
  for (const [k, v] of Object.entries(resource)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else if (v && typeof v === 'object') flatten(v, key, out);
  }
  return out;
}

/** Bundled texts, flattened once: language → namespace → key → text. */
const BUNDLED: Record<Language, Record<string, Map<string, string>>> = Object.fromEntries(
  LANGUAGES.map((lng) => [
    lng,
    Object.fromEntries(NAMESPACES.map((ns) => [ns, flatten(RESOURCES[lng][ns] as Resource)])),
  ]),
) as Record<Language, Record<string, Map<string, string>>>;

export function bundledText(language: Language, namespace: string, key: string): string | undefined {
  return BUNDLED[language][namespace]?.get(key);
}

export function isNamespace(value: string): value is Namespace {
  return (NAMESPACES as string[]).includes(value);
}

/** The interpolation names of a text: `{{count}}`, `{{ value, number }}` → count, value. */
export function placeholders(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\{\{\s*([\w.-]+)\s*(?:,[^}]*)?\}\}/g)) names.add(m[1]);
  return [...names];
}

export type OverrideInput = { language: Language; namespace: string; key: string; value: string };
export type OverrideProblem = { field: 'language' | 'namespace' | 'key' | 'value'; message: string };

type MissingRow = Pick<
  TranslationMissingKeysRow,
  'language' | 'namespace' | 'key' | 'fallback' | 'times_reported' | 'first_seen_at' | 'last_seen_at'
>;
type OverrideRow = Pick<TranslationOverridesRow, 'language' | 'namespace' | 'key' | 'value' | 'updated_at'>;

const missingId = (language: string, namespace: string, key: string) => `${language}\u0000${namespace}\u0000${key}`;

async function loadMissing(tx: Tx): Promise<MissingRow[]> {
  return tx.query<MissingRow>(
    `select language, namespace, key, fallback, times_reported, first_seen_at, last_seen_at
       from translation_missing_keys order by last_seen_at desc, namespace, key`,
  );
}

async function loadOverrides(tx: Tx): Promise<OverrideRow[]> {
  return tx.query<OverrideRow>(
    'select language, namespace, key, value, updated_at from translation_overrides order by namespace, key, language',
  );
}

/** What is wrong with an override, in the caller's language, or null when it may be stored. */
export function checkOverride(
  t: TFunction,
  input: OverrideInput,
  reported: ReadonlySet<string>,
): OverrideProblem | null {
  if (!(LANGUAGES as readonly string[]).includes(input.language))
    return {
      field: 'language',
      message: t('platform:translations.errors.language', { languages: LANGUAGES.join(', ') }),
    };
  if (!isNamespace(input.namespace))
    return { field: 'namespace', message: t('platform:translations.errors.namespace', { namespace: input.namespace }) };
  // A group of bundled texts (`admin` in `nav`) or a key under a text would replace or break a subtree.
  if (clashesWithBundle(input.namespace, input.key))
    return {
      field: 'key',
      message: t('platform:translations.errors.groupKey', { key: `${input.namespace}:${input.key}` }),
    };
  const own = bundledText(input.language, input.namespace, input.key);
  const other = LANGUAGES.map((l) => bundledText(l, input.namespace, input.key)).find((x) => x !== undefined);
  if (own === undefined && other === undefined && !reported.has(missingId(input.language, input.namespace, input.key)))
    return {
      field: 'key',
      message: t('platform:translations.errors.unknownKey', { key: `${input.namespace}:${input.key}` }),
    };
  const value = input.value;
  if (!value.trim()) return { field: 'value', message: t('platform:translations.errors.empty') };
  if (value.length > MAX_OVERRIDE_LENGTH)
    return { field: 'value', message: t('platform:translations.errors.tooLong', { max: MAX_OVERRIDE_LENGTH }) };
  const kept = new Set(placeholders(value));
  const lost = placeholders(own ?? other ?? '').find((p) => !kept.has(p));
  if (lost) return { field: 'value', message: t('platform:translations.errors.placeholder', { name: `{{${lost}}}` }) };
  return null;
}

async function reportedSet(tx: Tx): Promise<Set<string>> {
  return new Set((await loadMissing(tx)).map((m) => missingId(m.language, m.namespace, m.key)));
}

// ------------------------------------------------------------------------------------------------
// The catalogue

export type CatalogueEntry = {
  namespace: string;
  key: string;
  en: string | null;
  fr: string | null;
  override: Partial<Record<Language, string>>;
  /** Reports by browsers that the key is missing, per language. */
  reported: { language: string; timesReported: number; firstSeenAt: Date; lastSeenAt: Date; fallback: string }[];
};

export type CatalogueFilter = {
  namespace?: string;
  search?: string;
  missingOnly?: boolean;
  page: number;
  pageSize: number;
};

/**
 * Every text by namespace and key (bundled EN and FR, the tenant's overrides), the keys browsers
 * reported missing first (most recently seen first), then by namespace and key; one page of them.
 * "Missing" means reported by a browser, or without a bundled text in one of the languages.
 */
export async function listCatalogue(
  tx: Tx,
  filter: CatalogueFilter,
): Promise<{ items: CatalogueEntry[]; total: number; page: number; pages: number }> {
  const entries = new Map<string, CatalogueEntry>();
  const entryOf = (namespace: string, key: string): CatalogueEntry => {
    const id = `${namespace}\u0000${key}`;
    let e = entries.get(id);
    if (!e) {
      e = {
        namespace,
        key,
        en: bundledText('en', namespace, key) ?? null,
        fr: bundledText('fr', namespace, key) ?? null,
        override: {},
        reported: [],
      };
      entries.set(id, e);
    }
    return e;
  };
  for (const ns of NAMESPACES) for (const lng of LANGUAGES) for (const key of BUNDLED[lng][ns].keys()) entryOf(ns, key);
  for (const m of await loadMissing(tx))
    entryOf(m.namespace, m.key).reported.push({
      language: m.language,
      timesReported: m.times_reported,
      firstSeenAt: m.first_seen_at,
      lastSeenAt: m.last_seen_at,
      fallback: m.fallback,
    });
  for (const o of await loadOverrides(tx)) entryOf(o.namespace, o.key).override[o.language as Language] = o.value;

  const needle = filter.search?.trim().toLowerCase() ?? '';
  let items = [...entries.values()].filter((e) => {
    if (filter.namespace && e.namespace !== filter.namespace) return false;
    if (filter.missingOnly && !(e.reported.length > 0 || e.en === null || e.fr === null)) return false;
    if (!needle) return true;
    return [e.key, `${e.namespace}:${e.key}`, e.en ?? '', e.fr ?? '', e.override.en ?? '', e.override.fr ?? ''].some(
      (text) => text.toLowerCase().includes(needle),
    );
  });
  const lastSeen = (e: CatalogueEntry) => Math.max(0, ...e.reported.map((r) => r.lastSeenAt.getTime()));
  items = items.sort(
    (a, b) =>
      lastSeen(b) - lastSeen(a) ||
      (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  const total = items.length;
  const pages = Math.max(1, Math.ceil(total / filter.pageSize));
  const page = Math.min(Math.max(1, filter.page), pages);
  return { items: items.slice((page - 1) * filter.pageSize, page * filter.pageSize), total, page, pages };
}

export type OverrideJson = { language: string; namespace: string; key: string; value: string; updated_at: string };

/** The tenant's overrides (optionally of one language / namespace), for GET /v1/translation-overrides. */
export async function listOverrides(
  tx: Tx,
  filter: { language?: string; namespace?: string; search?: string } = {},
): Promise<OverrideJson[]> {
  const needle = filter.search?.toLowerCase() ?? '';
  return (await loadOverrides(tx))
    .filter(
      (o) =>
        (!filter.language || o.language === filter.language) &&
        (!filter.namespace || o.namespace === filter.namespace) &&
        (!needle || o.key.toLowerCase().includes(needle) || o.value.toLowerCase().includes(needle)),
    )
    .map((o) => ({
      language: o.language,
      namespace: o.namespace,
      key: o.key,
      value: o.value,
      updated_at: o.updated_at.toISOString(),
    }));
}

// ------------------------------------------------------------------------------------------------
// Commands

const objectIdOf = (i: { language: string; namespace: string; key: string }) => `${i.language}/${i.namespace}/${i.key}`;

async function currentValue(tx: Tx, i: { language: string; namespace: string; key: string }): Promise<string | null> {
  const [row] = await tx.query<Pick<TranslationOverridesRow, 'value'>>(
    'select value from translation_overrides where language = $1 and namespace = $2 and key = $3',
    [i.language, i.namespace, i.key],
  );
  return row?.value ?? null;
}

async function upsert(tx: Tx, actor: Actor, i: OverrideInput): Promise<void> {
  const before = await currentValue(tx, i);
  await tx.query(
    `insert into translation_overrides (tenant_id, language, namespace, key, value) values ($1, $2, $3, $4, $5)
     on conflict (tenant_id, language, namespace, key) do update set value = excluded.value, updated_at = now()`,
    [actor.tenantId, i.language, i.namespace, i.key, i.value],
  );
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'translation_override.set',
    objectType: 'translation_override',
    objectId: objectIdOf(i),
    before: before === null ? null : { value: before },
    after: { value: i.value },
    outcome: 'success',
  });
}

const overrideKeySchema = z.object({
  language: z.string().max(10),
  namespace: z.string().max(60),
  key: z.string().min(1).max(300),
});

export const setOverrideCommand = defineCommand({
  action: 'translation_override.set',
  objectType: 'translation_override',
  permission: need('admin.translations.edit'),
  input: overrideKeySchema.extend({ value: z.string().max(100_000) }),
  async run(tx, actor, input, { language }) {
    const t = await getT(language);
    const problem = checkOverride(t, input as OverrideInput, await reportedSet(tx));
    if (problem) throw new AppError('BAD_REQUEST', problem.message, { field: problem.field });
    await upsert(tx, actor, input as OverrideInput);
    return { language: input.language, namespace: input.namespace, key: input.key, value: input.value };
  },
});

export const removeOverrideCommand = defineCommand({
  action: 'translation_override.remove',
  objectType: 'translation_override',
  permission: need('admin.translations.edit'),
  input: overrideKeySchema,
  async run(tx, actor, input, { language }) {
    const before = await currentValue(tx, input);
    if (before === null) {
      const t = await getT(language);
      throw new AppError('NOT_FOUND', t('platform:translations.errors.noOverride'), { field: 'key' });
    }
    await tx.query('delete from translation_overrides where language = $1 and namespace = $2 and key = $3', [
      input.language,
      input.namespace,
      input.key,
    ]);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'translation_override.remove',
      objectType: 'translation_override',
      objectId: objectIdOf(input),
      before: { value: before },
      after: null,
      outcome: 'success',
    });
    return { removed: true };
  },
});

// ------------------------------------------------------------------------------------------------
// Export and import

export type ImportRow = { row: number; language: string; namespace: string; key: string; value: string };
export type RowError = { row: number; field: string; message: string };
export type ImportFile = { format: 'json' | 'xlsx'; bytes: Uint8Array };

export async function exportOverridesJson(tx: Tx): Promise<Record<string, Record<string, Record<string, string>>>> {
  const out: Record<string, Record<string, Record<string, string>>> = {};
  for (const o of await loadOverrides(tx)) ((out[o.language] ??= {})[o.namespace] ??= {})[o.key] = o.value;
  return out;
}

export const XLSX_HEADER = ['language', 'namespace', 'key', 'value'] as const;

export async function exportOverridesXlsx(tx: Tx): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Translations');
  sheet.addRow([...XLSX_HEADER]).font = { bold: true };
  for (const o of await loadOverrides(tx))
    sheet.addRow([o.language, o.namespace, o.key, o.value].map((v) => neutralise(v)));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

function rowsFromJson(t: TFunction, data: unknown): ImportRow[] {
  if (Array.isArray(data)) {
    return data.map((item, i) => {
      const r = (item && typeof item === 'object' ? item : {}) as Record<string, unknown>;
      const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
      return {
        row: i + 1,
        language: text(r.language),
        namespace: text(r.namespace),
        key: text(r.key),
        value: text(r.value),
      };
    });
  }
  if (!data || typeof data !== 'object')
    throw new AppError('BAD_REQUEST', t('platform:translations.errors.importShape'), { field: 'file' });
  const rows: ImportRow[] = [];
  for (const [language, namespaces] of Object.entries(data as Record<string, unknown>)) {
    if (!namespaces || typeof namespaces !== 'object')
      throw new AppError('BAD_REQUEST', t('platform:translations.errors.importShape'), { field: 'file' });
    for (const [namespace, keys] of Object.entries(namespaces as Record<string, unknown>)) {
      if (!keys || typeof keys !== 'object')
        throw new AppError('BAD_REQUEST', t('platform:translations.errors.importShape'), { field: 'file' });
      // Nested objects are read as dotted keys, so a namespace file's own shape imports too.
      const flat = new Map<string, unknown>();
      const walk = (node: Record<string, unknown>, prefix: string) => {
        for (const [k, v] of Object.entries(node)) {
          const key = prefix ? `${prefix}.${k}` : k;
          if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, key);
          else flat.set(key, v);
        }
      };
      walk(keys as Record<string, unknown>, '');
      for (const [key, value] of flat)
        rows.push({
          row: rows.length + 1,
          language,
          namespace,
          key,
          value: typeof value === 'string' ? value : String(value ?? ''),
        });
    }
  }
  return rows;
}

function cellText(cell: ExcelJS.Cell): string {
  const v = cell.value;
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') {
    // Every cell is text: a formula counts as its text, rich text as its characters, never evaluated.
    if ('formula' in v) return `=${String(v.formula)}`;
    if ('richText' in v) return v.richText.map((r) => r.text).join('');
    if ('text' in v) return String(v.text);
    if (v instanceof Date) return v.toISOString();
    return '';
  }
  return String(v);
}

/** Undoes the export's neutralising quote: a value written as `'=x` reads back as `=x`. */
function unneutralise(text: string): string {
  return /^'[=+\-@\t\r]/.test(text) ? text.slice(1) : text;
}

async function rowsFromXlsx(t: TFunction, bytes: Uint8Array): Promise<ImportRow[]> {
  const zip = inspectZip(bytes, { maxEntries: IMPORT_XLSX_MAX_ENTRIES, maxTotalBytes: IMPORT_XLSX_MAX_INFLATED_BYTES });
  if (!zip.ok) {
    if (zip.reason === 'malformed' || zip.reason === 'method')
      throw new AppError('BAD_REQUEST', t('platform:translations.errors.notXlsx'), { field: 'file' });
    throw new AppError(
      'BAD_REQUEST',
      t('platform:translations.errors.xlsxTooBig', {
        entries: IMPORT_XLSX_MAX_ENTRIES,
        max: IMPORT_XLSX_MAX_INFLATED_BYTES / 1024 / 1024,
      }),
      { field: 'file' },
    );
  }
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  } catch {
    throw new AppError('BAD_REQUEST', t('platform:translations.errors.notXlsx'), { field: 'file' });
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new AppError('BAD_REQUEST', t('platform:translations.errors.notXlsx'), { field: 'file' });
  const header = XLSX_HEADER.map((_, i) =>
    cellText(sheet.getRow(1).getCell(i + 1))
      .trim()
      .toLowerCase(),
  );
  if (header.join('|') !== XLSX_HEADER.join('|'))
    throw new AppError(
      'BAD_REQUEST',
      t('platform:translations.errors.xlsxHeader', { header: XLSX_HEADER.join(', ') }),
      {
        field: 'file',
      },
    );
  const rows: ImportRow[] = [];
  for (let n = 2; n <= sheet.rowCount; n++) {
    const r = sheet.getRow(n);
    const cells = XLSX_HEADER.map((_, i) => unneutralise(cellText(r.getCell(i + 1))));
    if (cells.every((c) => c === '')) continue;
    rows.push({ row: n, language: cells[0].trim(), namespace: cells[1].trim(), key: cells[2].trim(), value: cells[3] });
  }
  return rows;
}

/** The rows of an uploaded file (JSON or XLSX); a file that is neither is refused as a whole. */
export async function parseImportFile(t: TFunction, file: ImportFile): Promise<ImportRow[]> {
  const limit = file.format === 'json' ? IMPORT_JSON_MAX_BYTES : IMPORT_XLSX_MAX_BYTES;
  if (file.bytes.byteLength > limit)
    throw new AppError('PAYLOAD_TOO_LARGE', t('platform:translations.errors.tooLarge', { max: `${limit / 1024} KB` }), {
      field: 'file',
    });
  if (file.bytes.byteLength === 0)
    throw new AppError('BAD_REQUEST', t('platform:translations.errors.emptyFile'), { field: 'file' });
  let rows: ImportRow[];
  if (file.format === 'json') {
    let data: unknown;
    try {
      data = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(file.bytes));
    } catch {
      throw new AppError('BAD_REQUEST', t('platform:translations.errors.notJson'), { field: 'file' });
    }
    rows = rowsFromJson(t, data);
  } else rows = await rowsFromXlsx(t, file.bytes);
  if (rows.length > IMPORT_MAX_ROWS)
    throw new AppError('BAD_REQUEST', t('platform:translations.errors.tooManyRows', { max: IMPORT_MAX_ROWS }), {
      field: 'file',
    });
  return rows;
}

/** The format of an uploaded file by its first bytes: XLSX is a zip (PK), anything else is read as JSON. */
export function detectFormat(bytes: Uint8Array): 'json' | 'xlsx' {
  return bytes[0] === 0x50 && bytes[1] === 0x4b ? 'xlsx' : 'json';
}

const importRowSchema = z.object({
  row: z.number().int(),
  language: z.string(),
  namespace: z.string(),
  key: z.string(),
  value: z.string(),
});

/**
 * Applies imported rows all or nothing: every row is checked first; any problem refuses the whole
 * import with each row's error (row number, field, message) in `details.rows`.
 */
export const importOverridesCommand = defineCommand({
  action: 'translation_override.import',
  objectType: 'translation_override',
  permission: need('admin.translations.edit'),
  input: z.object({ rows: z.array(importRowSchema).max(IMPORT_MAX_ROWS) }),
  async run(tx, actor, input, { language }) {
    const t = await getT(language);
    if (input.rows.length === 0)
      throw new AppError('BAD_REQUEST', t('platform:translations.errors.emptyFile'), { field: 'file' });
    const reported = await reportedSet(tx);
    const errors: RowError[] = [];
    const seen = new Map<string, number>();
    for (const r of input.rows) {
      const problem = checkOverride(t, { ...r, language: r.language as Language }, reported);
      if (problem) {
        errors.push({ row: r.row, ...problem });
        continue;
      }
      const id = objectIdOf(r);
      const first = seen.get(id);
      if (first !== undefined)
        errors.push({
          row: r.row,
          field: 'key',
          message: t('platform:translations.errors.duplicateRow', { row: first }),
        });
      else seen.set(id, r.row);
    }
    if (errors.length) {
      throw new AppError('BAD_REQUEST', t('platform:translations.errors.importRefused', { count: errors.length }), {
        field: 'file',
        details: { rows: errors.slice(0, 200) },
      });
    }
    for (const r of input.rows) await upsert(tx, actor, { ...r, language: r.language as Language });
    return { imported: input.rows.length };
  },
});
