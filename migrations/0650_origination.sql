-- 0650 origination (issue 12): why a customer got no offer, so a refusal is recorded as a decision
-- once per customer, strategy version and reason (not every day), and the overrides forced per customer.
-- Why: the daily origination evaluates every eligible customer; storing each day's identical refusal
-- as a decision would grow the decisions table by the customer count every day for nothing new.

-- offerFor's reason (approved, model_reject, risk_class, segment, limit_below_minimum…), with the
-- first fired rule of the model when there is one ('model_reject:late').
alter table strategy_originations add column reason text not null default '' check (length(reason) <= 200);
create index strategy_originations_refusals on strategy_originations (tenant_id, strategy_id, customer_id, strategy_version, reason)
  where decision_id is not null and outcome = 'refused';
create index offers_open_by_strategy on offers (tenant_id, strategy_id, customer_id)
  where strategy_id is not null and status in ('to_propose', 'pending', 'requested');
