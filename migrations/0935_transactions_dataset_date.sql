-- 0935 the transactions dataset of analytics queries (src/lib/analytics/transactions-dataset.ts) is
-- sorted by date, newest first, and usually filtered by type or scope. Without an index in date order
-- Postgres read and sorted every transaction of the tenant for each page (5 s on 360,000 transactions);
-- with it a page walks the index backwards and stops after its rows (25 ms), keyset cursors included.
create index if not exists loan_transactions_date on loan_transactions (tenant_id, transaction_date, id);
