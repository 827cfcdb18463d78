/**
 * Page glue of the customer profile (/{section}/customer/profile/:customerId/…), shared by the one
 * `[section]` route (src/pages/[section]/customer/profile/[customerId]/[...sub].astro). Loads the customer inside the
 * caller's hierarchy scope (outside → 404, as if it did not exist), lists the tabs the caller may open, and runs the
 * profile's form posts (opt in / out, uploads, deletes, bank statements), each shown and allowed by allowedActions
 * (src/lib/auth). Pages stay thin.
 */
import type { AstroGlobal } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { pageDb, type Db, type Tx } from '../../server/db.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { allowedActions, mayOpen, type ActionsOf } from '#lib/auth/allowed-actions.ts';
import { actorFromPrincipal, type Actor } from '#lib/lending/actor.ts';
import { getCustomer, type CustomerRow } from '#lib/lending/customers.ts';
import { optInCustomerCommand, optOutCustomerCommand } from '#lib/lending/customer-commands.ts';
import { formCommand } from '../pages/form-command.ts';
import { updateCustomerCustomFieldsCommand } from '#lib/forms/custom-field-commands.ts';
import { unprefixed } from '#lib/forms/custom-fields.ts';
import { forceEligibilityCommand } from '#lib/strategies/eligibility.ts';
import { resolveScopeNodes } from '#lib/tenancy/scope.ts';
import { assertCustomerVisible, deleteCustomerFile, FILE_RULES, storeCustomerFile } from '#lib/customer-files/files.ts';
import { readUploadForm } from '#lib/customer-files/form-upload.ts';
import { importBankStatement } from '#lib/bank-statements/import.ts';
import type { LayoutSection } from '#lib/auth/route-manifest.ts';
import { isClosedLoanOf } from '#lib/customer-analytics/profile-queries.ts';
import { tenantMoneyDay } from '#lib/tenancy/tenant.ts';

/** The profile is shown in every section with a layout (src/pages/[section]/customer/profile/…). */
export type ProfileSection = LayoutSection;

/** The tabs of the profile shell, in order; each is shown when the caller may open its page (canOpenTab). */
export const PROFILE_TABS: { key: string }[] = [
  { key: 'resume' },
  { key: 'transaction-metrics' },
  { key: 'files' },
  { key: 'collaterals' },
  { key: 'offers' },
  { key: 'loans' },
  { key: 'transactions' },
  { key: 'repayment-behavior' },
  { key: 'class' },
  { key: 'upload-bureau-pdf' },
  { key: 'bank-statements' },
  { key: 'credit-analysis' },
];

/** Subpaths this dispatcher renders; anything else under the profile is the section's 404. */
export type ProfileView = { kind: 'tab'; tab: string } | { kind: 'closed-loan'; loanId: string };

export function parseProfileSub(sub: string | undefined): ProfileView | null {
  const parts = (sub ?? '').split('/').filter(Boolean);
  if (parts.length === 0) return { kind: 'tab', tab: 'resume' };
  if (parts.length === 1 && PROFILE_TABS.some((t) => t.key === parts[0])) return { kind: 'tab', tab: parts[0] };
  if (parts.length === 2 && parts[0] === 'closed-loans') return { kind: 'closed-loan', loanId: parts[1] };
  return null;
}

export type ProfileContext = {
  db: Db;
  principal: Principal;
  actor: Actor;
  customer: CustomerRow;
  scopeNodes: string[] | null;
  section: ProfileSection;
  base: string;
  currency: string;
  businessDate: string;
};

function clientAddress(Astro: AstroGlobal): string | null {
  try {
    return Astro.clientAddress ?? null;
  } catch {
    return null;
  }
}

export async function loadProfile(Astro: AstroGlobal, section: ProfileSection): Promise<ProfileContext | null> {
  const principal = Astro.locals.principal;
  if (!principal) return null;
  const db = await pageDb();
  const customerId = Astro.params.customerId ?? '';
  try {
    return await db.tenant(principal.tenantId, async (tx) => {
      const scopeNodes = await resolveScopeNodes(tx, principal, null);
      await assertCustomerVisible(tx, customerId, scopeNodes);
      const customer = await getCustomer(tx, customerId);
      const { currency, businessDate } = await tenantMoneyDay(tx, principal.tenantId);
      return {
        db,
        principal,
        customer,
        scopeNodes,
        section,
        currency,
        businessDate,
        actor: actorFromPrincipal(principal, { ip: clientAddress(Astro), requestId: Astro.locals.requestId ?? null }),
        base: `/${section}/customer/profile/${customer.id}`,
      };
    });
  } catch (error) {
    if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'BAD_REQUEST')) return null;
    throw error;
  }
}

export function inTenant<T>(ctx: ProfileContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return ctx.db.tenant(ctx.principal.tenantId, fn);
}

export type PostOutcome = {
  redirect?: string;
  error?: {
    field?: string;
    message: string;
    rows?: { row: number; field: string; message: string }[];
    /** A refusal's details (the customized fields' errors, issue 13). */
    details?: Record<string, unknown>;
  };
  /** The values posted by a refused form, shown again (the customized fields' form). */
  posted?: Record<string, string>;
};

/** What the profile's pages can offer on a customer (src/lib/auth/allowed-actions.ts). */
export type CustomerAction = keyof ActionsOf<'customer'>;

function need(ctx: ProfileContext, action: CustomerAction): void {
  if (!can(ctx, action)) throw new AppError('FORBIDDEN', 'You do not have permission to do this');
}

/**
 * The profile's form posts (they work without JavaScript). Success: 303 back to the tab with a notice,
 * so a reload does not post again. Failure: the message, naming the field (and the faulty CSV rows).
 * Opting in or out runs its command through the form adapter (components/pages/form-command.ts). The
 * uploads read a multipart body as a stream under a byte limit and write the file before its row, so
 * they are not a one-transaction command: they stay here, with the same answers.
 */
export async function handleProfilePost(Astro: AstroGlobal, ctx: ProfileContext, tab: string): Promise<PostOutcome> {
  if (Astro.request.method !== 'POST') return {};
  const back = (notice: string) => ({ redirect: `${ctx.base}/${tab}?done=${notice}` });
  try {
    if (tab === 'resume') {
      const form = await Astro.request.formData();
      // Customized fields (issue 13): the same command as PATCH /v1/customers/{id}.
      if (form.get('_action') === 'custom-fields') {
        const outcome = await formCommand(Astro, updateCustomerCustomFieldsCommand, {
          form,
          objectId: ctx.customer.id,
          input: (v) => ({
            customerId: ctx.customer.id,
            version: v.version ?? '',
            posted: unprefixed(v),
          }),
          redirect: () => back('saved').redirect,
        });
        return outcome.kind === 'redirect'
          ? { redirect: outcome.location }
          : { error: { ...outcome.error, details: outcome.details }, posted: outcome.values };
      }
      const status = String(form.get('status') ?? '');
      if (status !== 'opted_in' && status !== 'opted_out')
        throw new AppError('BAD_REQUEST', 'status must be opted_in or opted_out', { field: 'status' });
      // The same command as POST /v1/customers/{id}/opt-in|opt-out, through the form adapter.
      const outcome = await formCommand(Astro, status === 'opted_in' ? optInCustomerCommand : optOutCustomerCommand, {
        form,
        objectId: ctx.customer.id,
        input: (v) => ({ customerId: ctx.customer.id, reason: v.reason ?? '' }),
        redirect: () => back(status).redirect,
      });
      return outcome.kind === 'redirect' ? { redirect: outcome.location } : { error: outcome.error };
    }
    if (tab === 'offers') {
      // Force eligibility: the same command as POST /v1/customers/{id}/eligibility-overrides.
      const outcome = await formCommand(Astro, forceEligibilityCommand, {
        form: await Astro.request.formData(),
        objectId: ctx.customer.id,
        input: (v) => ({ customerId: ctx.customer.id, reason: v.reason ?? '', strategyId: v.strategyId || null }),
        redirect: () => back('saved').redirect,
      });
      return outcome.kind === 'redirect' ? { redirect: outcome.location } : { error: outcome.error };
    }
    if (tab === 'files' || tab === 'upload-bureau-pdf') {
      const type = Astro.request.headers.get('content-type') ?? '';
      if (!type.startsWith('multipart/')) {
        const form = await Astro.request.formData();
        if (form.get('_action') !== 'delete')
          throw new AppError('BAD_REQUEST', 'Choose a file to upload', { field: 'file' });
        need(ctx, 'deleteFile');
        await deleteCustomerFile(ctx.db, ctx.actor, ctx.customer.id, String(form.get('fileId') ?? ''));
        return back('deleted');
      }
      need(ctx, 'uploadFile');
      const kind = tab === 'files' ? 'document' : 'bureau_pdf';
      const upload = await readUploadForm(Astro.request, kind, FILE_RULES[kind].maxBytes);
      if (!upload.file) throw new AppError('BAD_REQUEST', 'Choose a file to upload', { field: 'file' });
      await storeCustomerFile(ctx.db, ctx.actor, { customerId: ctx.customer.id, kind, ...upload.file });
      return back('uploaded');
    }
    if (tab === 'bank-statements') {
      need(ctx, 'importBankStatement');
      const upload = await readUploadForm(Astro.request, 'bank_statement', FILE_RULES.bank_statement.maxBytes);
      if (!upload.file) throw new AppError('BAD_REQUEST', 'Choose a file to upload', { field: 'file' });
      const file = upload.file;
      const body = new Blob([new Uint8Array(file.bytes)]).stream();
      await importBankStatement(ctx.db, ctx.actor, {
        customerId: ctx.customer.id,
        fileName: file.fileName,
        contentType: file.contentType,
        declaredLength: file.bytes.length,
        body,
      });
      return back('imported');
    }
    throw new AppError('BAD_REQUEST', 'Nothing to submit on this page');
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    Astro.response.status = error.status;
    const rows = (error.details?.rows as { row: number; field: string; message: string }[] | undefined) ?? undefined;
    return { error: { field: error.field, message: error.message, rows } };
  }
}

export function can(ctx: ProfileContext, action: CustomerAction): boolean {
  return allowedActions(ctx.principal, 'customer')[action];
}

/** Whether the caller may open this tab of the profile: its page's rule in the route manifest. */
export function canOpenTab(ctx: ProfileContext, key: string): boolean {
  return mayOpen(ctx.principal, `${ctx.base}/${key}`);
}

export type ProfileRun =
  | { kind: 'not-found' }
  | { kind: 'redirect'; location: string }
  | { kind: 'ok'; ctx: ProfileContext; view: ProfileView; outcome: PostOutcome; notice: string | null };

/** Everything a section's profile dispatcher does before rendering. */
export async function runProfile(Astro: AstroGlobal, section: ProfileSection): Promise<ProfileRun> {
  const view = parseProfileSub(Astro.params.sub);
  if (!view) return { kind: 'not-found' };
  const ctx = await loadProfile(Astro, section);
  if (!ctx) return { kind: 'not-found' };
  // closed-loans/:loanId shows only a closed loan of this very customer; anything else is a 404.
  if (view.kind === 'closed-loan' && !(await inTenant(ctx, (tx) => isClosedLoanOf(tx, ctx.customer.id, view.loanId))))
    return { kind: 'not-found' };
  const outcome = view.kind === 'tab' ? await handleProfilePost(Astro, ctx, view.tab) : {};
  if (outcome.redirect) return { kind: 'redirect', location: outcome.redirect };
  const done = Astro.url.searchParams.get('done');
  const notice = done && /^[a-z_]{1,20}$/.test(done) ? done : null;
  return { kind: 'ok', ctx, view, outcome, notice };
}
