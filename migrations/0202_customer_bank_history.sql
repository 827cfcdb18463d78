-- 0202 customer bank-transaction history and monthly transaction metrics.
-- Why: the portfolio simulator (src/lib/simulator) gives every customer a bank-account history and
-- the metrics derived from it (inflows, outflows, balance), which the customer profile's
-- transaction-metrics page and affordability checks read. Imported bank statements can feed the
-- same tables (source = 'statement').
create table customer_bank_transactions (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  booked_on date not null,
  currency char(3) not null,
  amount bigint not null,                     -- minor units; positive inflow, negative outflow
  balance_after bigint not null,              -- account balance after this transaction
  category text not null,                     -- 'salary', 'sales', 'rent', 'groceries', 'utilities', 'transfer', 'loan_repayment', …
  description text not null default '',
  source text not null default 'simulated' check (source in ('simulated', 'statement', 'api')),
  primary key (tenant_id, id),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id)
);
create index customer_bank_transactions_customer on customer_bank_transactions (tenant_id, customer_id, booked_on);
select app_enable_tenant_rls('customer_bank_transactions');

-- One row per customer and calendar month, computed from customer_bank_transactions.
create table customer_transaction_metrics (
  tenant_id text not null,
  customer_id uuid not null,
  month date not null,                        -- first day of the month
  currency char(3) not null,
  inflow bigint not null,
  outflow bigint not null,                    -- positive amount
  net_flow bigint not null,
  closing_balance bigint not null,
  min_balance bigint not null,
  transaction_count integer not null,
  primary key (tenant_id, customer_id, month),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id)
);
select app_enable_tenant_rls('customer_transaction_metrics');
