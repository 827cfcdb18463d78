-- 0351 collaterals list indexes (brief K): /loans/collaterals pages newest first, and its "securing"
-- tab and its linked-loans / secured-principal / LTV columns look up a collateral's loans. Why each:
-- - (tenant_id, created_at desc, id desc): the default sort and its keyset tie-breaker, so the first
--   page reads 25 index entries instead of sorting every collateral;
-- - loan_collaterals' primary key starts (tenant_id, loan_id, …), useless for "the loans of this
--   collateral": (tenant_id, collateral_id, loan_id) answers it with one index probe.
create index collaterals_list_created on collaterals (tenant_id, created_at desc, id desc);
create index loan_collaterals_collateral on loan_collaterals (tenant_id, collateral_id, loan_id);
