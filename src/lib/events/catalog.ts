/**
 * The domain events the product publishes, named `area.object.verb`. An event is written by
 * `recordAudit` for every successful audited action on one of the entities below (see
 * `domainEventType`): the audit trail is the one place every command already reports its change, in
 * its own transaction, so publishing from it covers every command, today's and tomorrow's.
 *
 * Most actions have a name chosen here; an action not named here still publishes, as
 * `<area>.record.<verb of the action>`, so no change of a covered entity goes unpublished.
 */

/** The audited object types that publish events, and the area their events are named under. */
export const EVENT_AREAS = {
  customer: 'customer',
  offer: 'offer',
  loan_application: 'application',
  loan: 'loan',
  payment: 'payment',
  collateral: 'collateral',
  task: 'task',
  conversation: 'conversation',
} as const satisfies Record<string, string>;

export type EventObjectType = keyof typeof EVENT_AREAS;

/** Audit action → event type, for the actions of covered entities. */
const NAMED: Record<string, string> = {
  'customer.create': 'customer.record.created',
  'customer.update_custom_fields': 'customer.record.updated',
  'customer.set_risk_class': 'customer.risk_class.changed',
  'customer.opt_in': 'customer.consent.opted_in',
  'customer.opt_out': 'customer.consent.opted_out',
  'customer.eligibility.force': 'customer.eligibility.forced',
  'customer.eligibility.use': 'customer.eligibility.used',
  'bank_statement.import': 'customer.bank_statement.imported',
  'offer.create': 'offer.record.created',
  'offer.notify': 'offer.record.notified',
  'offer.reject': 'offer.record.rejected',
  'offer.request_loan': 'offer.loan.requested',
  'application.submit': 'application.record.submitted',
  'application.edit': 'application.record.updated',
  'application.approve': 'application.record.approved',
  'application.reject': 'application.record.rejected',
  'application.withdraw': 'application.record.withdrawn',
  'application.review_decision': 'application.decision.reviewed',
  'application.decision_failed': 'application.decision.failed',
  'loan.disburse': 'loan.record.disbursed',
  'loan.repay': 'loan.repayment.created',
  'loan.reverse_transaction': 'loan.transaction.reversed',
  'loan.refund_credit': 'loan.credit_balance.refunded',
  'loan.write_off': 'loan.record.written_off',
  'loan.apply_fee': 'loan.fee.applied',
  'loan.apply_penalty': 'loan.penalty.applied',
  'loan.waive_interest': 'loan.interest.waived',
  'loan.waive_charges': 'loan.charges.waived',
  'collateral.link': 'loan.collateral.linked',
  'collection.assign': 'loan.collection.assigned',
  'collection.contact': 'loan.collection.contacted',
  'collection.promise': 'loan.collection.promised',
  'collection.message': 'loan.collection.messaged',
  'collection.callback': 'loan.collection.callback_scheduled',
  'collateral.create': 'collateral.record.created',
  'collateral.update': 'collateral.record.updated',
  'collateral.update_custom_fields': 'collateral.record.updated',
  'collateral.delete': 'collateral.record.deleted',
  'task.create': 'task.record.created',
  'task.update': 'task.record.updated',
  'task.assign': 'task.record.assigned',
  'task.complete': 'task.record.completed',
  'task.delete': 'task.record.deleted',
  'conversation.create': 'conversation.thread.created',
  'conversation.message': 'conversation.message.created',
  'conversation.read': 'conversation.thread.read',
};

/** Audited actions that change nothing (reads, downloads, dry runs): no event. */
const NOT_CHANGES = /\.(download|view|evaluate|test|simulate|preview)$/;

/**
 * The event type of a successful audited action, or null when the object is not a published entity or
 * the action changes nothing.
 */
export function domainEventType(action: string, objectType: string): string | null {
  if (!(objectType in EVENT_AREAS) || NOT_CHANGES.test(action)) return null;
  const named = NAMED[action];
  if (named) return named;
  const area = EVENT_AREAS[objectType as EventObjectType];
  const verb = action.slice(action.lastIndexOf('.') + 1).replace(/[^a-z0-9_]/g, '_') || 'changed';
  return `${area}.record.${verb}`;
}

/** Every named event type, sorted (what an endpoint or sink can subscribe to; `*` means all). */
export const EVENT_TYPES: readonly string[] = [...new Set(Object.values(NAMED))].sort();

/** True when `pattern` (an exact type, `area.*`, `area.object.*` or `*`) matches `type`. */
export function eventMatches(pattern: string, type: string): boolean {
  if (pattern === '*' || pattern === type) return true;
  return pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1));
}
