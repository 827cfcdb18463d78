-- 1110 multi-disbursement loans (issue 17, tranches): a product may pay a loan out in several
-- tranches, and a loan records the tranches expected before it is disbursed.
-- Why: Fineract's multi-disbursement ("tranche") products: the approved amount is paid out on
-- several dates; each disbursement after the first recomputes the schedule (src/lib/schedule/tranches.ts)
-- and the principal outstanding never exceeds the approved amount. `max_tranches` is Fineract's
-- maxTrancheCount. A loan's expected tranches (date, amount) are kept in `loan_tranches`, numbered
-- from 1; `disbursed_on` and `transaction_id` are set when a tranche is paid out (the first by the
-- loan's disbursement, the next ones by the "disburse next tranche" command).

alter table loan_products
  add column multi_disbursement boolean not null default false,
  add column max_tranches integer check (max_tranches between 2 and 100),
  add constraint loan_products_tranches_check check (multi_disbursement or max_tranches is null);

create table loan_tranches (
  tenant_id text not null references tenants(id),
  loan_id uuid not null,
  number integer not null check (number between 1 and 100),
  expected_date date not null,
  amount bigint not null check (amount > 0),
  disbursed_on date,
  transaction_id uuid,
  created_by text,
  created_at timestamptz not null default now(),
  primary key (tenant_id, loan_id, number),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id),
  foreign key (tenant_id, transaction_id) references loan_transactions(tenant_id, id),
  check ((disbursed_on is null) = (transaction_id is null))
);
select app_enable_tenant_rls('loan_tranches');
