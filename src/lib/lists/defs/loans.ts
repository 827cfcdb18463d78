import { LOAN_STATUSES } from '../../lending/lifecycle/loan.ts';
import { defineList } from '../definition.ts';

/**
 * /loans/loans. A loan is in the scope of its customer's branch and officer, and of its own officer. "Outstanding" of an installment = everything due − paid − waived − written off, the same
 * sum the lending engine keeps. The business date is the tenant's (tabs bind it; the computed
 * columns read it from the tenant row, once per query).
 */
const OUTSTANDING = `(i.principal_due + i.interest_due + i.fee_due + i.penalty_due
  - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
  - i.interest_waived - i.fee_waived - i.penalty_waived
  - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off)`;
const BUSINESS_DATE = `(select t.business_date from tenants t where t.id = app_tenant())`;
const OF_LOAN = 'i.tenant_id = l.tenant_id and i.loan_id = l.id';
const MATURITY = `(select max(i.due_date) from loan_installments i where ${OF_LOAN})`;

/** Days past due at a date: that date − the oldest due date before it with something unpaid; 0 if none. */
export function daysPastDueSql(date: string): string {
  return `coalesce(${date} - (select min(i.due_date) from loan_installments i where ${OF_LOAN} and i.due_date < ${date} and ${OUTSTANDING} > 0), 0)`;
}

export const loansList = defineList({
  name: 'loans',
  // Left joins on primary keys (the foreign keys guarantee a match): Postgres drops a join whose
  // columns a query does not use, so the tab counts of an unrestricted viewer read loans alone.
  from: `loans l
    left join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id
    left join loan_products p on p.tenant_id = l.tenant_id and p.id = l.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id`,
  idSql: 'l.id',
  hrefSql: `'/loans/customer/profile/' || l.customer_id || '/loans/' || l.id`,
  columns: [
    { key: 'account_no', label: 'lists:loans.columns.account_no', sql: 'l.account_no', type: 'text', isSortable: true, isNotNull: true, filter: 'text', isRequired: true },
    { key: 'customer', label: 'lists:loans.columns.customer', sql: `c.last_name || ' ' || c.first_name`, sortSql: `lower(c.last_name || ' ' || c.first_name)`,
      type: 'text', isSortable: true, isNotNull: true, filter: 'text', isDefault: true },
    { key: 'product', label: 'lists:loans.columns.product', sql: 'p.name', type: 'text', isSortable: true, isNotNull: true, filter: 'text', isDefault: true },
    { key: 'status', label: 'lists:loans.columns.status', sql: 'l.status', type: 'enum', filter: 'enum', options: LOAN_STATUSES,
      optionLabelPrefix: 'lists:loans.status', isSortable: true, isNotNull: true, isDefault: true },
    { key: 'principal', label: 'lists:loans.columns.principal', sql: 'l.principal', currencySql: 'l.currency', type: 'money',
      isSortable: true, isNotNull: true, filter: 'money-range', isDefault: true },
    { key: 'outstanding', label: 'lists:loans.columns.outstanding', currencySql: 'l.currency', type: 'money', isDefault: true,
      sql: `(select coalesce(sum(${OUTSTANDING}), 0)::int8 from loan_installments i where ${OF_LOAN})`, isSortable: true, isNotNull: true },
    { key: 'days_past_due', label: 'lists:loans.columns.days_past_due', type: 'number', isDefault: true,
      sql: `case when l.status = 'ACTIVE' then ${daysPastDueSql(BUSINESS_DATE)} else 0 end`, isSortable: true, isNotNull: true },
    { key: 'disbursed_on', label: 'lists:loans.columns.disbursed_on', sql: 'l.disbursed_on', type: 'date', isSortable: true, filter: 'date-range', isDefault: true },
    { key: 'maturity_date', label: 'lists:loans.columns.maturity_date', sql: MATURITY, type: 'date', isSortable: true },
    { key: 'closed_on', label: 'lists:loans.columns.closed_on', sql: 'coalesce(l.closed_on, l.written_off_on)', type: 'date', isSortable: true, filter: 'date-range' },
    { key: 'branch', label: 'lists:loans.columns.branch', sql: 'b.name', type: 'text', isSortable: true, filter: 'text' },
    { key: 'created_at', label: 'lists:loans.columns.created_at', sql: 'l.created_at', type: 'timestamp', isSortable: true, isNotNull: true },
  ],
  defaultSort: { key: 'created_at', dir: 'desc' },
  tabs: [
    { name: 'disbursed_this_month', label: 'lists:loans.tabs.disbursed_this_month', help: 'lists:loans.help.disbursed_this_month',
      where: ({ businessDate, bind }) => `l.disbursed_on between date_trunc('month', ${bind(businessDate)}::date)::date and ${bind(businessDate)}::date` },
    { name: 'overdue', label: 'lists:loans.tabs.overdue', help: 'lists:loans.help.overdue',
      // Uncorrelated INs (hashed once per query) rather than a probe per loan: the tab counts scan
      // every loan of the tenant, so this is the difference between milliseconds and seconds.
      where: ({ businessDate, bind }) => `l.status = 'ACTIVE' and l.id in (select i.loan_id from loan_installments i where i.obligations_met_on is null and i.due_date < ${bind(businessDate)}::date and ${OUTSTANDING} > 0)` },
    { name: 'closed_this_month', label: 'lists:loans.tabs.closed_this_month', help: 'lists:loans.help.closed_this_month',
      where: ({ businessDate, bind }) => `l.status in ('CLOSED_OBLIGATIONS_MET', 'OVERPAID', 'CLOSED_WRITTEN_OFF')
        and coalesce(l.closed_on, l.written_off_on) between date_trunc('month', ${bind(businessDate)}::date)::date and ${bind(businessDate)}::date` },
    { name: 'maturing', label: 'lists:loans.tabs.maturing', help: 'lists:loans.help.maturing',
      // The last due date is in [d, d + 30] ⇔ some installment falls due in it and none after it.
      where: ({ businessDate, bind }) => `l.status = 'ACTIVE'
        and l.id in (select i.loan_id from loan_installments i where i.due_date between ${bind(businessDate)}::date and ${bind(businessDate)}::date + 30
          and not exists (select 1 from loan_installments j where j.tenant_id = i.tenant_id and j.loan_id = i.loan_id and j.due_date > ${bind(businessDate)}::date + 30))` },
    { name: 'all_outstanding', label: 'lists:loans.tabs.all_outstanding', help: 'lists:loans.help.all_outstanding', where: () => `l.status = 'ACTIVE'` },
  ],
  defaultTab: 'all_outstanding',
  searchColumns: [
    { sql: 'l.account_no', mode: 'prefix' },
    { sql: 'c.last_name', mode: 'contains' },
    { sql: 'c.first_name', mode: 'contains' },
    { sql: 'c.phone', mode: 'prefix' },
    { sql: 'c.national_id', mode: 'prefix' },
  ],
  // Regions are expanded down to branches and officers by the platform scope (tenancy/scope.ts).
  scopeSql: ['c.branch_id', 'c.officer_id', 'l.officer_id'],
});
