/**
 * Page glue of the customer profile (/{section}/customer/profile/:customerId/…), shared by the
 * four sections' dispatchers. Loads the customer inside the caller's hierarchy scope (outside → 404, as
 * if it did not exist), lists the tabs the caller may open, and runs the profile's form posts (opt in /
 * out, uploads, deletes, bank statements), each with its own permission. Pages stay thin.
 */
import type { AstroGlobal } from 'astro';
import { AppError } from '../../../../../lib/errors/app-error.ts';
import { getDb, type Db, type Tx } from '../../../../../lib/db/index.ts';
import type { Principal } from '../../../../../lib/auth/principal.ts';
import { hasPermission, type PermissionKey } from '../../../../../lib/auth/permissions.ts';
import { actorFromPrincipal, type Actor } from '../../../../../lib/lending/actor.ts';
import { getCustomer, setCustomerOptIn, type CustomerRow } from '../../../../../lib/lending/customers.ts';
import { resolveScopeNodes } from '../../../../../lib/tenancy/scope.ts';
import { assertCustomerVisible, deleteCustomerFile, FILE_RULES, storeCustomerFile } from '../../../../../lib/customer-files/files.ts';
import { readUploadForm } from '../../../../../lib/customer-files/form-upload.ts';
import { importBankStatement } from '../../../../../lib/bank-statements/import.ts';

export const PROFILE_SECTIONS = ['loans', 'admin', 'analytics', 'strategies'] as const;
export type ProfileSection = (typeof PROFILE_SECTIONS)[number];

/** The tabs of the profile shell, in order, with the permission the route manifest gives each. */
export const PROFILE_TABS: { key: string; permission: PermissionKey }[] = [
  { key: 'resume', permission: 'customer.profile.view' },
  { key: 'transaction-metrics', permission: 'customer.profile.view' },
  { key: 'files', permission: 'customer.files.view' },
  { key: 'collaterals', permission: 'loans.collaterals.view' },
  { key: 'offers', permission: 'loans.offers.view' },
  { key: 'loans', permission: 'loans.loans.view' },
  { key: 'transactions', permission: 'customer.profile.view' },
  { key: 'repayment-behavior', permission: 'customer.profile.view' },
  { key: 'class', permission: 'customer.profile.view' },
  { key: 'upload-bureau-pdf', permission: 'customer.bureau_pdf.view' },
  { key: 'bank-statements', permission: 'customer.bank_statements.view' },
  { key: 'credit-analysis', permission: 'customer.credit_analysis.view' },
];

/** Subpaths this dispatcher renders; anything else under the profile is the section's 404. */
export type ProfileView =
  | { kind: 'tab'; tab: string }
  | { kind: 'closed-loan'; loanId: string };

export function parseProfileSub(sub: string | undefined): ProfileView | null {
  const parts = (sub ?? '').split('/').filter(Boolean);
  if (parts.length === 0) return { kind: 'tab', tab: 'resume' };
  if (parts.length === 1 && PROFILE_TABS.some((t) => t.key === parts[0])) return { kind: 'tab', tab: parts[0] };
  if (parts.length === 2 && parts[0] === 'closed-loans') return { kind: 'closed-loan', loanId: parts[1] };
  return null;
}

export type ProfileContext = {
  db: Db; principal: Principal; actor: Actor; customer: CustomerRow; scopeNodes: string[] | null; section: ProfileSection;
  base: string; currency: string; businessDate: string;
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
  const db = await getDb();
  const customerId = Astro.params.customerId ?? '';
  try {
    return await db.tenant(principal.tenantId, async (tx) => {
      const scopeNodes = await resolveScopeNodes(tx, principal, null);
      await assertCustomerVisible(tx, customerId, scopeNodes);
      const customer = await getCustomer(tx, customerId);
      const [tenant] = await tx.query<{ currency: string; business_date: string }>(
        `select currency, to_char(business_date, 'YYYY-MM-DD') as business_date from tenants where id = $1`, [principal.tenantId]);
      return {
        db, principal, customer, scopeNodes, section, currency: tenant.currency.trim(), businessDate: tenant.business_date,
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

export type PostOutcome = { redirect?: string; error?: { field?: string; message: string; rows?: { row: number; field: string; message: string }[] } };

function need(ctx: ProfileContext, permission: PermissionKey): void {
  if (!hasPermission(ctx.principal, permission)) throw new AppError('FORBIDDEN', 'You do not have permission to do this');
}

/**
 * The profile's form posts (they work without JavaScript). Success: 303 back to the tab with a notice,
 * so a reload does not post again. Failure: the message, naming the field (and the faulty CSV rows).
 */
export async function handleProfilePost(Astro: AstroGlobal, ctx: ProfileContext, tab: string): Promise<PostOutcome> {
  if (Astro.request.method !== 'POST') return {};
  const back = (notice: string) => ({ redirect: `${ctx.base}/${tab}?done=${notice}` });
  try {
    if (tab === 'resume') {
      const form = await Astro.request.formData();
      const status = String(form.get('status') ?? '');
      if (status !== 'opted_in' && status !== 'opted_out') throw new AppError('BAD_REQUEST', 'status must be opted_in or opted_out', { field: 'status' });
      need(ctx, status === 'opted_in' ? 'loans.customers.opt_in' : 'loans.customers.opt_out');
      await inTenant(ctx, (tx) => setCustomerOptIn(tx, ctx.actor, ctx.customer.id, status, String(form.get('reason') ?? '')));
      return back(status);
    }
    if (tab === 'files' || tab === 'upload-bureau-pdf') {
      const type = Astro.request.headers.get('content-type') ?? '';
      if (!type.startsWith('multipart/')) {
        const form = await Astro.request.formData();
        if (form.get('_action') !== 'delete') throw new AppError('BAD_REQUEST', 'Choose a file to upload', { field: 'file' });
        need(ctx, 'customer.files.delete');
        await deleteCustomerFile(ctx.db, ctx.actor, ctx.customer.id, String(form.get('fileId') ?? ''));
        return back('deleted');
      }
      need(ctx, 'customer.files.upload');
      const kind = tab === 'files' ? 'document' : 'bureau_pdf';
      const upload = await readUploadForm(Astro.request, kind, FILE_RULES[kind].maxBytes);
      if (!upload.file) throw new AppError('BAD_REQUEST', 'Choose a file to upload', { field: 'file' });
      await storeCustomerFile(ctx.db, ctx.actor, { customerId: ctx.customer.id, kind, ...upload.file });
      return back('uploaded');
    }
    if (tab === 'bank-statements') {
      need(ctx, 'customer.files.upload');
      const upload = await readUploadForm(Astro.request, 'bank_statement', FILE_RULES.bank_statement.maxBytes);
      if (!upload.file) throw new AppError('BAD_REQUEST', 'Choose a file to upload', { field: 'file' });
      const file = upload.file;
      const body = new Blob([new Uint8Array(file.bytes)]).stream();
      await importBankStatement(ctx.db, ctx.actor, { customerId: ctx.customer.id, fileName: file.fileName, contentType: file.contentType, declaredLength: file.bytes.length, body });
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

export function can(ctx: ProfileContext, permission: PermissionKey): boolean {
  return hasPermission(ctx.principal, permission);
}

const CLOSED_STATUSES = ['CLOSED_OBLIGATIONS_MET', 'OVERPAID', 'CLOSED_WRITTEN_OFF'];

/** closed-loans/:loanId shows only a closed loan of this very customer; anything else is a 404. */
async function isClosedLoanOf(ctx: ProfileContext, loanId: string): Promise<boolean> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(loanId)) return false;
  const rows = await inTenant(ctx, (tx) => tx.query(`select 1 from loans where id = $1 and customer_id = $2 and status = any($3::text[])`, [loanId, ctx.customer.id, CLOSED_STATUSES]));
  return rows.length > 0;
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
  if (view.kind === 'closed-loan' && !(await isClosedLoanOf(ctx, view.loanId))) return { kind: 'not-found' };
  const outcome = view.kind === 'tab' ? await handleProfilePost(Astro, ctx, view.tab) : {};
  if (outcome.redirect) return { kind: 'redirect', location: outcome.redirect };
  const done = Astro.url.searchParams.get('done');
  const notice = done && /^[a-z_]{1,20}$/.test(done) ? done : null;
  return { kind: 'ok', ctx, view, outcome, notice };
}
