import type { Tx } from '../db/index.ts';
import { CHOICE_WIDGETS, textOf, type FormDocument } from '../forms/document.ts';
import { customFieldNames, customFieldsOf } from '../forms/custom-fields.ts';
import type { ColumnDef, ListDef, SearchColumn } from './definition.ts';

/**
 * Customized fields as list columns (issue 13). A list whose definition names its rows'
 * `custom_fields` gets, for the tenant of the request, one column per field of the entity's form:
 * choosable in the column picker and in custom views, sortable, filterable, exported with its label
 * (in the viewer's language). The search also matches the rows' customized text values when the
 * tenant has text fields: customers through app_find_customers (migration 0720, indexed), the other
 * lists row by row like their other "contains" columns.
 *
 * Column keys are `cf_<field>` lower-cased with '-' as '_' (a list key is [a-z][a-z0-9_]*); a key
 * that would repeat one already taken gets a numeric suffix. SQL names the field as a literal: a
 * field name is letters, digits, '_' and '-' (FIELD_NAME), checked again here.
 */
const SAFE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const MONEY = `'^\\d{1,13}(\\.\\d{1,2})?$'`;
const DATE = `'^\\d{4}-\\d{2}-\\d{2}$'`;

/** The column key of a customized field. */
export function customColumnKey(name: string, taken: ReadonlySet<string>): string {
  const base = `cf_${name.toLowerCase().replace(/-/g, '_')}`;
  let key = base;
  for (let i = 2; taken.has(key); i++) key = `${base}_${i}`;
  return key;
}

function columnFor(doc: FormDocument, name: string, source: string, key: string, language: string): ColumnDef {
  const ui = doc.ui.fields[name]!;
  const schema = doc.schema.properties[name]!;
  const value = `(${source}->>'${name}')`;
  const typed = `jsonb_typeof(${source}->'${name}')`;
  const base = { key, label: `customfields:column`, labelText: textOf(ui.label, language) || name, isSortable: true };
  if (CHOICE_WIDGETS.includes(ui.widget) && ui.options?.length) {
    return {
      ...base,
      sql: value,
      type: 'enum',
      filter: 'enum',
      options: ui.options.map((o) => o.value),
      optionLabels: Object.fromEntries(ui.options.map((o) => [o.value, textOf(o.label, language)])),
    };
  }
  if (schema.type === 'boolean')
    return {
      ...base,
      sql: `case when ${typed} = 'boolean' then ${value}::boolean end`,
      type: 'boolean',
      filter: 'boolean',
    };
  if (schema.type === 'number' || schema.type === 'integer')
    return {
      ...base,
      sql: `case when ${typed} = 'number' then ${value}::numeric end`,
      type: 'number',
      filter: 'number-range',
    };
  if (ui.widget === 'money')
    return {
      ...base,
      sql: `case when ${value} ~ ${MONEY} then ${value}::numeric end`,
      type: 'number',
      filter: 'number-range',
    };
  if (ui.widget === 'date')
    return {
      ...base,
      sql: `case when ${value} ~ ${DATE} then ${value} end`,
      type: 'date',
      filter: 'date-range',
    };
  return { ...base, sql: value, type: 'text', filter: 'text' };
}

/**
 * The list for the tenant of `tx`: the registry's definition plus its customized-field columns and
 * search (the same object when the list has none or the tenant defined none). `language` picks the
 * headers' and options' texts.
 */
export async function withCustomColumns<T extends ListDef>(tx: Tx, def: T, language: string): Promise<T> {
  if (!def.customFields) return def;
  const doc = await customFieldsOf(tx, def.customFields.entity);
  if (!doc) return def;
  const taken = new Set(def.columns.map((c) => c.key));
  const columns: ColumnDef[] = [];
  for (const name of customFieldNames(doc)) {
    if (!SAFE_NAME.test(name)) continue;
    const key = customColumnKey(name, taken);
    taken.add(key);
    columns.push(columnFor(doc, name, def.customFields.sql, key, language));
  }
  if (!columns.length) return def;
  const hasText = customFieldNames(doc).some((n) => doc.schema.properties[n]?.type === 'string');
  // Customers' own text values are found with their names (app_find_customers); elsewhere a column.
  const search: SearchColumn[] =
    hasText && def.customFields.entity !== 'customer'
      ? [{ sql: `app_custom_search(${def.customFields.sql})`, mode: 'contains' }]
      : [];
  return { ...def, columns: [...def.columns, ...columns], searchColumns: [...def.searchColumns, ...search] };
}
