import { LOAN_TRANSACTION_TYPES } from '../lending/transaction-types.ts';
import { defineList } from '../lists/definition.ts';

/**
 * Loan transactions as a dataset of the analytics queries (no list page of its own): one row per
 * posted transaction with its portions. A transaction is in the scope of its loan (the loan's copies
 * of the customer's branch and officer, and the loan's officer), like the loans list. "Reversed" is
 * true when a REVERSAL row names it (the unique index loan_transactions_reverses finds it).
 */
export const transactionsDataset = defineList({
  name: 'transactions',
  from: `loan_transactions x
    join loans l on l.tenant_id = x.tenant_id and l.id = x.loan_id
    left join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id
    left join loan_products p on p.tenant_id = l.tenant_id and p.id = l.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id`,
  pageFrom: `loan_transactions x
    join loans l on l.tenant_id = x.tenant_id and l.id = x.loan_id
    join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id
    left join loan_products p on p.tenant_id = l.tenant_id and p.id = l.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id`,
  countFrom: {
    sql: 'loan_transactions x join loans l on l.tenant_id = x.tenant_id and l.id = x.loan_id',
    aliases: ['x', 'l'],
  },
  idSql: 'x.id',
  hrefSql: `'/loans/customer/profile/' || l.customer_id || '/loans/' || l.id`,
  columns: [
    {
      key: 'transaction_date',
      label: 'queries:transactions.columns.transaction_date',
      sql: 'x.transaction_date',
      type: 'date',
      isSortable: true,
      isNotNull: true,
      filter: 'date-range',
      isRequired: true,
    },
    {
      key: 'type',
      label: 'queries:transactions.columns.type',
      sql: 'x.type',
      type: 'enum',
      filter: 'enum',
      options: Object.keys(LOAN_TRANSACTION_TYPES),
      optionLabelPrefix: 'queries:transactions.types',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'account_no',
      label: 'queries:transactions.columns.account_no',
      sql: 'l.account_no',
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'customer',
      label: 'queries:transactions.columns.customer',
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
      isGroupable: true,
      label: 'queries:transactions.columns.product',
      sql: 'p.name',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'branch',
      isGroupable: true,
      label: 'queries:transactions.columns.branch',
      sql: 'b.name',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'amount',
      label: 'queries:transactions.columns.amount',
      sql: 'x.amount',
      currencySql: 'x.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
      filter: 'money-range',
      isDefault: true,
    },
    {
      key: 'principal_portion',
      label: 'queries:transactions.columns.principal_portion',
      sql: 'x.principal_portion',
      currencySql: 'x.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'interest_portion',
      label: 'queries:transactions.columns.interest_portion',
      sql: 'x.interest_portion',
      currencySql: 'x.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'fee_portion',
      label: 'queries:transactions.columns.fee_portion',
      sql: 'x.fee_portion',
      currencySql: 'x.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
    },
    {
      key: 'penalty_portion',
      label: 'queries:transactions.columns.penalty_portion',
      sql: 'x.penalty_portion',
      currencySql: 'x.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
    },
    {
      key: 'overpayment_portion',
      label: 'queries:transactions.columns.overpayment_portion',
      sql: 'x.overpayment_portion',
      currencySql: 'x.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
    },
    {
      key: 'is_reversed',
      label: 'queries:transactions.columns.is_reversed',
      sql: `exists (select 1 from loan_transactions r where r.tenant_id = x.tenant_id and r.reverses_id = x.id)`,
      type: 'boolean',
      isNotNull: true,
      filter: 'boolean',
      isDefault: true,
    },
    {
      key: 'created_at',
      label: 'queries:transactions.columns.created_at',
      sql: 'x.created_at',
      type: 'timestamp',
      isSortable: true,
      isNotNull: true,
    },
  ],
  defaultSort: { key: 'transaction_date', dir: 'desc' },
  tabs: [{ name: 'all', label: 'queries:tabs.all', help: 'queries:tabs.allHelp', where: null }],
  defaultTab: 'all',
  customerIdSql: 'l.customer_id',
  searchColumns: [
    { sql: 'l.account_no', mode: 'code-prefix' },
    { sql: 'c.last_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.first_name', mode: 'contains', isOnCustomer: true },
  ],
  scopeSql: ['l.customer_branch_id', 'l.customer_officer_id', 'l.officer_id'],
});
