-- 0360 offers.notify_form: every value of the tenant's notification form (notify_customer_modal_config.form)
-- as submitted, so a tenant form with fields or options beyond the default Channel / Client_Feedback /
-- Comment columns keeps what the officer recorded. Only visible fields with a value are stored.
alter table offers add column notify_form jsonb;
