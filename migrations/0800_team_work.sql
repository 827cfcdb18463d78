-- 0800 team work (issue 14): collection buckets and priorities, the collection state of each overdue
-- loan, collection activities (contacts, promises to pay, call-backs, messages, assignments),
-- collection workflows and their runs, tasks, staff notifications, conversations with customers
-- (messages, attachments, read marks) and message templates.
-- Why: collectors had no worklist and nobody could assign work or talk to a customer from the
-- product. Buckets are the tenant's own (days past due ranges, 1–30, 31–60, 61–90, 90+ by default),
-- separate from the products' delinquency ranges that the engine classifies for Fineract parity.

-- The tenant's collection buckets: a loan is in the bucket whose range holds its days past due.
create table collection_buckets (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null check (length(name) between 1 and 60),
  min_days integer not null check (min_days >= 1),
  max_days integer check (max_days is null or max_days >= min_days), -- null: open-ended
  position integer not null,
  primary key (tenant_id, id),
  unique (tenant_id, position)
);
create unique index collection_buckets_name on collection_buckets (tenant_id, lower(name));
select app_enable_tenant_rls('collection_buckets');

-- How the worklist orders loans: score = amount overdue (major units) × weight_amount
-- + days past due × weight_days + broken promises × weight_broken_promises.
create table collection_priority (
  tenant_id text not null references tenants(id) primary key,
  weight_amount numeric(12, 4) not null default 1 check (weight_amount >= 0),
  weight_days numeric(12, 4) not null default 10 check (weight_days >= 0),
  weight_broken_promises numeric(12, 4) not null default 100 check (weight_broken_promises >= 0),
  revision integer not null default 1,
  updated_at timestamptz not null default now()
);
select app_enable_tenant_rls('collection_priority');

-- One row per loan with something overdue (written by the daily close; removed when cured or closed).
-- The worklist reads this table only (plus the loan's scope copy), so it stays fast at any size.
create table collection_cases (
  tenant_id text not null,
  loan_id uuid not null,
  customer_id uuid not null,
  customer_branch_id uuid,                   -- scope copies, as on loans (0371)
  customer_officer_id uuid,
  bucket_id uuid,                            -- null: overdue but below the first bucket's min
  bucket_since date,                         -- business date the loan entered its bucket
  episode_start date not null,               -- first business date of this overdue episode
  past_due_days integer not null,
  overdue_amount bigint not null,            -- minor units, loan currency
  currency char(3) not null,
  broken_promises integer not null default 0,
  open_promise_id uuid,
  next_callback_at timestamptz,
  last_contact_at timestamptz,
  collector_id uuid,                         -- assigned collector (a user), null: unassigned
  priority numeric(18, 4) not null default 0,
  updated_on date not null,
  primary key (tenant_id, loan_id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id)
);
create index collection_cases_worklist on collection_cases (tenant_id, bucket_id, priority desc);
create index collection_cases_branch on collection_cases (tenant_id, customer_branch_id, priority desc);
create index collection_cases_officer on collection_cases (tenant_id, customer_officer_id, priority desc);
create index collection_cases_collector on collection_cases (tenant_id, collector_id, priority desc);
select app_enable_tenant_rls('collection_cases');

-- Everything done in collection on a loan, in order: the loan's collection timeline.
create table collection_activities (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  loan_id uuid not null,
  customer_id uuid not null,
  kind text not null check (kind in ('contact', 'promise', 'callback', 'message', 'assignment', 'payment',
    'bucket_move', 'promise_kept', 'promise_broken', 'workflow_step', 'reminder', 'note')),
  channel text check (channel in ('phone', 'sms', 'email', 'visit', 'letter', 'other')),
  outcome text check (outcome in ('reached', 'no_answer', 'wrong_number', 'refused', 'voicemail', 'promised', 'paid', 'other')),
  note text not null default '' check (length(note) <= 2000),
  -- promises to pay
  promise_date date,
  promise_amount bigint check (promise_amount is null or promise_amount > 0),
  promise_status text check (promise_status in ('open', 'kept', 'broken', 'cancelled')),
  promise_settled_on date,
  callback_at timestamptz,
  -- links: the workflow step that did it, the task or message it made, the collector assigned
  workflow_id uuid,
  task_id uuid,
  message_id uuid,
  assignee_id uuid,
  details jsonb not null default '{}'::jsonb,
  business_date date not null,
  actor text not null,                       -- user id or 'system:close'
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id)
);
create index collection_activities_loan on collection_activities (tenant_id, loan_id, created_at desc);
create index collection_activities_open_promises on collection_activities (tenant_id, promise_date)
  where kind = 'promise' and promise_status = 'open';
select app_enable_tenant_rls('collection_activities');

-- Collection workflows: per bucket, steps at day offsets from the loan's entry into the bucket.
-- steps: [{ "id": "s1", "offsetDays": 3, "action": "create_task" | "send_template" | "escalate" | "assign",
--           "params": { ... } }]
create table collection_workflows (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null check (length(name) between 1 and 120),
  bucket_id uuid not null,
  enabled boolean not null default true,
  steps jsonb not null default '[]'::jsonb,
  revision integer not null default 1,
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, bucket_id) references collection_buckets(tenant_id, id)
);
create unique index collection_workflows_name on collection_workflows (tenant_id, lower(name));
select app_enable_tenant_rls('collection_workflows');

-- A step ran for a loan: once per (workflow, step, loan, overdue episode), whatever retries happen.
create table collection_workflow_runs (
  tenant_id text not null,
  workflow_id uuid not null,
  step_id text not null,
  loan_id uuid not null,
  episode_start date not null,
  ran_on date not null,
  result jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  primary key (tenant_id, workflow_id, step_id, loan_id, episode_start)
);
select app_enable_tenant_rls('collection_workflow_runs');

-- Tasks: by hand, by collection workflows, by events (application waiting for a decision, offer to propose).
create table tasks (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  title text not null check (length(title) between 1 and 200),
  description text not null default '' check (length(description) <= 4000),
  assignee_user_id uuid,                     -- a user, or
  assignee_node_id uuid,                     -- a team: a branch (hierarchy node); both null: unassigned
  due_date date,
  priority text not null default 'normal' check (priority in ('low', 'normal', 'high', 'urgent')),
  status text not null default 'open' check (status in ('open', 'in_progress', 'done', 'cancelled')),
  customer_id uuid,
  loan_id uuid,
  application_id uuid,
  offer_id uuid,
  customer_branch_id uuid,                   -- scope: the linked customer's branch/officer (copied on write)
  customer_officer_id uuid,
  source text not null default 'manual' check (source in ('manual', 'workflow', 'event')),
  source_key text,                           -- dedupe key of automatic tasks
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz,
  completed_by text,
  due_notified_on date,
  revision integer not null default 1,
  primary key (tenant_id, id)
);
create unique index tasks_source_key on tasks (tenant_id, source_key) where source_key is not null;
create index tasks_assignee on tasks (tenant_id, assignee_user_id, status, due_date);
create index tasks_team on tasks (tenant_id, assignee_node_id, status, due_date);
create index tasks_open_due on tasks (tenant_id, due_date) where status in ('open', 'in_progress');
create index tasks_loan on tasks (tenant_id, loan_id) where loan_id is not null;
create index tasks_customer on tasks (tenant_id, customer_id) where customer_id is not null;
select app_enable_tenant_rls('tasks');

-- Staff notifications (task assigned, task due, @mention, message received); the bell and counts.
create table notifications (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  kind text not null check (kind in ('task_assigned', 'task_due', 'mention', 'message', 'escalation')),
  title text not null,
  link text not null,                        -- a path inside the product
  dedupe_key text,
  read_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade
);
create unique index notifications_dedupe on notifications (tenant_id, user_id, dedupe_key) where dedupe_key is not null;
create index notifications_unread on notifications (tenant_id, user_id, created_at desc) where read_at is null;
select app_enable_tenant_rls('notifications');

-- Message templates with {{variables}}, EN and FR; purpose decides the opt-out rule.
create table message_templates (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  code text not null check (code ~ '^[a-z0-9][a-z0-9_-]{1,62}$'),
  name text not null check (length(name) between 1 and 120),
  channel text not null check (channel in ('email', 'sms')),
  purpose text not null check (purpose in ('service', 'marketing')),
  subject_en text not null default '' check (length(subject_en) <= 200),
  body_en text not null check (length(body_en) between 1 and 5000),
  subject_fr text not null default '' check (length(subject_fr) <= 200),
  body_fr text not null check (length(body_fr) between 1 and 5000),
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, code)
);
select app_enable_tenant_rls('message_templates');

-- A thread with one customer (about one loan or none).
create table conversations (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  loan_id uuid,
  customer_branch_id uuid,                   -- scope copies, filled from the customer on insert
  customer_officer_id uuid,
  subject text not null check (length(subject) between 1 and 200),
  channel text not null check (channel in ('email', 'sms')),
  status text not null default 'open' check (status in ('open', 'closed')),
  -- Inbound e-mail replies find their thread by this token (reply-to address / subject tag).
  reply_token text not null default replace(gen_random_uuid()::text, '-', ''),
  last_message_at timestamptz not null default now(),
  created_by text not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create unique index conversations_reply_token on conversations (reply_token);
create index conversations_customer on conversations (tenant_id, customer_id, last_message_at desc);
create index conversations_loan on conversations (tenant_id, loan_id) where loan_id is not null;
create index conversations_recent on conversations (tenant_id, last_message_at desc);
create index conversations_branch on conversations (tenant_id, customer_branch_id, last_message_at desc);
select app_enable_tenant_rls('conversations');

create table conversation_messages (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  conversation_id uuid not null,
  seq bigint generated always as identity,   -- order and the "since" cursor of live updates
  kind text not null check (kind in ('outbound', 'inbound', 'note')),
  channel text not null check (channel in ('email', 'sms', 'note')),
  purpose text not null default 'service' check (purpose in ('service', 'marketing')),
  subject text not null default '' check (length(subject) <= 200),
  body text not null check (length(body) <= 10000),
  template_id uuid,
  status text not null check (status in ('queued', 'sent', 'failed', 'received', 'note')),
  error text,
  provider_message_id text,                  -- SMS provider / e-mail Message-ID
  author_id uuid,                            -- staff author (outbound, note); null for inbound
  mentions uuid[] not null default '{}',     -- users @mentioned in a note
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, conversation_id) references conversations(tenant_id, id)
);
create index conversation_messages_thread on conversation_messages (tenant_id, conversation_id, seq);
create unique index conversation_messages_provider on conversation_messages (tenant_id, provider_message_id)
  where provider_message_id is not null;
select app_enable_tenant_rls('conversation_messages');

create table conversation_attachments (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  message_id uuid not null,
  file_name text not null check (length(file_name) between 1 and 200),
  content_type text not null,
  size_bytes integer not null check (size_bytes between 0 and 10485760),
  storage_key text not null,                 -- file under DATA_DIR (as customer files)
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, message_id) references conversation_messages(tenant_id, id)
);
create index conversation_attachments_message on conversation_attachments (tenant_id, message_id);
select app_enable_tenant_rls('conversation_attachments');

-- What each staff member has read of each thread (unread counts).
create table conversation_reads (
  tenant_id text not null,
  conversation_id uuid not null,
  user_id uuid not null,
  last_read_seq bigint not null default 0,
  primary key (tenant_id, user_id, conversation_id),
  foreign key (tenant_id, conversation_id) references conversations(tenant_id, id)
);
select app_enable_tenant_rls('conversation_reads');

-- Every tenant starts with the default buckets (1–30, 31–60, 61–90, 90+) and priority weights;
-- administrators edit them afterwards.
create function app_default_collection_setup() returns trigger
language plpgsql as $$
begin
  insert into collection_buckets (tenant_id, name, min_days, max_days, position) values
    (new.id, '1–30', 1, 30, 1), (new.id, '31–60', 31, 60, 2), (new.id, '61–90', 61, 90, 3), (new.id, '90+', 91, null, 4);
  insert into collection_priority (tenant_id) values (new.id);
  return new;
end $$;
create trigger tenants_default_collection_setup after insert on tenants
  for each row execute function app_default_collection_setup();
insert into collection_buckets (tenant_id, name, min_days, max_days, position)
  select t.id, b.name, b.min_days, b.max_days, b.position
    from tenants t cross join (values ('1–30', 1, 30, 1), ('31–60', 31, 60, 2), ('61–90', 61, 90, 3), ('90+', 91, null::int, 4))
      as b(name, min_days, max_days, position);
insert into collection_priority (tenant_id) select id from tenants;
