import { OFFER_STATUSES } from '#lib/lending/lifecycle/offer.ts';
import { defineList } from '../definition.ts';

/**
 * /loans/offers. An offer is in the scope of its customer's branch, officer and region.
 * Tabs follow the offer lifecycle (src/lib/lending/lifecycle/offer.ts): "total active" is every
 * offer still open to the customer (to propose, pending, requested). The row opens the offer page
 * of the customer profile.
 */
export const offersList = defineList({
  name: 'offers',
  // Left joins on primary keys (offers.customer_id and product_id are NOT NULL foreign keys, so
  // every offer matches): Postgres drops a left join a query does not use, so tab counts read offers alone.
  from: `offers o
    left join customers c on c.tenant_id = o.tenant_id and c.id = o.customer_id
    left join loan_products p on p.tenant_id = o.tenant_id and p.id = o.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id
    left join strategies s on s.tenant_id = o.tenant_id and s.id = o.strategy_id`,
  pageFrom: `offers o
    join customers c on c.tenant_id = o.tenant_id and c.id = o.customer_id
    left join loan_products p on p.tenant_id = o.tenant_id and p.id = o.product_id
    left join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id
    left join strategies s on s.tenant_id = o.tenant_id and s.id = o.strategy_id`,
  countFrom: { sql: 'offers o', aliases: ['o'] },
  idSql: 'o.id',
  hrefSql: `'/loans/customer/profile/' || o.customer_id || '/offers/' || o.id`,
  columns: [
    {
      key: 'code',
      label: 'lists:offers.columns.code',
      sql: 'o.code',
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isRequired: true,
    },
    {
      key: 'customer',
      label: 'lists:offers.columns.customer',
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
      label: 'lists:offers.columns.product',
      sql: 'p.name',
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isDefault: true,
    },
    {
      key: 'status',
      label: 'lists:offers.columns.status',
      sql: 'o.status',
      type: 'enum',
      filter: 'enum',
      options: OFFER_STATUSES,
      optionLabelPrefix: 'flows:offer.statuses',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'principal',
      label: 'lists:offers.columns.principal',
      sql: 'o.principal',
      currencySql: 'o.currency',
      type: 'money',
      isSortable: true,
      isNotNull: true,
      filter: 'money-range',
      isDefault: true,
    },
    {
      key: 'number_of_repayments',
      label: 'lists:offers.columns.number_of_repayments',
      sql: 'o.number_of_repayments',
      type: 'number',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
    {
      key: 'expires_on',
      label: 'lists:offers.columns.expires_on',
      sql: 'o.expires_on',
      type: 'date',
      isSortable: true,
      isNotNull: true,
      filter: 'date-range',
      isDefault: true,
    },
    {
      key: 'notify_channel',
      label: 'lists:offers.columns.notify_channel',
      sql: 'o.notify_channel',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'branch',
      isGroupable: true,
      label: 'lists:offers.columns.branch',
      sql: 'b.name',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      // The strategy whose origination made the offer (empty for an offer typed by hand).
      key: 'strategy',
      label: 'strategies:origination.offerStrategy',
      sql: 's.name',
      type: 'text',
      isSortable: true,
      filter: 'text',
    },
    {
      key: 'created_at',
      label: 'lists:offers.columns.created_at',
      sql: 'o.created_at',
      type: 'timestamp',
      isSortable: true,
      isNotNull: true,
      isDefault: true,
    },
  ],
  defaultSort: { key: 'created_at', dir: 'desc' },
  tabs: [
    {
      name: 'total_active',
      label: 'lists:offers.tabs.total_active',
      help: 'lists:offers.help.total_active',
      where: () => `o.status in ('to_propose', 'pending', 'requested')`,
    },
    {
      name: 'to_propose',
      label: 'lists:offers.tabs.to_propose',
      help: 'lists:offers.help.to_propose',
      where: () => `o.status = 'to_propose'`,
    },
    {
      name: 'pending',
      label: 'lists:offers.tabs.pending',
      help: 'lists:offers.help.pending',
      where: () => `o.status = 'pending'`,
    },
    {
      name: 'disbursed',
      label: 'lists:offers.tabs.disbursed',
      help: 'lists:offers.help.disbursed',
      where: () => `o.status = 'disbursed'`,
    },
  ],
  defaultTab: 'total_active',
  customerIdSql: 'o.customer_id',
  searchColumns: [
    { sql: 'o.code', mode: 'code-prefix' },
    { sql: 'c.last_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.first_name', mode: 'contains', isOnCustomer: true },
    { sql: 'c.phone', mode: 'prefix', isOnCustomer: true },
  ],
  scopeSql: ['o.customer_branch_id', 'o.customer_officer_id'],
});
