-- 1100 charges: recurring overdue penalties.
-- Why: issue 17 (charges). A product's overdue penalty may recur (Fineract feeFrequency/feeInterval):
-- the daily close then charges one installment the same penalty several times, one row per
-- occurrence (1 for the first). Existing rows are occurrence 1, so nothing already charged is charged
-- again. Fee and penalty definitions themselves stay in loan_products.fees / penalties (jsonb, 0101).

alter table close_penalties add column occurrence integer not null default 1 check (occurrence >= 1);
alter table close_penalties drop constraint close_penalties_pkey;
alter table close_penalties add primary key (tenant_id, loan_id, installment_number, penalty_code, occurrence);

-- Fees due at disbursement are collected out of the disbursed funds (Fineract "repayment at
-- disbursement"): a transaction of their own beside the DISBURSEMENT, Dr FUND_SOURCE / Cr FEE_INCOME.
alter type loan_transaction_type add value if not exists 'REPAYMENT_AT_DISBURSEMENT';
