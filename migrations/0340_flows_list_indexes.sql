-- 0340 loans workspace flows: indexes for the offers and loan-applications lists (brief G).
-- Why: /loans/offers pages its tabs (by status) newest first, and /loans/loan-applications pages its
-- tabs (by status) newest submitted first; with these the first page is an index range scan in
-- (status, created_at | submitted_at, id) order instead of a sort of every matching row. The keyset
-- tie-breaker (id) is in the index so a cursor seeks directly.
create index offers_list_status_created on offers (tenant_id, status, created_at desc, id desc);
create index offers_list_created on offers (tenant_id, created_at desc, id desc);
create index loan_applications_list_submitted on loan_applications (tenant_id, submitted_at desc, id desc);
