/** Page glue of /loans/collection: the worklist and the collection view of one loan, and their form posts. */
import type { AstroGlobal } from 'astro';
import { requirePrincipal, type Principal } from '#lib/auth/principal.ts';
import { allows, need } from '#lib/auth/permissions.ts';
import {
  bucketSummaries,
  listCollectors,
  listWorklist,
  loadCollectionView,
  worklistFilters,
  type WorklistFilters,
} from '#lib/collection/worklist.ts';
import {
  assignCollectorCommand,
  listTemplates,
  logContactCommand,
  recordPromiseCommand,
  scheduleCallbackCommand,
  sendCollectionMessageCommand,
  takeCaseCommand,
} from '#lib/collection/commands.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { loanTimeline } from '#lib/timeline/index.ts';
import { formCommand, type FieldError, type FormValues } from '../pages/form-command.ts';
import { pageDb } from '../../server/db.ts';

export async function worklistData(Astro: AstroGlobal) {
  const principal = requirePrincipal(Astro.locals.principal);
  const db = await pageDb();
  const filters: WorklistFilters = worklistFilters(Astro.url.searchParams);
  return db.tenant(principal.tenantId, async (tx) => {
    const [buckets, page] = [await bucketSummaries(tx, principal, filters), await listWorklist(tx, principal, filters)];
    return { filters, buckets, ...page };
  });
}

const ACTIONS = {
  contact: logContactCommand,
  promise: recordPromiseCommand,
  callback: scheduleCallbackCommand,
  message: sendCollectionMessageCommand,
  assign: assignCollectorCommand,
  take: takeCaseCommand,
} as const;
export type CollectionAction = keyof typeof ACTIONS;

export type ActionRefusal = { action: string; error: FieldError; values: FormValues };

/** Runs the posted action of the collection view (a plain HTML form), or null when none was posted. */
export async function handleCollectionPost(
  Astro: AstroGlobal,
  loanId: string,
): Promise<{ redirect: string } | ActionRefusal | null> {
  if (Astro.request.method !== 'POST') return null;
  const form = await Astro.request.formData();
  const action = String(form.get('_action') ?? '');
  const command = Object.hasOwn(ACTIONS, action) ? ACTIONS[action as CollectionAction] : undefined;
  if (!command) throw new AppError('BAD_REQUEST', 'Unknown action', { field: '_action' });
  const done = action === 'take' ? 'assign' : action;
  const outcome = await formCommand(Astro, command as typeof logContactCommand, {
    form,
    objectId: loanId,
    input: (v) => ({ ...v, loanId }),
    redirect: () => `/loans/collection?loan=${encodeURIComponent(loanId)}&done=${done}`,
  });
  if (outcome.kind === 'redirect') return { redirect: outcome.location };
  return { action, error: outcome.error, values: outcome.values };
}

export async function collectionViewData(Astro: AstroGlobal, loanId: string) {
  const principal: Principal = requirePrincipal(Astro.locals.principal);
  const db = await pageDb();
  return db.tenant(principal.tenantId, async (tx) => {
    const view = await loadCollectionView(tx, principal, loanId);
    const canAssign = allows(principal, need('loans.tasks.manage'));
    return {
      view,
      timeline: await loanTimeline(tx, view.loan.id),
      templates: await listTemplates(tx),
      collectors: canAssign ? await listCollectors(tx) : [],
      canAssign,
      canRepay: allows(principal, need('loans.loans.repay')),
      userId: principal.userId,
    };
  });
}
