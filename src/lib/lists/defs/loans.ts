import { LOAN_STATUSES } from '#lib/lending/lifecycle/loan.ts';
import { defineList } from '../definition.ts';

/**
 * /loans/loans. A loan is in the scope of its customer's branch and officer, and of its own officer.
 * Outstanding, the oldest unpaid due date and the maturity date are the loan row's own columns, which
 * the database keeps equal to its installments (migration 0370): outstanding = everything due − paid −
 * waived − written off, the same sum the lending engine keeps. The business date is the tenant's (tabs
 * bind it; the computed columns read it from the tenant row, once per query).
 */
const BUSINESS_DATE = `(select t.business_date from tenants t where t.id = app_tenant())`;

export const loansList = defineList({
  name: 'loans',
  // Left joins on primary keys (the foreign keys guarantee a match): Postgres drops a join whose
  // columns a query does not use, so the tab counts of an unrestricted viewer read loans alone.
  from: `loans l
    left join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id
    left join loan_products p on p.tenant_id = l.tenant_id and p.id = l.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id`,
  pageFrom: `loans l
    join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id
    left join loan_products p on p.tenant_id = l.tenant_id and p.id = l.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id`,
  countFrom: { sql: 'loans l', aliases: ['l'] },
  countsAvoid: { tableScans: true },
  idSql: 'l.id',
  hrefSql: `'/loans/customer/profile/' || l.customer_id || '/loans/' || l.id`,
  columns: [
    {
      key: 'account_no',
      label: 'lists:loans.columns.account_no',
      sql: 'l.account_no',
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isRequired: true,
    },
    {
      key: 'customer',
      label: 'lists:loans.columns.customer',
      sql: `c.last_name || ' ' || c.first_name`,
      sortSql: `lower(c.last_name || ' ' || c.first_name)`,
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'product',
      label: 'lists:loans.columns.product',
      sql: 'p.name',
      type: 'text',
      isGroupable: true,
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'status',
      label: 'lists:loans.columns.status',
      sql: 'l.status',
      type: 'enum',
      filter: 'enum',
      options: LOAN_STATUSES,
      optionLabelPrefix: 'lists:loans.status',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'principal',
      label: 'lists:loans.columns.principal',
      sql: 'l.principal',
      currencySql: 'l.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
      filter: 'money-range',
      isDefault: true,
    },
    {
      key: 'outstanding',
      label: 'lists:loans.columns.outstanding',
      currencySql: 'l.currency',
      type: 'money',
      isDefault: true,
      sql: 'l.outstanding',
      isSortable: true,
      isNotNull: true,
    },
    {
      key: 'days_past_due',
      label: 'lists:loans.columns.days_past_due',
      type: 'number',
      isDefault: true,
      sql: `case when l.status = 'ACTIVE' and l.oldest_unpaid_due_date < ${BUSINESS_DATE} then ${BUSINESS_DATE} - l.oldest_unpaid_due_date else 0 end`,
      isSortable: true,
      isNotNull: true,
      // `f.days_past_due=31..`: the overview's PAR30 link (src/lib/boards/overview.ts).
      filter: 'number-range',
    },
    {
      key: 'disbursed_on',
      label: 'lists:loans.columns.disbursed_on',
      sql: 'l.disbursed_on',
      type: 'date',
      isSortable: true,
      filter: 'date-range',
      isDefault: true,
    },
    {
      key: 'maturity_date',
      label: 'lists:loans.columns.maturity_date',
      sql: 'l.maturity_date',
      type: 'date',
      isSortable: true,
    },
    {
      key: 'closed_on',
      label: 'lists:loans.columns.closed_on',
      sql: 'coalesce(l.closed_on, l.written_off_on)',
      type: 'date',
      isSortable: true,
      filter: 'date-range',
    },
    {
      key: 'branch',
      label: 'lists:loans.columns.branch',
      sql: 'b.name',
      type: 'text',
      isGroupable: true,
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'created_at',
      label: 'lists:loans.columns.created_at',
      sql: 'l.created_at',
      type: 'timestamp',
      isSortable: true,
      isNotNull: true,
    },
  ],
  defaultSort: { key: 'created_at', dir: 'desc' },
  tabs: [
    {
      name: 'disbursed_this_month',
      label: 'lists:loans.tabs.disbursed_this_month',
      help: 'lists:loans.help.disbursed_this_month',
      where: ({ businessDate, bind }) =>
        `l.disbursed_on between date_trunc('month', ${bind(businessDate)}::date)::date and ${bind(businessDate)}::date`,
    },
    {
      name: 'overdue',
      label: 'lists:loans.tabs.overdue',
      help: 'lists:loans.help.overdue',
      // Days past due > 0 ⇔ the oldest unpaid due date is before the business date.
      where: ({ businessDate, bind }) =>
        `l.status = 'ACTIVE' and l.oldest_unpaid_due_date < ${bind(businessDate)}::date`,
    },
    {
      name: 'closed_this_month',
      label: 'lists:loans.tabs.closed_this_month',
      help: 'lists:loans.help.closed_this_month',
      where: ({ businessDate, bind }) => `l.status in ('CLOSED_OBLIGATIONS_MET', 'OVERPAID', 'CLOSED_WRITTEN_OFF')
        and l.closed_on between date_trunc('month', ${bind(businessDate)}::date)::date and ${bind(businessDate)}::date`,
    },
    {
      name: 'maturing',
      label: 'lists:loans.tabs.maturing',
      help: 'lists:loans.help.maturing',
      where: ({ businessDate, bind }) =>
        `l.status = 'ACTIVE' and l.maturity_date between ${bind(businessDate)}::date and ${bind(businessDate)}::date + 30`,
    },
    {
      name: 'all_outstanding',
      label: 'lists:loans.tabs.all_outstanding',
      help: 'lists:loans.help.all_outstanding',
      where: () => `l.status = 'ACTIVE'`,
    },
  ],
  defaultTab: 'all_outstanding',
  customerIdSql: 'l.customer_id',
  searchColumns: [
    { sql: 'l.account_no', mode: 'code-prefix' },
    { sql: 'c.last_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.first_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.phone', mode: 'prefix', isOnCustomer: true },
    { sql: 'c.national_id', mode: 'prefix', isOnCustomer: true },
  ],
  // Regions are expanded down to branches and officers by the platform scope (tenancy/scope.ts).
  scopeSql: ['l.customer_branch_id', 'l.customer_officer_id', 'l.officer_id'],
});
