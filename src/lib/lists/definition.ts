/**
 * A list definition: everything the generic list machinery needs to page, sort, filter, search,
 * count and export one server-side list. Definitions are data (no Astro, no request): the pages,
 * the JSON API and the export job all read the same one, so a tab means the same rows everywhere.
 */

/** How a column's values are typed, rendered and exported. */
export type ColumnType =
  /** Free text. */
  | 'text'
  /** One of `options`; the label of each option is `<labelKey>.<option>` when `optionLabelPrefix` is set. */
  | 'enum'
  /** A calendar date, 'YYYY-MM-DD'. */
  | 'date'
  /** A moment (timestamptz). */
  | 'timestamp'
  /** Integer minor units (int8) of the currency given by `currencySql`, or the tenant's currency. */
  | 'money'
  /** An integer or decimal count (days past due, term…). */
  | 'number'
  | 'boolean';

/** How a column can be filtered in the URL (`f.<key>=…`). */
export type FilterType =
  /** Case-insensitive "contains". */
  | 'text'
  /** One or more of the column's `options`, comma-separated. */
  | 'enum'
  /** `from..to` ('YYYY-MM-DD'), either side optional. */
  | 'date-range'
  /** `min..max` as decimals in major units, either side optional. */
  | 'money-range'
  /** `min..max` as integers or decimals, either side optional. */
  | 'number-range'
  /** `true` or `false`. */
  | 'boolean';

export type ColumnDef = {
  /** URL and JSON key: lowercase letters, digits and underscores. */
  key: string;
  /** i18n key of the header, e.g. 'lists:customers.columns.name'. */
  label: string;
  /** SQL expression over the list's `from`; written by us, never from input. */
  sql: string;
  type: ColumnType;
  /** Expression to order by when it differs from the shown one (e.g. lower-cased for an index). */
  sortSql?: string;
  /** Whether the user may sort by it. */
  isSortable?: boolean;
  /**
   * True when the expression is never NULL, which lets paging use a keyset (seek) predicate on it
   * instead of an offset. Nullable sorts fall back to offset paging.
   */
  isNotNull?: boolean;
  filter?: FilterType;
  /** Allowed values of an enum column. */
  options?: readonly string[];
  /** i18n key prefix for enum option labels: `${optionLabelPrefix}.${value}`. */
  optionLabelPrefix?: string;
  /** For money columns: SQL giving the row's ISO currency; default the tenant's currency. */
  currencySql?: string;
  /**
   * A text column reports may group rows by (a product, a branch); enum, boolean and date columns
   * always may (src/lib/analytics/aggregate.ts). Free text such as names is not a dimension.
   */
  isGroupable?: boolean;
  /** Shown when the URL does not choose columns. */
  isDefault?: boolean;
  /** Always shown (the column that opens the row); cannot be hidden. */
  isRequired?: boolean;
  /**
   * A customized field's column (issue 13, ./custom-columns.ts): its header and option labels are
   * the tenant's own texts, already in the viewer's language, instead of i18n keys.
   */
  labelText?: string;
  optionLabels?: Readonly<Record<string, string>>;
};

/** Builds parameter placeholders: every value from input goes through here, never into SQL text. */
export type Bind = (value: unknown) => string;

/** What a tab predicate may depend on besides the row itself. */
export type ListContext = {
  /** The tenant's business date ('YYYY-MM-DD'): "today" for overdue, this month… */
  businessDate: string;
  bind: Bind;
};

export type TabDef = {
  name: string;
  /** i18n key of the tab title. */
  label: string;
  /** i18n key of the help text that gives the tab's exact definition. */
  help: string;
  /** SQL predicate over the list's `from`; null means every row. */
  where: ((ctx: ListContext) => string) | null;
};

export type SearchColumn = {
  sql: string;
  /**
   * 'prefix' can use a btree index (codes, phones, ids); 'contains' matches anywhere (names);
   * 'code-prefix' is for codes the system writes in upper case (account numbers, offer codes): the
   * term, upper-cased, becomes a key range, which unlike LIKE an index serves under the
   * row-level-security policy (LIKE and lower() are not leakproof, so Postgres must test the policy
   * first and then every row).
   */
  mode: 'prefix' | 'contains' | 'exact' | 'code-prefix';
  /**
   * A column of the row's customer (alias `c`) in a list that sets `customerIdSql`: a search term is
   * then looked up among the customers first, by name, phone, national id, external id and e-mail
   * (the database's app_find_customers, using their indexes), see query.ts.
   */
  isOnCustomer?: boolean;
};

export type ListDef = {
  /** Registry name, also the custom views' `list_name`: 'customers', 'loans'… */
  name: string;
  /** FROM clause (tables and joins), written by us. */
  from: string;
  /**
   * FROM clause of pages and exports when it should differ from the counts': the same rows, with
   * inner joins where a foreign key guarantees the match. Counts keep left joins, which Postgres
   * drops when unused; a page needs the inner join so the planner may read rows in the joined
   * table's order (sorted by customer name: walk the name index and stop after a page).
   */
  pageFrom?: string;
  /**
   * FROM clause of counts when their conditions name no other table: the row table alone (with
   * `aliases`, the aliases it defines). Postgres drops an unused left join, but still plans as if
   * its join columns were read, which rules out an index-only count ("1,000+" in 0.4 ms instead of a
   * 60 ms table scan on a 100,000-customer tenant).
   */
  countFrom?: { sql: string; aliases: readonly string[] };
  /**
   * Plans a scoped viewer's capped counts should avoid (query.ts, withPlansAvoided): table scans for
   * lists of active loans, whose rows sit at the end of the table; merge joins where Postgres would
   * walk the loans' primary key to meet a few matching rows (payments).
   */
  countsAvoid?: { tableScans?: boolean; mergeJoins?: boolean };
  /** Row identity: unique and not null; the tie-breaker of every sort and the key of the row link. */
  idSql: string;
  /** Extra fixed predicate (e.g. a kind of row); null for none. */
  baseWhere?: string | null;
  columns: readonly ColumnDef[];
  defaultSort: { key: string; dir: 'asc' | 'desc' };
  tabs: readonly TabDef[];
  defaultTab: string;
  searchColumns: readonly SearchColumn[];
  /** SQL giving the id of the row's customer (alias `c` in `from`), for search columns marked `isOnCustomer`. */
  customerIdSql?: string;
  /**
   * SQL expressions giving the hierarchy nodes a row belongs to (its officer, branch, region node
   * ids). A row is in a user's scope when any of them is among the user's allowed nodes.
   */
  scopeSql: readonly string[];
  /** SQL giving the path of a row's page (e.g. the customer profile); null for rows without one. */
  hrefSql?: string;
  /**
   * The row's customized fields (issue 13): which entity's form, and the SQL of its `custom_fields`
   * column. ./custom-columns.ts adds a column per field for the tenant of the request.
   */
  customFields?: { entity: 'customer' | 'loan_application' | 'collateral'; sql: string };
};

const KEY = /^[a-z][a-z0-9_]*$/;

/**
 * Checks a definition once, when it is declared, so a typo in a key or default fails at start-up
 * and in tests rather than on a user's request.
 */
export function defineList<const T extends ListDef>(def: T): T {
  const keys = new Set<string>();
  for (const column of def.columns) {
    if (!KEY.test(column.key)) throw new Error(`list ${def.name}: bad column key ${column.key}`);
    if (keys.has(column.key)) throw new Error(`list ${def.name}: duplicate column ${column.key}`);
    keys.add(column.key);
    if (column.filter === 'enum' && !column.options?.length)
      throw new Error(`list ${def.name}: enum column ${column.key} needs options`);
  }
  const sortColumn = def.columns.find((c) => c.key === def.defaultSort.key);
  if (!sortColumn?.isSortable)
    throw new Error(`list ${def.name}: default sort ${def.defaultSort.key} is not a sortable column`);
  if (!def.tabs.some((t) => t.name === def.defaultTab))
    throw new Error(`list ${def.name}: default tab ${def.defaultTab} is not a tab`);
  if (!def.columns.some((c) => c.isDefault || c.isRequired)) throw new Error(`list ${def.name}: no default column`);
  return def;
}

/** A column's header in the viewer's language. */
export function columnLabel(t: (key: string) => string, column: ColumnDef): string {
  return column.labelText ?? t(column.label);
}

/** An enum value's label in the viewer's language. */
export function optionLabel(t: (key: string) => string, column: ColumnDef, value: string): string {
  if (column.optionLabels) return column.optionLabels[value] ?? value;
  return column.optionLabelPrefix ? t(`${column.optionLabelPrefix}.${value}`) : value;
}

export function columnOf(def: ListDef, key: string): ColumnDef | undefined {
  return def.columns.find((c) => c.key === key);
}

/** The columns shown for a chosen key list: required ones first, then the chosen in their order. */
export function visibleColumns(def: ListDef, keys: readonly string[] | null): ColumnDef[] {
  const chosen = keys?.length ? keys : def.columns.filter((c) => c.isDefault || c.isRequired).map((c) => c.key);
  const out: ColumnDef[] = def.columns.filter((c) => c.isRequired);
  for (const key of chosen) {
    const column = columnOf(def, key);
    if (column && !out.includes(column)) out.push(column);
  }
  return out;
}
