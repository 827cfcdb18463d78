// Generated from the migrated schema by `npm run db:types` (src/lib/db/schema-types.ts). Do not edit:
// after adding or changing a migration, run `npm run db:types` and commit the result.
//
// One type per table and view, as the driver returns its rows (int8 → bigint, numeric and date →
// string, timestamptz → Date, json → unknown). Views report every column as nullable.

export type LoanTransactionType = 'DISBURSEMENT' | 'REPAYMENT' | 'WAIVE_INTEREST' | 'WAIVE_CHARGES' | 'WRITE_OFF' | 'ACCRUAL' | 'FEE_APPLIED' | 'PENALTY_APPLIED' | 'REVERSAL' | 'CREDIT_BALANCE_REFUND' | 'REPAYMENT_AT_DISBURSEMENT' | 'REAGE' | 'REAMORTIZE';

/** The `analytics_delinquency_months` table. */
export type AnalyticsDelinquencyMonthsRow = {
  tenant_id: string;
  month_end: string;
  bucket_mins: number[];
  with_moves: boolean;
};

/** The `analytics_delinquency_moves` table. */
export type AnalyticsDelinquencyMovesRow = {
  tenant_id: string;
  month_end: string;
  loan_id: string;
  from_month_end: string;
  from_bucket: number;
  to_bucket: number;
  product_id: string;
  currency: string;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  officer_id: string | null;
  account_no: string;
  principal_start: bigint;
  principal_end: bigint | null;
  pdd_start: number;
  pdd_end: number | null;
  status_end: string;
};

/** The `analytics_delinquency_transitions` table. */
export type AnalyticsDelinquencyTransitionsRow = {
  tenant_id: string;
  month_end: string;
  from_month_end: string;
  from_bucket: number;
  to_bucket: number;
  product_id: string;
  currency: string;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  officer_id: string | null;
  loans: number;
  principal: bigint;
};

/** The `analytics_events` table. */
export type AnalyticsEventsRow = {
  tenant_id: string;
  id: bigint;
  name: string;
  user_id: string | null;
  path: string | null;
  properties: unknown;
  occurred_at: Date;
};

/** The `analytics_loan_vintage` table. */
export type AnalyticsLoanVintageRow = {
  tenant_id: string;
  loan_id: string;
  cohort: string;
  product_id: string;
  currency: string;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  officer_id: string | null;
  disbursed: bigint;
  reached30_on: string | null;
  reached60_on: string | null;
  reached90_on: string | null;
  written_off_on: string | null;
};

/** The `analytics_month_facts` table. */
export type AnalyticsMonthFactsRow = {
  tenant_id: string;
  id: string;
  month_end: string;
  product_id: string;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  officer_id: string | null;
  currency: string;
  dpd_band: number;
  loans: number;
  active_loans: number;
  principal_outstanding: bigint;
  total_outstanding: bigint;
  disbursed_count: number;
  disbursed_amount: bigint;
  written_off_count: number;
  written_off_principal: bigint;
  collected_principal: bigint;
  collected_interest: bigint;
  collected_fees: bigint;
  collected_penalties: bigint;
  collected_total: bigint;
};

/** The `analytics_portfolio_months` table. */
export type AnalyticsPortfolioMonthsRow = {
  tenant_id: string;
  month_end: string;
  currency: string;
  dimension: string;
  key: string | null;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  officer_id: string | null;
  loans: number;
  principal_outstanding: bigint;
};

/** The `analytics_revenue_months` table. */
export type AnalyticsRevenueMonthsRow = {
  tenant_id: string;
  month_end: string;
  currency: string;
  product_id: string | null;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  officer_id: string | null;
  interest: bigint;
  fees: bigint;
  penalties: bigint;
};

/** The `analytics_vintages` table. */
export type AnalyticsVintagesRow = {
  tenant_id: string;
  month_end: string;
  cohort: string;
  product_id: string;
  currency: string;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  officer_id: string | null;
  loans: number;
  disbursed: bigint;
  ever30: bigint;
  ever60: bigint;
  ever90: bigint;
  written_off: bigint;
};

/** The `api_call_counts` table. */
export type ApiCallCountsRow = {
  tenant_id: string;
  month: string;
  calls: bigint;
  updated_at: Date;
};

/** The `api_tokens` table. */
export type ApiTokensRow = {
  tenant_id: string;
  id: string;
  name: string;
  user_id: string;
  token_hash: string;
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
};

/** The `application_form_versions` table. */
export type ApplicationFormVersionsRow = {
  tenant_id: string;
  form_id: string;
  version: number;
  document: unknown;
  product_ids: string[];
  published_by: string;
  published_at: Date;
};

/** The `application_forms` table. */
export type ApplicationFormsRow = {
  tenant_id: string;
  id: string;
  slug: string;
  name: string;
  description: string;
  draft: unknown;
  product_ids: string[];
  published_version: number | null;
  revision: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
};

/** The `audit_log` table. */
export type AuditLogRow = {
  tenant_id: string;
  id: string;
  occurred_at: Date;
  actor_id: string | null;
  actor_kind: string;
  action: string;
  object_type: string;
  object_id: string | null;
  before: unknown;
  after: unknown;
  ip: string | null;
  request_id: string | null;
  outcome: string;
  reason: string | null;
};

/** The `bank_statement_imports` table. */
export type BankStatementImportsRow = {
  tenant_id: string;
  id: string;
  customer_id: string;
  file_id: string;
  currency: string;
  row_count: number;
  first_date: string;
  last_date: string;
  imported_by: string;
  created_at: Date;
};

/** The `close_penalties` table. */
export type ClosePenaltiesRow = {
  tenant_id: string;
  loan_id: string;
  installment_number: number;
  penalty_code: string;
  business_date: string;
  amount: bigint;
  transaction_id: string;
  occurrence: number;
};

/** The `close_runs` table. */
export type CloseRunsRow = {
  tenant_id: string;
  business_date: string;
  new_business_date: string;
  started_at: Date;
  finished_at: Date;
  stats: unknown;
};

/** The `collateral_types` table. */
export type CollateralTypesRow = {
  tenant_id: string;
  code: string;
  name_en: string;
  name_fr: string;
  max_ltv_percent: string;
  haircut_percent: string;
  revaluation_months: number;
  is_active: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
};

/** The `collaterals` table. */
export type CollateralsRow = {
  tenant_id: string;
  id: string;
  customer_id: string;
  type: string;
  description: string;
  currency: string;
  value: bigint;
  valuation_date: string;
  created_at: Date;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  custom_fields: unknown;
};

/** The `collection_activities` table. */
export type CollectionActivitiesRow = {
  tenant_id: string;
  id: string;
  loan_id: string;
  customer_id: string;
  kind: string;
  channel: string | null;
  outcome: string | null;
  note: string;
  promise_date: string | null;
  promise_amount: bigint | null;
  promise_status: string | null;
  promise_settled_on: string | null;
  callback_at: Date | null;
  workflow_id: string | null;
  task_id: string | null;
  message_id: string | null;
  assignee_id: string | null;
  details: unknown;
  business_date: string;
  actor: string;
  created_at: Date;
};

/** The `collection_buckets` table. */
export type CollectionBucketsRow = {
  tenant_id: string;
  id: string;
  name: string;
  min_days: number;
  max_days: number | null;
  position: number;
};

/** The `collection_cases` table. */
export type CollectionCasesRow = {
  tenant_id: string;
  loan_id: string;
  customer_id: string;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  bucket_id: string | null;
  bucket_since: string | null;
  episode_start: string;
  past_due_days: number;
  overdue_amount: bigint;
  currency: string;
  broken_promises: number;
  open_promise_id: string | null;
  next_callback_at: Date | null;
  last_contact_at: Date | null;
  collector_id: string | null;
  priority: string;
  updated_on: string;
};

/** The `collection_priority` table. */
export type CollectionPriorityRow = {
  tenant_id: string;
  weight_amount: string;
  weight_days: string;
  weight_broken_promises: string;
  revision: number;
  updated_at: Date;
};

/** The `collection_workflow_runs` table. */
export type CollectionWorkflowRunsRow = {
  tenant_id: string;
  workflow_id: string;
  step_id: string;
  loan_id: string;
  episode_start: string;
  ran_on: string;
  result: unknown;
  created_at: Date;
};

/** The `collection_workflows` table. */
export type CollectionWorkflowsRow = {
  tenant_id: string;
  id: string;
  name: string;
  bucket_id: string;
  enabled: boolean;
  steps: unknown;
  revision: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
};

/** The `contract_signatories` table. */
export type ContractSignatoriesRow = {
  tenant_id: string;
  id: string;
  contract_id: string;
  position: number;
  name: string;
  title: string;
  signed_on: string | null;
};

/** The `contracts` table. */
export type ContractsRow = {
  tenant_id: string;
  id: string;
  title: string;
  reference: string;
  status: string;
  starts_on: string;
  ends_on: string | null;
  notes: string;
  document_name: string | null;
  document_size: bigint | null;
  document_sha256: string | null;
  document_key: string | null;
  document_version: number;
  document_uploaded_at: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
};

/** The `conversation_attachments` table. */
export type ConversationAttachmentsRow = {
  tenant_id: string;
  id: string;
  message_id: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  storage_key: string;
  created_at: Date;
};

/** The `conversation_messages` table. */
export type ConversationMessagesRow = {
  tenant_id: string;
  id: string;
  conversation_id: string;
  seq: bigint;
  kind: string;
  channel: string;
  purpose: string;
  subject: string;
  body: string;
  template_id: string | null;
  status: string;
  error: string | null;
  provider_message_id: string | null;
  author_id: string | null;
  mentions: string[];
  created_at: Date;
  sent_at: Date | null;
};

/** The `conversation_reads` table. */
export type ConversationReadsRow = {
  tenant_id: string;
  conversation_id: string;
  user_id: string;
  last_read_seq: bigint;
};

/** The `conversations` table. */
export type ConversationsRow = {
  tenant_id: string;
  id: string;
  customer_id: string;
  loan_id: string | null;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  subject: string;
  channel: string;
  status: string;
  reply_token: string;
  last_message_at: Date;
  created_by: string;
  created_at: Date;
};

/** The `custom_field_forms` table. */
export type CustomFieldFormsRow = {
  tenant_id: string;
  entity: string;
  document: unknown;
  revision: number;
  updated_by: string;
  updated_at: Date;
};

/** The `custom_metrics` table. */
export type CustomMetricsRow = {
  tenant_id: string;
  id: string;
  metric_type: string;
  name: string;
  label_en: string;
  label_fr: string;
  dataset: string;
  filters: unknown;
  field: string | null;
  numerator: unknown;
  denominator: unknown;
  format: string;
  show_on_board: boolean;
  revision: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
};

/** The `custom_views` table. */
export type CustomViewsRow = {
  tenant_id: string;
  id: string;
  owner_id: string;
  list_name: string;
  name: string;
  columns: string[];
  filters: unknown;
  sort: string | null;
  tab: string | null;
  is_shared: boolean;
  created_at: Date;
  updated_at: Date;
};

/** The `customer_bank_transactions` table. */
export type CustomerBankTransactionsRow = {
  tenant_id: string;
  id: string;
  customer_id: string;
  booked_on: string;
  currency: string;
  amount: bigint;
  balance_after: bigint;
  category: string;
  description: string;
  source: string;
  import_id: string | null;
};

/** The `customer_eligibility_overrides` table. */
export type CustomerEligibilityOverridesRow = {
  tenant_id: string;
  id: string;
  customer_id: string;
  strategy_id: string | null;
  reason: string;
  created_by: string;
  created_at: Date;
  used_at: Date | null;
  used_offer_id: string | null;
};

/** The `customer_files` table. */
export type CustomerFilesRow = {
  tenant_id: string;
  id: string;
  customer_id: string;
  kind: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  storage_key: string;
  extracted_text: string | null;
  uploaded_by: string;
  created_at: Date;
};

/** The `customer_opt_in_history` table. */
export type CustomerOptInHistoryRow = {
  tenant_id: string;
  id: string;
  customer_id: string;
  status: string;
  reason: string;
  changed_by: string | null;
  changed_at: Date;
};

/** The `customer_risk_class_history` table. */
export type CustomerRiskClassHistoryRow = {
  tenant_id: string;
  id: string;
  customer_id: string;
  risk_class: string | null;
  reason: string;
  changed_by: string | null;
  changed_at: Date;
};

/** The `customer_transaction_metrics` table. */
export type CustomerTransactionMetricsRow = {
  tenant_id: string;
  customer_id: string;
  month: string;
  currency: string;
  inflow: bigint;
  outflow: bigint;
  net_flow: bigint;
  closing_balance: bigint;
  min_balance: bigint;
  transaction_count: number;
};

/** The `customers` table. */
export type CustomersRow = {
  tenant_id: string;
  id: string;
  external_id: string | null;
  first_name: string;
  last_name: string;
  national_id: string | null;
  phone: string | null;
  email: string | null;
  date_of_birth: string | null;
  branch_id: string | null;
  officer_id: string | null;
  segment: string | null;
  opt_in_status: string;
  risk_class: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
  active_loans: number;
  custom_fields: unknown;
  national_id_key: string | null;
  phone_key: string | null;
};

/** The `data_import_keys` table. */
export type DataImportKeysRow = {
  tenant_id: string;
  kind: string;
  natural_key: string;
  object_id: string | null;
  import_id: string;
  created_at: Date;
};

/** The `data_import_mappings` table. */
export type DataImportMappingsRow = {
  tenant_id: string;
  kind: string;
  mapping: unknown;
  updated_by: string | null;
  updated_at: Date;
};

/** The `data_imports` table. */
export type DataImportsRow = {
  tenant_id: string;
  id: string;
  kind: string;
  file_name: string;
  file_type: string;
  file_size: number;
  sha256: string;
  content: Uint8Array | null;
  headers: unknown;
  total_rows: number;
  mapping: unknown;
  status: string;
  mode: string | null;
  source: string;
  bucket_id: string | null;
  job_id: bigint | null;
  processed_rows: number;
  created_count: number;
  skipped_count: number;
  error_count: number;
  errors: unknown;
  is_duplicate_file: boolean;
  first_date: string | null;
  last_date: string | null;
  created_by: string | null;
  created_at: Date;
  finished_at: Date | null;
  version: number;
};

/** The `data_quality_failures` table. */
export type DataQualityFailuresRow = {
  tenant_id: string;
  run_id: string;
  rule: string;
  row_id: string;
  customer_id: string | null;
  detail: string | null;
};

/** The `data_quality_results` table. */
export type DataQualityResultsRow = {
  tenant_id: string;
  run_id: string;
  rule: string;
  entity: string;
  position: number;
  checked: bigint;
  failing: bigint;
  score: string;
};

/** The `data_quality_runs` table. */
export type DataQualityRunsRow = {
  tenant_id: string;
  id: string;
  trigger: string;
  status: string;
  job_id: bigint | null;
  requested_by: string | null;
  rules_total: number;
  rules_done: number;
  score: string | null;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
};

/** The `days_off` table. */
export type DaysOffRow = {
  tenant_id: string;
  id: string;
  kind: string;
  name: string;
  from_date: string | null;
  to_date: string | null;
  weekday: number | null;
  repayments_rescheduled_to: string | null;
  branch_id: string | null;
  revision: number;
  applied_at: Date | null;
  created_at: Date;
  updated_at: Date;
  rescheduling_type: string;
};

/** The `decision_bindings` table. */
export type DecisionBindingsRow = {
  tenant_id: string;
  id: string;
  name: string;
  point: string;
  model_id: string;
  model_version_id: string;
  inputs: string[];
  mapping: unknown;
  reject_action: string;
  enabled: boolean;
  created_by: string;
  created_at: Date;
  updated_by: string | null;
  updated_at: Date;
  row_version: number;
};

/** The `decision_model_versions` table. */
export type DecisionModelVersionsRow = {
  tenant_id: string;
  id: string;
  model_id: string;
  version: number;
  content: unknown;
  test_cases: unknown;
  test_report: unknown;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  used_at: Date | null;
};

/** The `decision_models` table. */
export type DecisionModelsRow = {
  tenant_id: string;
  id: string;
  name: string;
  kind: string;
  description: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
};

/** The `decisions` table. */
export type DecisionsRow = {
  tenant_id: string;
  id: string;
  point: string;
  subject_type: string;
  subject_id: string;
  customer_id: string;
  model_id: string;
  model_version_id: string;
  model_version: number;
  binding_id: string | null;
  strategy_id: string | null;
  strategy_version: number | null;
  inputs: unknown;
  output: unknown;
  trace: unknown;
  reasons: unknown;
  outcome: string;
  currency: string | null;
  limit_amount: bigint | null;
  annual_interest_rate: string | null;
  forced_by: string | null;
  forced_reason: string | null;
  business_date: string;
  created_by: string;
  created_at: Date;
};

/** The `delinquency_bucket_sets` table. */
export type DelinquencyBucketSetsRow = {
  tenant_id: string;
  id: string;
  name: string;
};

/** The `delinquency_ranges` table. */
export type DelinquencyRangesRow = {
  tenant_id: string;
  id: string;
  bucket_set_id: string;
  classification: string;
  min_age_days: number;
  max_age_days: number | null;
};

/** The `domain_events` table. */
export type DomainEventsRow = {
  tenant_id: string;
  seq: bigint;
  id: string;
  type: string;
  object_type: string;
  object_id: string | null;
  actor_id: string | null;
  occurred_at: Date;
  data: unknown;
  xid: string;
};

/** The `downloads` table. */
export type DownloadsRow = {
  tenant_id: string;
  id: string;
  user_id: string;
  kind: string;
  file_name: string;
  content_type: string;
  status: string;
  progress: number;
  size_bytes: bigint | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  expires_at: Date;
};

/** The `error_reports` table. */
export type ErrorReportsRow = {
  tenant_id: string;
  id: string;
  user_id: string | null;
  message: string;
  stack: string;
  context: unknown;
  report_type: string;
  is_resolved: boolean;
  created_at: Date;
};

/** The `event_sink_batches` table. */
export type EventSinkBatchesRow = {
  tenant_id: string;
  id: bigint;
  sink_id: string;
  sink_type: string;
  delivered_at: Date;
  events: number;
  snapshot_rows: number;
};

/** The `event_sink_remote_ids` table. */
export type EventSinkRemoteIdsRow = {
  tenant_id: string;
  sink_id: string;
  object_type: string;
  object_id: string;
  remote_id: bigint;
  state: string;
  updated_at: Date;
};

/** The `event_sinks` table. */
export type EventSinksRow = {
  tenant_id: string;
  id: string;
  type: string;
  name: string;
  settings_sealed: string;
  settings_hint: string;
  event_filter: string[];
  status: string;
  cursor_xid: string | null;
  cursor_seq: bigint | null;
  generation: number;
  revision: number;
  snapshot_stage: string | null;
  snapshot_after: string | null;
  sweep: unknown;
  delivered_count: bigint;
  first_event_at: Date | null;
  last_event_at: Date | null;
  last_delivered_at: Date | null;
  last_run_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  last_test_at: Date | null;
  last_test_ok: boolean | null;
  last_test_message: string | null;
  lease_owner: string | null;
  lease_until: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
};

/** The `form_drafts` table. */
export type FormDraftsRow = {
  tenant_id: string;
  id: string;
  token_hash: string;
  form_id: string;
  form_version: number;
  language: string;
  step: number;
  answers: unknown;
  submission_id: string | null;
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
};

/** The `form_pow_spent` table. */
export type FormPowSpentRow = {
  signature: string;
  expires_at: Date;
};

/** The `form_submission_files` table. */
export type FormSubmissionFilesRow = {
  tenant_id: string;
  id: string;
  submission_id: string | null;
  field: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  storage_key: string;
  customer_file_id: string | null;
  created_at: Date;
  draft_id: string | null;
};

/** The `form_submissions` table. */
export type FormSubmissionsRow = {
  tenant_id: string;
  id: string;
  form_id: string;
  form_version: number;
  reference: string;
  status: string;
  answers: unknown;
  language: string;
  customer_id: string | null;
  customer_match: string | null;
  customer_differences: unknown;
  application_id: string | null;
  decision_id: string | null;
  outcome: string | null;
  error: string | null;
  client_hash: string | null;
  receipt_email: string | null;
  created_at: Date;
  processed_at: Date | null;
};

/** The `hierarchy_nodes` table. */
export type HierarchyNodesRow = {
  tenant_id: string;
  id: string;
  level: string;
  parent_id: string | null;
  code: string;
  name: string;
  user_id: string | null;
};

/** The `idempotency_keys` table. */
export type IdempotencyKeysRow = {
  tenant_id: string;
  id: string;
  user_id: string;
  key: string;
  request_hash: string;
  status: string;
  response_status: number | null;
  response_body: string | null;
  created_at: Date;
  completed_at: Date | null;
};

/** The `import_bucket_files` table. */
export type ImportBucketFilesRow = {
  tenant_id: string;
  bucket_id: string;
  file_key: string;
  sha256: string;
  outcome: string;
  import_id: string | null;
  processed_at: Date;
};

/** The `import_bucket_runs` table. */
export type ImportBucketRunsRow = {
  tenant_id: string;
  id: string;
  bucket_id: string;
  trigger: string;
  status: string;
  files_seen: number;
  files_imported: number;
  files_skipped: number;
  files_failed: number;
  details: unknown;
  error: string | null;
  started_at: Date;
  finished_at: Date | null;
};

/** The `import_buckets` table. */
export type ImportBucketsRow = {
  tenant_id: string;
  id: string;
  name: string;
  type: string;
  kind: string;
  endpoint: string | null;
  region: string | null;
  bucket: string | null;
  prefix: string;
  access_key_id: string | null;
  host: string | null;
  port: number | null;
  username: string | null;
  path: string | null;
  secret_sealed: string;
  mapping: unknown;
  is_enabled: boolean;
  last_run_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
  host_key_sha256: string | null;
};

/** The `ip_restriction_roles` table. */
export type IpRestrictionRolesRow = {
  tenant_id: string;
  restriction_id: string;
  role_id: string;
};

/** The `ip_restrictions` table. */
export type IpRestrictionsRow = {
  tenant_id: string;
  id: string;
  network: string;
  description: string;
  created_by: string | null;
  created_at: Date;
  applies_to_all: boolean;
};

/** The `jobs` table. */
export type JobsRow = {
  id: bigint;
  name: string;
  tenant_id: string | null;
  payload: unknown;
  status: string;
  priority: number;
  run_at: Date;
  attempts: number;
  max_attempts: number;
  dedupe_key: string | null;
  locked_by: string | null;
  lease_until: Date | null;
  heartbeat_at: Date | null;
  progress_done: bigint | null;
  progress_total: bigint | null;
  last_error: string | null;
  result: unknown;
  created_by: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
};

/** The `journal_entries` table. */
export type JournalEntriesRow = {
  tenant_id: string;
  id: string;
  entry_date: string;
  currency: string;
  loan_id: string | null;
  transaction_id: string | null;
  description: string;
  posted_by: string | null;
  posted_at: Date;
};

/** The `journal_lines` table. */
export type JournalLinesRow = {
  tenant_id: string;
  id: string;
  entry_id: string;
  account_code: string;
  currency: string;
  loan_id: string | null;
  debit: bigint;
  credit: bigint;
};

/** The `ledger_accounts` table. */
export type LedgerAccountsRow = {
  code: string;
  name: string;
  kind: string;
};

/** The `lending_settings` table. */
export type LendingSettingsRow = {
  tenant_id: string;
  approval_admin_threshold: bigint | null;
  due_date_on_day_off: string;
};

/** The `loan_applications` table. */
export type LoanApplicationsRow = {
  tenant_id: string;
  id: string;
  customer_id: string;
  product_id: string;
  offer_id: string | null;
  currency: string;
  principal: bigint;
  number_of_repayments: number;
  annual_interest_rate: string;
  expected_disbursement_date: string;
  status: string;
  submitted_by: string;
  submitted_at: Date;
  decided_by: string | null;
  decided_at: Date | null;
  decision_note: string | null;
  form_data: unknown;
  loan_id: string | null;
  version: number;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  product_version: number;
  manual_review_reason: string | null;
  custom_fields: unknown;
};

/** The `loan_collaterals` table. */
export type LoanCollateralsRow = {
  tenant_id: string;
  loan_id: string;
  collateral_id: string;
};

/** The `loan_delinquency` table. */
export type LoanDelinquencyRow = {
  tenant_id: string;
  loan_id: string;
  as_of: string;
  past_due_days: number;
  delinquent_days: number;
  delinquent_date: string | null;
  delinquent_amount: bigint;
  overdue_installments: number;
  classification: string | null;
  classified_since: string | null;
  installment_level: unknown;
  is_matured: boolean;
  matured_on: string | null;
};

/** The `loan_delinquency_history` table. */
export type LoanDelinquencyHistoryRow = {
  tenant_id: string;
  id: string;
  loan_id: string;
  business_date: string;
  from_classification: string | null;
  to_classification: string | null;
  reason: string;
  past_due_days: number;
  delinquent_days: number;
  delinquent_amount: bigint;
  created_at: Date;
};

/** The `loan_installments` table. */
export type LoanInstallmentsRow = {
  tenant_id: string;
  id: string;
  loan_id: string;
  number: number;
  from_date: string;
  due_date: string;
  is_down_payment: boolean;
  principal_due: bigint;
  interest_due: bigint;
  fee_due: bigint;
  penalty_due: bigint;
  principal_paid: bigint;
  interest_paid: bigint;
  fee_paid: bigint;
  penalty_paid: bigint;
  interest_waived: bigint;
  fee_waived: bigint;
  penalty_waived: bigint;
  principal_written_off: bigint;
  interest_written_off: bigint;
  fee_written_off: bigint;
  penalty_written_off: bigint;
  obligations_met_on: string | null;
  is_additional: boolean;
};

/** The `loan_month_end_snapshots` table. */
export type LoanMonthEndSnapshotsRow = {
  tenant_id: string;
  loan_id: string;
  month_end: string;
  status: string;
  currency: string;
  principal_outstanding: bigint;
  interest_outstanding: bigint;
  fee_outstanding: bigint;
  penalty_outstanding: bigint;
  total_outstanding: bigint;
  credit_balance: bigint;
  past_due_days: number;
  delinquent_days: number;
  classification: string | null;
  principal_paid_in_month: bigint;
  interest_paid_in_month: bigint;
  fee_paid_in_month: bigint;
  penalty_paid_in_month: bigint;
  total_paid_in_month: bigint;
  created_at: Date;
};

/** The `loan_product_versions` table. */
export type LoanProductVersionsRow = {
  tenant_id: string;
  product_id: string;
  version: number;
  snapshot: unknown;
  created_by: string | null;
  created_at: Date;
};

/** The `loan_products` table. */
export type LoanProductsRow = {
  tenant_id: string;
  id: string;
  code: string;
  name: string;
  description: string;
  currency: string;
  digits_after_decimal: number;
  currency_in_multiples_of: number;
  installment_amount_in_multiples_of: number;
  rounding_mode: string;
  min_principal: bigint;
  max_principal: bigint;
  default_principal: bigint | null;
  min_repayments: number;
  max_repayments: number;
  default_repayments: number | null;
  annual_interest_rate: string;
  repayment_every: number;
  repayment_frequency: string;
  schedule_type: string;
  interest_method: string;
  amortization: string;
  interest_calculation_period: string;
  allow_partial_period_interest: boolean;
  days_in_year: string;
  days_in_month: string;
  grace_on_principal_periods: number;
  grace_on_interest_payment_periods: number;
  interest_free_periods: number;
  grace_on_arrears_ageing: number;
  down_payment_percent: string | null;
  fees: unknown;
  penalties: unknown;
  allocation_strategy: string;
  delinquency_bucket_set_id: string | null;
  is_active: boolean;
  created_at: Date;
  allow_overpayment: boolean;
  version: number;
  updated_by: string | null;
  updated_at: Date;
  multi_disbursement: boolean;
  max_tranches: number | null;
  interest_recalculation: boolean;
  recalculation_rest_frequency: string;
  recalculation_compounding: string;
  recalculation_reschedule_strategy: string;
  pre_closure_strategy: string;
  recalculation_rest_interval: number;
  recalculation_compounding_frequency: string;
  recalculation_compounding_interval: number;
  fixed_length: number | null;
  allow_fixed_emi: boolean;
  allow_variable_installments: boolean;
  variable_installment_min_gap_days: number | null;
  variable_installment_max_gap_days: number | null;
};

/** The `loan_reschedule_requests` table. */
export type LoanRescheduleRequestsRow = {
  tenant_id: string;
  id: string;
  loan_id: string;
  reschedule_from_date: string;
  new_interest_rate: string | null;
  adjusted_due_date: string | null;
  extra_terms: number;
  grace_on_principal: number;
  grace_on_interest: number;
  submitted_on: string;
  reason: string | null;
  status: string;
  submitted_by: string;
  submitted_at: Date;
  decided_by: string | null;
  decided_at: Date | null;
  decided_on: string | null;
  decision_note: string | null;
  interest_change: bigint | null;
  version: number;
};

/** The `loan_schedule_changes` table. */
export type LoanScheduleChangesRow = {
  tenant_id: string;
  id: string;
  loan_id: string;
  frequency_type: string | null;
  frequency_number: number | null;
  start_date: string | null;
  number_of_installments: number | null;
  previous_schedule: unknown;
  created_due_dates: unknown;
  created_at: Date;
};

/** The `loan_schedule_versions` table. */
export type LoanScheduleVersionsRow = {
  tenant_id: string;
  loan_id: string;
  version: number;
  replaced_on: string;
  last_seq: bigint;
  due_dates: string[];
  principal_due: bigint[];
  interest_due: bigint[];
  fee_due: bigint[];
  penalty_due: bigint[];
  reallocated_principal: bigint;
  reallocated_interest: bigint;
  reallocated_fee: bigint;
  reallocated_penalty: bigint;
  reallocated_credit: bigint;
};

/** The `loan_tranches` table. */
export type LoanTranchesRow = {
  tenant_id: string;
  loan_id: string;
  number: number;
  expected_date: string;
  amount: bigint;
  disbursed_on: string | null;
  transaction_id: string | null;
  created_by: string | null;
  created_at: Date;
};

/** The `loan_transactions` table. */
export type LoanTransactionsRow = {
  tenant_id: string;
  id: string;
  seq: bigint;
  loan_id: string;
  type: LoanTransactionType;
  transaction_date: string;
  currency: string;
  amount: bigint;
  principal_portion: bigint;
  interest_portion: bigint;
  fee_portion: bigint;
  penalty_portion: bigint;
  overpayment_portion: bigint;
  installment_number: number | null;
  reverses_id: string | null;
  note: string | null;
  created_by: string | null;
  created_at: Date;
};

/** The `loan_transactions_view` view. */
export type LoanTransactionsViewRow = {
  tenant_id: string | null;
  id: string | null;
  seq: bigint | null;
  loan_id: string | null;
  type: LoanTransactionType | null;
  transaction_date: string | null;
  currency: string | null;
  amount: bigint | null;
  principal_portion: bigint | null;
  interest_portion: bigint | null;
  fee_portion: bigint | null;
  penalty_portion: bigint | null;
  overpayment_portion: bigint | null;
  installment_number: number | null;
  reverses_id: string | null;
  note: string | null;
  created_by: string | null;
  created_at: Date | null;
  reversed_by_id: string | null;
  is_reversed: boolean | null;
};

/** The `loans` table. */
export type LoansRow = {
  tenant_id: string;
  id: string;
  account_no: string;
  customer_id: string;
  product_id: string;
  application_id: string | null;
  offer_id: string | null;
  status: string;
  currency: string;
  principal: bigint;
  number_of_repayments: number;
  annual_interest_rate: string;
  terms: unknown;
  expected_disbursement_date: string | null;
  submitted_on: string;
  approved_on: string | null;
  approved_by: string | null;
  disbursed_on: string | null;
  closed_on: string | null;
  written_off_on: string | null;
  credit_balance: bigint;
  officer_id: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
  outstanding: bigint;
  oldest_unpaid_due_date: string | null;
  maturity_date: string | null;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  product_version: number;
  principal_outstanding: bigint;
};

/** The `login_failures` table. */
export type LoginFailuresRow = {
  id: bigint;
  key: string;
  at: Date;
};

/** The `message_templates` table. */
export type MessageTemplatesRow = {
  tenant_id: string;
  id: string;
  code: string;
  name: string;
  channel: string;
  purpose: string;
  subject_en: string;
  body_en: string;
  subject_fr: string;
  body_fr: string;
  revision: number;
  created_at: Date;
  updated_at: Date;
};

/** The `notifications` table. */
export type NotificationsRow = {
  tenant_id: string;
  id: string;
  user_id: string;
  kind: string;
  title: string;
  link: string;
  dedupe_key: string | null;
  read_at: Date | null;
  created_at: Date;
};

/** The `offers` table. */
export type OffersRow = {
  tenant_id: string;
  id: string;
  code: string;
  customer_id: string;
  product_id: string;
  currency: string;
  principal: bigint;
  number_of_repayments: number;
  annual_interest_rate: string;
  expires_on: string;
  status: string;
  notified_at: Date | null;
  notified_by: string | null;
  notify_channel: string | null;
  notify_feedback: string | null;
  notify_comment: string | null;
  rejected_reason: string | null;
  application_id: string | null;
  loan_id: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
  notify_form: unknown;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  strategy_id: string | null;
  strategy_version: number | null;
  decision_id: string | null;
  product_version: number;
};

/** The `oidc_auth_requests` table. */
export type OidcAuthRequestsRow = {
  state: string;
  tenant_id: string;
  nonce: string;
  code_verifier: string;
  redirect_to: string;
  created_at: Date;
  expires_at: Date;
  purpose: string;
};

/** The `oidc_links` table. */
export type OidcLinksRow = {
  tenant_id: string;
  issuer: string;
  subject: string;
  user_id: string;
  created_at: Date;
};

/** The `password_history` table. */
export type PasswordHistoryRow = {
  tenant_id: string;
  id: string;
  user_id: string;
  password_hash: string;
  created_at: Date;
};

/** The `password_policies` table. */
export type PasswordPoliciesRow = {
  tenant_id: string;
  min_length: number;
  history_count: number;
  refuse_common: boolean;
  refuse_breached: boolean;
  updated_at: Date;
  expiry_days: number;
  lockout_threshold: number;
  lockout_minutes: number;
};

/** The `password_policy_mfa_roles` table. */
export type PasswordPolicyMfaRolesRow = {
  tenant_id: string;
  role_id: string;
};

/** The `password_reset_tokens` table. */
export type PasswordResetTokensRow = {
  tenant_id: string;
  id: string;
  user_id: string;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  purpose: string;
};

/** The `plan_change_requests` table. */
export type PlanChangeRequestsRow = {
  tenant_id: string;
  id: string;
  features: string[];
  message: string;
  status: string;
  requested_by: string;
  created_at: Date;
  updated_at: Date;
};

/** The `pricing_features` table. */
export type PricingFeaturesRow = {
  tenant_id: string;
  name: string;
  supports_usage_limit: boolean;
  usage_unit: string | null;
};

/** The `pricing_plans` table. */
export type PricingPlansRow = {
  tenant_id: string;
  feature_name: string;
  position: number;
  plan_name: string;
  enabled: boolean;
  unlimited: boolean;
  usage_limit: bigint | null;
};

/** The `pricing_usage` table. */
export type PricingUsageRow = {
  tenant_id: string;
  feature_name: string;
  used: bigint;
  updated_at: Date;
};

/** The `public_form_links` table. */
export type PublicFormLinksRow = {
  slug: string;
  tenant_id: string;
  form_id: string;
  version: number;
};

/** The `reports` table. */
export type ReportsRow = {
  tenant_id: string;
  id: string;
  name: string;
  dataset: string;
  filters: unknown;
  rows_dimension: string;
  columns_dimension: string | null;
  measures: unknown;
  revision: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
};

/** The `roles` table. */
export type RolesRow = {
  tenant_id: string;
  id: string;
  name: string;
  description: string;
  is_admin: boolean;
  authorities: string[];
  created_at: Date;
};

/** The `saved_queries` table. */
export type SavedQueriesRow = {
  tenant_id: string;
  id: string;
  name: string;
  description: string;
  definition: unknown;
  created_by: string;
  updated_by: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
};

/** The `scheduled_export_runs` table. */
export type ScheduledExportRunsRow = {
  tenant_id: string;
  id: string;
  export_id: string;
  trigger: string;
  scheduled_for: Date;
  status: string;
  requested_by: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  attempts: number;
  rows: number | null;
  bytes: bigint | null;
  file_name: string | null;
  file_path: string | null;
  download_id: string | null;
  targets: unknown;
  error: string | null;
  created_at: Date;
};

/** The `scheduled_exports` table. */
export type ScheduledExportsRow = {
  tenant_id: string;
  id: string;
  name: string;
  source: unknown;
  format: string;
  cron: string;
  targets: unknown;
  alert_user_ids: string[];
  alert_emails: string[];
  is_enabled: boolean;
  owner_id: string;
  next_run_at: Date | null;
  last_scheduled_at: Date | null;
  revision: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
};

/** The `sessions` table. */
export type SessionsRow = {
  tenant_id: string;
  id: string;
  user_id: string;
  stage: string;
  method: string;
  created_at: Date;
  last_seen_at: Date;
  absolute_expires_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
  ip: string | null;
  user_agent: string | null;
  oidc_issuer: string | null;
  oidc_id_token: string | null;
};

/** The `sign_in_directory` table. */
export type SignInDirectoryRow = {
  email_lower: string;
  tenant_id: string;
  user_id: string;
};

/** The `strategies` table. */
export type StrategiesRow = {
  tenant_id: string;
  id: string;
  name: string;
  description: string;
  status: string;
  live_version: number | null;
  requested_by: string;
  requested_at: Date;
  updated_at: Date;
  row_version: number;
};

/** The `strategy_originations` table. */
export type StrategyOriginationsRow = {
  tenant_id: string;
  strategy_id: string;
  customer_id: string;
  business_date: string;
  strategy_version: number;
  outcome: string;
  offer_id: string | null;
  decision_id: string | null;
  created_at: Date;
  reason: string;
};

/** The `strategy_simulation_changes` table. */
export type StrategySimulationChangesRow = {
  tenant_id: string;
  simulation_id: string;
  customer_id: string;
  live_outcome: string;
  draft_outcome: string;
  live_amount: bigint | null;
  draft_amount: bigint | null;
  risk_class: string | null;
  reason: string;
};

/** The `strategy_simulations` table. */
export type StrategySimulationsRow = {
  tenant_id: string;
  id: string;
  strategy_id: string;
  strategy_version: number;
  status: string;
  customers_total: number;
  customers_done: number;
  business_date: string;
  results: unknown;
  error: string | null;
  requested_by: string;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
};

/** The `strategy_versions` table. */
export type StrategyVersionsRow = {
  tenant_id: string;
  id: string;
  strategy_id: string;
  version: number;
  stage: string;
  request_note: string;
  terms: unknown;
  encoded_by: string | null;
  encoded_at: Date | null;
  simulation_id: string | null;
  provider_validated_by: string | null;
  provider_validated_at: Date | null;
  client_validated_by: string | null;
  client_validated_at: Date | null;
  implemented_by: string | null;
  implemented_at: Date | null;
  live_validated_by: string | null;
  live_validated_at: Date | null;
  created_at: Date;
};

/** The `tasks` table. */
export type TasksRow = {
  tenant_id: string;
  id: string;
  title: string;
  description: string;
  assignee_user_id: string | null;
  assignee_node_id: string | null;
  due_date: string | null;
  priority: string;
  status: string;
  customer_id: string | null;
  loan_id: string | null;
  application_id: string | null;
  offer_id: string | null;
  customer_branch_id: string | null;
  customer_officer_id: string | null;
  source: string;
  source_key: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  completed_by: string | null;
  due_notified_on: string | null;
  revision: number;
};

/** The `tenant_logos` table. */
export type TenantLogosRow = {
  tenant_id: string;
  content_type: string;
  bytes: Uint8Array;
  updated_at: Date;
  updated_by: string | null;
};

/** The `tenants` table. */
export type TenantsRow = {
  id: string;
  slug: string;
  name: string;
  currency: string;
  locale: string;
  time_zone: string;
  languages: string[];
  default_language: string;
  business_date: string;
  config: unknown;
  is_active: boolean;
  created_at: Date;
  logo_updated_at: Date | null;
};

/** The `translation_missing_keys` table. */
export type TranslationMissingKeysRow = {
  tenant_id: string;
  language: string;
  namespace: string;
  key: string;
  fallback: string;
  times_reported: number;
  first_seen_at: Date;
  last_seen_at: Date;
};

/** The `translation_overrides` table. */
export type TranslationOverridesRow = {
  tenant_id: string;
  language: string;
  namespace: string;
  key: string;
  value: string;
  updated_at: Date;
};

/** The `user_data_permissions` table. */
export type UserDataPermissionsRow = {
  tenant_id: string;
  user_id: string;
  field: string;
  value: string;
};

/** The `user_roles` table. */
export type UserRolesRow = {
  tenant_id: string;
  user_id: string;
  role_id: string;
};

/** The `user_totp` table. */
export type UserTotpRow = {
  tenant_id: string;
  user_id: string;
  secret: string;
  created_at: Date;
  confirmed_at: Date | null;
  last_used_step: bigint;
};

/** The `users` table. */
export type UsersRow = {
  tenant_id: string;
  id: string;
  email: string;
  display_name: string;
  language: string;
  password_hash: string | null;
  password_change_required: boolean;
  is_active: boolean;
  session_timeout: number;
  created_at: Date;
  updated_at: Date;
  sso_only: boolean;
  password_changed_at: Date;
};

/** The `webhook_attempts` table. */
export type WebhookAttemptsRow = {
  tenant_id: string;
  id: string;
  delivery_id: string;
  endpoint_id: string;
  attempt: number;
  is_manual: boolean;
  started_at: Date;
  duration_ms: number;
  request_headers: unknown;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
};

/** The `webhook_cursors` table. */
export type WebhookCursorsRow = {
  tenant_id: string;
  cursor_xid: string | null;
  cursor_seq: bigint | null;
  updated_at: Date;
};

/** The `webhook_deliveries` table. */
export type WebhookDeliveriesRow = {
  tenant_id: string;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  msg_id: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
};

/** The `webhook_endpoints` table. */
export type WebhookEndpointsRow = {
  tenant_id: string;
  id: string;
  url: string;
  description: string;
  event_types: string[];
  is_enabled: boolean;
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: Date | null;
  revision: number;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
};

/** Every table and view by name, for `TableRow<'loans'>` and `Pick<TableRow<'loans'>, 'id' | 'status'>`. */
export type Tables = {
  analytics_delinquency_months: AnalyticsDelinquencyMonthsRow;
  analytics_delinquency_moves: AnalyticsDelinquencyMovesRow;
  analytics_delinquency_transitions: AnalyticsDelinquencyTransitionsRow;
  analytics_events: AnalyticsEventsRow;
  analytics_loan_vintage: AnalyticsLoanVintageRow;
  analytics_month_facts: AnalyticsMonthFactsRow;
  analytics_portfolio_months: AnalyticsPortfolioMonthsRow;
  analytics_revenue_months: AnalyticsRevenueMonthsRow;
  analytics_vintages: AnalyticsVintagesRow;
  api_call_counts: ApiCallCountsRow;
  api_tokens: ApiTokensRow;
  application_form_versions: ApplicationFormVersionsRow;
  application_forms: ApplicationFormsRow;
  audit_log: AuditLogRow;
  bank_statement_imports: BankStatementImportsRow;
  close_penalties: ClosePenaltiesRow;
  close_runs: CloseRunsRow;
  collateral_types: CollateralTypesRow;
  collaterals: CollateralsRow;
  collection_activities: CollectionActivitiesRow;
  collection_buckets: CollectionBucketsRow;
  collection_cases: CollectionCasesRow;
  collection_priority: CollectionPriorityRow;
  collection_workflow_runs: CollectionWorkflowRunsRow;
  collection_workflows: CollectionWorkflowsRow;
  contract_signatories: ContractSignatoriesRow;
  contracts: ContractsRow;
  conversation_attachments: ConversationAttachmentsRow;
  conversation_messages: ConversationMessagesRow;
  conversation_reads: ConversationReadsRow;
  conversations: ConversationsRow;
  custom_field_forms: CustomFieldFormsRow;
  custom_metrics: CustomMetricsRow;
  custom_views: CustomViewsRow;
  customer_bank_transactions: CustomerBankTransactionsRow;
  customer_eligibility_overrides: CustomerEligibilityOverridesRow;
  customer_files: CustomerFilesRow;
  customer_opt_in_history: CustomerOptInHistoryRow;
  customer_risk_class_history: CustomerRiskClassHistoryRow;
  customer_transaction_metrics: CustomerTransactionMetricsRow;
  customers: CustomersRow;
  data_import_keys: DataImportKeysRow;
  data_import_mappings: DataImportMappingsRow;
  data_imports: DataImportsRow;
  data_quality_failures: DataQualityFailuresRow;
  data_quality_results: DataQualityResultsRow;
  data_quality_runs: DataQualityRunsRow;
  days_off: DaysOffRow;
  decision_bindings: DecisionBindingsRow;
  decision_model_versions: DecisionModelVersionsRow;
  decision_models: DecisionModelsRow;
  decisions: DecisionsRow;
  delinquency_bucket_sets: DelinquencyBucketSetsRow;
  delinquency_ranges: DelinquencyRangesRow;
  domain_events: DomainEventsRow;
  downloads: DownloadsRow;
  error_reports: ErrorReportsRow;
  event_sink_batches: EventSinkBatchesRow;
  event_sink_remote_ids: EventSinkRemoteIdsRow;
  event_sinks: EventSinksRow;
  form_drafts: FormDraftsRow;
  form_pow_spent: FormPowSpentRow;
  form_submission_files: FormSubmissionFilesRow;
  form_submissions: FormSubmissionsRow;
  hierarchy_nodes: HierarchyNodesRow;
  idempotency_keys: IdempotencyKeysRow;
  import_bucket_files: ImportBucketFilesRow;
  import_bucket_runs: ImportBucketRunsRow;
  import_buckets: ImportBucketsRow;
  ip_restriction_roles: IpRestrictionRolesRow;
  ip_restrictions: IpRestrictionsRow;
  jobs: JobsRow;
  journal_entries: JournalEntriesRow;
  journal_lines: JournalLinesRow;
  ledger_accounts: LedgerAccountsRow;
  lending_settings: LendingSettingsRow;
  loan_applications: LoanApplicationsRow;
  loan_collaterals: LoanCollateralsRow;
  loan_delinquency: LoanDelinquencyRow;
  loan_delinquency_history: LoanDelinquencyHistoryRow;
  loan_installments: LoanInstallmentsRow;
  loan_month_end_snapshots: LoanMonthEndSnapshotsRow;
  loan_product_versions: LoanProductVersionsRow;
  loan_products: LoanProductsRow;
  loan_reschedule_requests: LoanRescheduleRequestsRow;
  loan_schedule_changes: LoanScheduleChangesRow;
  loan_schedule_versions: LoanScheduleVersionsRow;
  loan_tranches: LoanTranchesRow;
  loan_transactions: LoanTransactionsRow;
  loan_transactions_view: LoanTransactionsViewRow;
  loans: LoansRow;
  login_failures: LoginFailuresRow;
  message_templates: MessageTemplatesRow;
  notifications: NotificationsRow;
  offers: OffersRow;
  oidc_auth_requests: OidcAuthRequestsRow;
  oidc_links: OidcLinksRow;
  password_history: PasswordHistoryRow;
  password_policies: PasswordPoliciesRow;
  password_policy_mfa_roles: PasswordPolicyMfaRolesRow;
  password_reset_tokens: PasswordResetTokensRow;
  plan_change_requests: PlanChangeRequestsRow;
  pricing_features: PricingFeaturesRow;
  pricing_plans: PricingPlansRow;
  pricing_usage: PricingUsageRow;
  public_form_links: PublicFormLinksRow;
  reports: ReportsRow;
  roles: RolesRow;
  saved_queries: SavedQueriesRow;
  scheduled_export_runs: ScheduledExportRunsRow;
  scheduled_exports: ScheduledExportsRow;
  sessions: SessionsRow;
  sign_in_directory: SignInDirectoryRow;
  strategies: StrategiesRow;
  strategy_originations: StrategyOriginationsRow;
  strategy_simulation_changes: StrategySimulationChangesRow;
  strategy_simulations: StrategySimulationsRow;
  strategy_versions: StrategyVersionsRow;
  tasks: TasksRow;
  tenant_logos: TenantLogosRow;
  tenants: TenantsRow;
  translation_missing_keys: TranslationMissingKeysRow;
  translation_overrides: TranslationOverridesRow;
  user_data_permissions: UserDataPermissionsRow;
  user_roles: UserRolesRow;
  user_totp: UserTotpRow;
  users: UsersRow;
  webhook_attempts: WebhookAttemptsRow;
  webhook_cursors: WebhookCursorsRow;
  webhook_deliveries: WebhookDeliveriesRow;
  webhook_endpoints: WebhookEndpointsRow;
};

export type TableName = keyof Tables;

/** The row type of one table: `TableRow<'loans'>` is `LoansRow`. */
export type TableRow<T extends TableName> = Tables[T];
