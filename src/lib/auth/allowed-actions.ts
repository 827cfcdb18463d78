/**
 * Which actions a page or island shows, asked in one place: allowedActions(actor, kind, object).
 *
 * An action is shown when the guard would let the user make the call behind it (the same rule the
 * route manifest gives that /v1 route and method, or that page) AND, for objects with a lifecycle,
 * the lending state machine's dry run allows it now. Pages never name permission keys themselves, so
 * a button cannot appear for a call the guard would refuse, nor disappear for one it would allow.
 */
import { allows, need, type PermissionSubject, type Rule } from './permissions.ts';
import { matchApiRoute, matchRoute, type HttpMethod } from './route-manifest.ts';

/** The lifecycle's answer for each action (lending `…Actions` dry runs). */
export type DryRun = readonly { action: string; allowed: boolean }[];

/** The rule of a /v1 route and method, read from the manifest (a typo fails loudly at start-up). */
function apiRule(method: HttpMethod, path: string): Rule {
  const rule = matchApiRoute(path)?.entry.methods[method];
  if (!rule) throw new Error(`No API rule for ${method} ${path}`);
  return rule;
}

/** The rule of a page, read from the manifest. */
function pageRule(path: string): Rule {
  const match = matchRoute(path);
  if (!match) throw new Error(`No page rule for ${path}`);
  return match.entry.rule;
}

/** May this user open this page path (its manifest rule)? Unknown paths: no. */
export function mayOpen(user: PermissionSubject | null | undefined, path: string): boolean {
  const match = matchRoute(path);
  return match ? allows(user, match.entry.rule) : false;
}

type ActionTable = Record<string, { rule: Rule; lifecycle?: boolean }>;

// Sample ids only select the manifest entry; the rules do not depend on them.
const LOAN = '/v1/loans/x';
const OFFER = '/v1/offers/x';
const CUSTOMER = '/v1/customers/x';
const APPLICATION = '/v1/applications/x';

const TABLES = {
  /** The loan page: money commands, each gated by the loan's lifecycle too. */
  loan: {
    disburse: { rule: apiRule('POST', `${LOAN}/disbursements`), lifecycle: true },
    repay: { rule: apiRule('POST', `${LOAN}/repayments`), lifecycle: true },
    writeOff: { rule: apiRule('POST', `${LOAN}/write-offs`), lifecycle: true },
    applyCharge: { rule: apiRule('POST', `${LOAN}/charges`), lifecycle: true },
    waiveInterest: { rule: apiRule('POST', `${LOAN}/waivers`), lifecycle: true },
    waiveCharges: { rule: apiRule('POST', `${LOAN}/waivers`), lifecycle: true },
    reverseTransaction: { rule: apiRule('POST', `${LOAN}/transactions/x/reversals`), lifecycle: true },
    reAge: { rule: apiRule('POST', `${LOAN}/re-ages`), lifecycle: true },
    reAmortize: { rule: apiRule('POST', `${LOAN}/re-amortizations`), lifecycle: true },
    undoReAge: { rule: apiRule('POST', `${LOAN}/re-ages/undo`) },
    undoReAmortize: { rule: apiRule('POST', `${LOAN}/re-amortizations/undo`) },
    // Reschedule requests: submitting follows the loan's lifecycle; deciding is maker-checker (the
    // command refuses the submitter's own approval).
    reschedule: { rule: apiRule('POST', `${LOAN}/reschedule-requests`), lifecycle: true },
    approveReschedule: { rule: apiRule('POST', `${LOAN}/reschedule-requests/x/approve`) },
    rejectReschedule: { rule: apiRule('POST', `${LOAN}/reschedule-requests/x/reject`) },
    /** Tranches (set before disbursement, next one on an active loan): the command checks the loan's state. */
    tranches: { rule: apiRule('POST', `${LOAN}/tranche-disbursements`) },
  },
  /** The offer page. Simulating, copying the code and printing do not change the offer. */
  offer: {
    notify: { rule: apiRule('POST', `${OFFER}/notify`), lifecycle: true },
    reject: { rule: apiRule('POST', `${OFFER}/reject`), lifecycle: true },
    request: { rule: apiRule('POST', `${OFFER}/request`), lifecycle: true },
    simulate: { rule: need('loans.offers.simulate_repayment') },
    copyCode: { rule: need('loans.offers.copy_code') },
    print: { rule: apiRule('GET', `${OFFER}/letter`) },
  },
  /** A loan application being processed: maker-checker decisions and the maker's edits, each gated by its lifecycle. */
  application: {
    approve: { rule: apiRule('POST', `${APPLICATION}/approve`), lifecycle: true },
    reject: { rule: apiRule('POST', `${APPLICATION}/reject`), lifecycle: true },
    withdraw: { rule: apiRule('POST', `${APPLICATION}/withdraw`), lifecycle: true },
    edit: { rule: apiRule('PATCH', APPLICATION), lifecycle: true },
  },
  /** The customer profile and the pages hanging off it (files, statements, collaterals). */
  customer: {
    optIn: { rule: apiRule('POST', `${CUSTOMER}/opt-in`) },
    optOut: { rule: apiRule('POST', `${CUSTOMER}/opt-out`) },
    uploadFile: { rule: apiRule('POST', `${CUSTOMER}/files`) },
    downloadFile: { rule: apiRule('GET', `${CUSTOMER}/files/x`) },
    deleteFile: { rule: need('customer.files.delete') },
    importBankStatement: { rule: apiRule('POST', `${CUSTOMER}/bank-statements`) },
    seeCreditAnalysis: { rule: pageRule('/loans/customer/profile/x/credit-analysis') },
    addCollateral: { rule: pageRule('/loans/collaterals/new/x') },
  },
  /** A collateral's page. */
  collateral: {
    edit: { rule: need('loans.collaterals.edit') },
    delete: { rule: need('loans.collaterals.delete') },
    downloadFile: { rule: apiRule('GET', `${CUSTOMER}/files/x`) },
  },
  /** Tasks (issue 14): the list's quick actions, the edit page, and "assign to others" (manage). */
  task: {
    create: { rule: pageRule('/loans/tasks/new') },
    edit: { rule: apiRule('PATCH', '/v1/tasks/x') },
    complete: { rule: apiRule('POST', '/v1/tasks/x/completion') },
    delete: { rule: apiRule('DELETE', '/v1/tasks/x') },
    manage: { rule: apiRule('POST', '/v1/tasks/x/assignment') },
  },
} as const satisfies Record<string, ActionTable>;

type Tables = typeof TABLES;
/** Kinds of objects with a fixed action set. */
export type ActionKind = keyof Tables | 'list';
export type ActionsOf<K extends keyof Tables> = { [A in keyof Tables[K]]: boolean };
/** A loans-workspace list (src/lib/lists/registry.ts): its page path and whether it has custom views. */
export type ListObject = { path: string; hasCustomViews: boolean };
export type ListActions = { open: boolean; export: boolean; editViews: boolean };

/**
 * The actions this user may take on this object now. `object.dryRun` is the lifecycle's answer for
 * loans and offers (actions it does not list are not allowed); other kinds need no object.
 */
export function allowedActions(
  actor: PermissionSubject | null | undefined,
  kind: 'list',
  object: ListObject,
): ListActions;
export function allowedActions<K extends keyof Tables>(
  actor: PermissionSubject | null | undefined,
  kind: K,
  object?: { dryRun?: DryRun },
): ActionsOf<K>;
export function allowedActions(
  actor: PermissionSubject | null | undefined,
  kind: ActionKind,
  object?: { dryRun?: DryRun } | ListObject,
): Record<string, boolean> {
  if (kind === 'list') {
    const list = object as ListObject;
    // Opening and exporting a list is opening its page; editing its views is the custom-views API.
    const open = mayOpen(actor, list.path);
    return {
      open,
      export: open,
      editViews: open && list.hasCustomViews && allows(actor, apiRule('POST', '/v1/custom-views/x')),
    };
  }
  const dryRun = (object as { dryRun?: DryRun } | undefined)?.dryRun ?? [];
  const out: Record<string, boolean> = {};
  for (const [action, spec] of Object.entries(TABLES[kind] as ActionTable)) {
    out[action] = allows(actor, spec.rule) && (!spec.lifecycle || dryRun.some((e) => e.action === action && e.allowed));
  }
  return out;
}
