import { defineList } from '../definition.ts';

/**
 * /loans/customers. Scope: a customer belongs to its branch node and its officer node. Tabs (help texts in lists.json say the same in words):
 * - all: every customer;
 * - borrower: has at least one ACTIVE loan (disbursed and not yet repaid or written off);
 * - optout: opted out of offers (opt_in_status = opted_out).
 */
export const customersList = defineList({
  name: 'customers',
  from: `customers c
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id
    left join hierarchy_nodes o on o.tenant_id = c.tenant_id and o.id = c.officer_id`,
  countFrom: { sql: 'customers c', aliases: ['c'] },
  idSql: 'c.id',
  hrefSql: `'/loans/customer/profile/' || c.id || '/resume'`,
  columns: [
    // Sorted lower-cased so "de la Tour" sits with "Dupont"; index customers_list_name (0301).
    {
      key: 'name',
      label: 'lists:customers.columns.name',
      sql: `c.last_name || ' ' || c.first_name`,
      sortSql: `lower(c.last_name || ' ' || c.first_name)`,
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isRequired: true,
    },
    {
      key: 'external_id',
      label: 'lists:customers.columns.external_id',
      sql: 'c.external_id',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'phone',
      label: 'lists:customers.columns.phone',
      sql: 'c.phone',
      type: 'text',
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'national_id',
      label: 'lists:customers.columns.national_id',
      sql: 'c.national_id',
      type: 'text',
      filter: 'text',
      isDefault: true,
    },
    { key: 'email', label: 'lists:customers.columns.email', sql: 'c.email', type: 'text', filter: 'text' },
    {
      key: 'branch',
      isGroupable: true,
      label: 'lists:customers.columns.branch',
      sql: 'b.name',
      type: 'text',
      isSortable: true,
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'officer',
      label: 'lists:customers.columns.officer',
      sql: 'o.name',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'segment',
      label: 'lists:customers.columns.segment',
      sql: 'c.segment',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'opt_in_status',
      label: 'lists:customers.columns.opt_in_status',
      sql: 'c.opt_in_status',
      type: 'enum',
      filter: 'enum',
      options: ['opted_in', 'opted_out'],
      optionLabelPrefix: 'lists:customers.opt_in_status',
      isDefault: true,
    },
    {
      key: 'risk_class',
      label: 'lists:customers.columns.risk_class',
      sql: 'c.risk_class',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'created_at',
      label: 'lists:customers.columns.created_at',
      sql: 'c.created_at',
      type: 'timestamp',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
  ],
  defaultSort: { key: 'name', dir: 'asc' },
  tabs: [
    { name: 'all', label: 'lists:customers.tabs.all', help: 'lists:customers.help.all', where: null },
    {
      name: 'borrower',
      label: 'lists:customers.tabs.borrower',
      help: 'lists:customers.help.borrower',
      // The customer's count of active loans, kept by the database (migration 0372).
      where: () => `c.active_loans > 0`,
    },
    {
      name: 'optout',
      label: 'lists:customers.tabs.optout',
      help: 'lists:customers.help.optout',
      where: () => `c.opt_in_status = 'opted_out'`,
    },
  ],
  defaultTab: 'all',
  customerIdSql: 'c.id',
  searchColumns: [
    { sql: 'c.last_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.first_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.phone', mode: 'prefix', isOnCustomer: true },
    { sql: 'c.national_id', mode: 'prefix', isOnCustomer: true },
    { sql: 'c.external_id', mode: 'prefix', isOnCustomer: true },
    { sql: 'c.email', mode: 'prefix', isOnCustomer: true },
  ],
  // The platform scope (tenancy/scope.ts) expands regions down to their branches and officers, so
  // the row's own branch and officer nodes are enough.
  // Customized fields (issue 13): a column each for the tenant of the request (../custom-columns.ts).
  customFields: { entity: 'customer', sql: 'c.custom_fields' },
  scopeSql: ['c.branch_id', 'c.officer_id'],
});
