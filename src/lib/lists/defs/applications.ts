import { APPLICATION_STATUSES } from '#lib/lending/lifecycle/application.ts';
import { defineList } from '../definition.ts';

/**
 * /loans/loan-applications: applications by decision state. "To decide" are the submitted
 * ones waiting for a checker (maker-checker); a row opens the processing loan of the customer profile.
 */
export const applicationsList = defineList({
  name: 'applications',
  // Left joins on primary keys (customer_id and product_id are NOT NULL foreign keys, so every
  // application matches): Postgres drops a left join a query does not use (tab counts).
  from: `loan_applications a
    left join customers c on c.tenant_id = a.tenant_id and c.id = a.customer_id
    left join loan_products p on p.tenant_id = a.tenant_id and p.id = a.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id
    left join users u on u.tenant_id = a.tenant_id and u.id::text = a.submitted_by`,
  pageFrom: `loan_applications a
    join customers c on c.tenant_id = a.tenant_id and c.id = a.customer_id
    left join loan_products p on p.tenant_id = a.tenant_id and p.id = a.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id
    left join users u on u.tenant_id = a.tenant_id and u.id::text = a.submitted_by`,
  countFrom: { sql: 'loan_applications a', aliases: ['a'] },
  idSql: 'a.id',
  hrefSql: `'/loans/customer/profile/' || a.customer_id || '/processing-loans/' || a.loan_id`,
  columns: [
    {
      key: 'customer',
      label: 'lists:applications.columns.customer',
      sql: `c.last_name || ' ' || c.first_name`,
      sortSql: `lower(c.last_name || ' ' || c.first_name)`,
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isRequired: true,
    },
    {
      key: 'product',
      isGroupable: true,
      label: 'lists:applications.columns.product',
      sql: 'p.name',
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'status',
      label: 'lists:applications.columns.status',
      sql: 'a.status',
      type: 'enum',
      filter: 'enum',
      options: APPLICATION_STATUSES,
      optionLabelPrefix: 'flows:application.statuses',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'principal',
      label: 'lists:applications.columns.principal',
      sql: 'a.principal',
      currencySql: 'a.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
      filter: 'money-range',
      isDefault: true,
    },
    {
      key: 'number_of_repayments',
      label: 'lists:applications.columns.number_of_repayments',
      sql: 'a.number_of_repayments',
      type: 'number',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'submitted_by',
      label: 'lists:applications.columns.submitted_by',
      sql: `coalesce(u.display_name, a.submitted_by)`,
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'submitted_at',
      label: 'lists:applications.columns.submitted_at',
      sql: 'a.submitted_at',
      type: 'timestamp',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'branch',
      isGroupable: true,
      label: 'lists:applications.columns.branch',
      sql: 'b.name',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
  ],
  defaultSort: { key: 'submitted_at', dir: 'desc' },
  tabs: [
    {
      name: 'to_decide',
      label: 'lists:applications.tabs.to_decide',
      help: 'lists:applications.help.to_decide',
      where: () => `a.status = 'submitted'`,
    },
    {
      name: 'approved',
      label: 'lists:applications.tabs.approved',
      help: 'lists:applications.help.approved',
      where: () => `a.status = 'approved'`,
    },
    {
      name: 'closed',
      label: 'lists:applications.tabs.closed',
      help: 'lists:applications.help.closed',
      where: () => `a.status in ('rejected', 'withdrawn')`,
    },
    { name: 'all', label: 'lists:applications.tabs.all', help: 'lists:applications.help.all', where: null },
  ],
  defaultTab: 'to_decide',
  customerIdSql: 'a.customer_id',
  searchColumns: [
    { sql: 'c.last_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.first_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.phone', mode: 'prefix', isOnCustomer: true },
  ],
  // Customized fields (issue 13): a column each for the tenant of the request (../custom-columns.ts).
  customFields: { entity: 'loan_application', sql: 'a.custom_fields' },
  scopeSql: ['a.customer_branch_id', 'a.customer_officer_id'],
});
