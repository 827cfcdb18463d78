import { defineList } from '../definition.ts';

/**
 * /loans/payments: the installments of active loans with something still to pay.
 * "Late" = due before the tenant's business date; "expected" = due on or after it. The date range
 * is the due-date filter (f.due_date=from..to). Outstanding is the lending engine's sum (due − paid −
 * waived − written off); a row opens the loan's repay page, to record a payment from the row.
 */
const OUTSTANDING = `(i.principal_due + i.interest_due + i.fee_due + i.penalty_due
  - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
  - i.interest_waived - i.fee_waived - i.penalty_waived
  - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off)`;
const BUSINESS_DATE = `(select t.business_date from tenants t where t.id = app_tenant())`;

export const paymentsList = defineList({
  name: 'payments',
  // Left joins on primary keys for customers and products (loans.customer_id and product_id are
  // NOT NULL foreign keys, so every row matches): Postgres drops a left join whose columns a query
  // does not use, so the tab counts read installments and loans only.
  from: `loan_installments i
    join loans l on l.tenant_id = i.tenant_id and l.id = i.loan_id
    left join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id
    left join loan_products p on p.tenant_id = l.tenant_id and p.id = l.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id`,
  pageFrom: `loan_installments i
    join loans l on l.tenant_id = i.tenant_id and l.id = i.loan_id
    join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id
    left join loan_products p on p.tenant_id = l.tenant_id and p.id = l.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id`,
  countFrom: {
    sql: 'loan_installments i join loans l on l.tenant_id = i.tenant_id and l.id = i.loan_id',
    aliases: ['i', 'l'],
  },
  countsAvoid: { tableScans: true, mergeJoins: true },
  idSql: 'i.id',
  baseWhere: `l.status = 'ACTIVE' and i.obligations_met_on is null and ${OUTSTANDING} > 0`,
  hrefSql: `'/loans/customer/profile/' || l.customer_id || '/loans/' || l.id || '/repay'`,
  columns: [
    {
      key: 'account_no',
      label: 'lists:payments.columns.account_no',
      sql: 'l.account_no',
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isRequired: true,
    },
    {
      key: 'customer',
      label: 'lists:payments.columns.customer',
      sql: `c.last_name || ' ' || c.first_name`,
      sortSql: `lower(c.last_name || ' ' || c.first_name)`,
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'installment',
      label: 'lists:payments.columns.installment',
      sql: 'i.number',
      type: 'number',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'due_date',
      label: 'lists:payments.columns.due_date',
      sql: 'i.due_date',
      type: 'date',
      isSortable: true,
      isNotNull: true,
      filter: 'date-range',
      isDefault: true,
    },
    {
      key: 'amount_due',
      label: 'lists:payments.columns.amount_due',
      sql: `${OUTSTANDING}`,
      currencySql: 'l.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'days_late',
      label: 'lists:payments.columns.days_late',
      sql: `greatest(${BUSINESS_DATE} - i.due_date, 0)`,
      type: 'number',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'phone',
      label: 'lists:payments.columns.phone',
      sql: 'c.phone',
      type: 'text',
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'product',
      isGroupable: true,
      label: 'lists:payments.columns.product',
      sql: 'p.name',
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
    },
    {
      key: 'branch',
      isGroupable: true,
      label: 'lists:payments.columns.branch',
      sql: 'b.name',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
  ],
  defaultSort: { key: 'due_date', dir: 'asc' },
  tabs: [
    {
      name: 'late',
      label: 'lists:payments.tabs.late',
      help: 'lists:payments.help.late',
      where: ({ businessDate, bind }) => `i.due_date < ${bind(businessDate)}::date`,
    },
    {
      name: 'expected',
      label: 'lists:payments.tabs.expected',
      help: 'lists:payments.help.expected',
      where: ({ businessDate, bind }) => `i.due_date >= ${bind(businessDate)}::date`,
    },
  ],
  defaultTab: 'late',
  customerIdSql: 'l.customer_id',
  searchColumns: [
    { sql: 'l.account_no', mode: 'code-prefix' },
    { sql: 'c.last_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.first_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.phone', mode: 'prefix', isOnCustomer: true },
  ],
  scopeSql: ['l.customer_branch_id', 'l.customer_officer_id', 'l.officer_id'],
});
