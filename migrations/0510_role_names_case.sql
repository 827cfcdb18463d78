-- Role names are unique per tenant whatever their case (issue 11, admin roles): "Auditor" and
-- "auditor" would be two lines nobody can tell apart in the role pickers. The role commands check it
-- first to answer with a message on the name field; this index keeps two racing creations honest.
-- The case-sensitive unique (tenant_id, name) of 0001 stays: it is implied by this one.
create unique index roles_tenant_name_ci on roles (tenant_id, lower(name));
