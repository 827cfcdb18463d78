import { COLLATERAL_TYPES } from '#lib/customer-analytics/collaterals.ts';
import { defineList } from '../definition.ts';

/**
 * /loans/collaterals: every collateral of the customers in the caller's scope. A
 * collateral is in the scope of its customer's branch, officer and region. "Securing" = linked to
 * at least one active loan. Linked loans, the principal still outstanding on the active loans it
 * secures and the loan-to-value (that principal over the collateral's value, in percent) are the
 * same figures as the collateral page (src/lib/customer-analytics/collaterals.ts). The row opens the
 * collateral page.
 */
const SECURED_PRINCIPAL = `(select coalesce(sum(i.principal_due - i.principal_paid - i.principal_written_off), 0)
    from loan_collaterals lc
    join loans l on l.tenant_id = lc.tenant_id and l.id = lc.loan_id and l.status = 'ACTIVE'
    join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
   where lc.tenant_id = k.tenant_id and lc.collateral_id = k.id)::int8`;
const LINKED_LOANS = `(select count(*)::int from loan_collaterals lc where lc.tenant_id = k.tenant_id and lc.collateral_id = k.id)`;

export const collateralsList = defineList({
  name: 'collaterals',
  // Left joins on primary keys (collaterals.customer_id is a NOT NULL foreign key, so every row
  // matches): Postgres drops a left join a query does not use.
  from: `collaterals k
    left join customers c on c.tenant_id = k.tenant_id and c.id = k.customer_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id`,
  pageFrom: `collaterals k
    join customers c on c.tenant_id = k.tenant_id and c.id = k.customer_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id`,
  // lc and l: the aliases of the "securing" tab's own subquery.
  countFrom: { sql: 'collaterals k', aliases: ['k', 'lc', 'l'] },
  idSql: 'k.id',
  hrefSql: `'/loans/collaterals/' || k.id`,
  columns: [
    {
      key: 'type',
      label: 'lists:collaterals.columns.type',
      sql: 'k.type',
      type: 'enum',
      filter: 'enum',
      options: COLLATERAL_TYPES,
      optionLabelPrefix: 'profile:collaterals.types',
      isSortable: true,
      isNotNull: true,
      isRequired: true,
    },
    {
      key: 'customer',
      label: 'lists:collaterals.columns.customer',
      sql: `c.last_name || ' ' || c.first_name`,
      sortSql: `lower(c.last_name || ' ' || c.first_name)`,
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'description',
      label: 'lists:collaterals.columns.description',
      sql: 'k.description',
      type: 'text',
      filter: 'text',
    },
    {
      key: 'value',
      label: 'lists:collaterals.columns.value',
      sql: 'k.value',
      currencySql: 'k.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
      filter: 'money-range',
      isDefault: true,
    },
    {
      key: 'valuation_date',
      label: 'lists:collaterals.columns.valuation_date',
      sql: 'k.valuation_date',
      type: 'date',
      isSortable: true,
      isNotNull: true,
      filter: 'date-range',
      isDefault: true,
    },
    {
      key: 'linked_loans',
      label: 'lists:collaterals.columns.linked_loans',
      sql: LINKED_LOANS,
      type: 'number',
      isSortable: true,
      isNotNull: true,
      filter: 'number-range',
      isDefault: true,
    },
    {
      key: 'secured_principal',
      label: 'lists:collaterals.columns.secured_principal',
      sql: SECURED_PRINCIPAL,
      currencySql: 'k.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
    },
    {
      key: 'ltv',
      label: 'lists:collaterals.columns.ltv',
      sql: `case when k.value > 0 then round(${SECURED_PRINCIPAL} * 100.0 / k.value, 1) end`,
      type: 'number',
      isSortable: true,
      filter: 'number-range',
      isDefault: true,
    },
    {
      key: 'branch',
      isGroupable: true,
      label: 'lists:collaterals.columns.branch',
      sql: 'b.name',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'created_at',
      label: 'lists:collaterals.columns.created_at',
      sql: 'k.created_at',
      type: 'timestamp',
      isSortable: true,
      isNotNull: true,
    },
  ],
  defaultSort: { key: 'created_at', dir: 'desc' },
  tabs: [
    { name: 'all', label: 'lists:collaterals.tabs.all', help: 'lists:collaterals.help.all', where: null },
    {
      name: 'securing',
      label: 'lists:collaterals.tabs.securing',
      help: 'lists:collaterals.help.securing',
      where:
        () => `exists (select 1 from loan_collaterals lc join loans l on l.tenant_id = lc.tenant_id and l.id = lc.loan_id
        where lc.tenant_id = k.tenant_id and lc.collateral_id = k.id and l.status = 'ACTIVE')`,
    },
  ],
  defaultTab: 'all',
  customerIdSql: 'k.customer_id',
  searchColumns: [
    { sql: 'c.last_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.first_name', mode: 'contains', isOnCustomer: true },
    { sql: 'k.description', mode: 'contains' },
    { sql: 'c.phone', mode: 'prefix', isOnCustomer: true },
  ],
  // Customized fields (issue 13): a column each for the tenant of the request (../custom-columns.ts).
  customFields: { entity: 'collateral', sql: 'k.custom_fields' },
  scopeSql: ['k.customer_branch_id', 'k.customer_officer_id'],
});
