import { contentDisposition } from '../http/content-disposition.ts';
import { AppError } from '../errors/app-error.ts';
import { getDb, type Db } from '../db/index.ts';
import { errorResponse, json } from '../http/respond.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { allowedActions } from '../auth/allowed-actions.ts';
import { actorFromPrincipal } from '../lending/actor.ts';
import { apiContext, type ApiContext } from '../lending/api.ts';
import { resolveScopeNodes } from '../tenancy/scope.ts';
import { importBankStatement } from '../bank-statements/import.ts';
import {
  creditAnalysis,
  repaymentBehaviour,
  riskClassHistory,
  transactionMetrics,
} from '../customer-analytics/analytics.ts';
import {
  assertCustomerVisible,
  auditDownload,
  customerFileJson,
  getCustomerFile,
  listCustomerFiles,
  readCustomerFile,
  uploadCustomerFile,
  isFileKind,
} from './files.ts';

/**
 * The customer files API (customer.files.*), Astro-free so it can be tested with plain Requests:
 *   GET  /v1/customers/{id}/files            list (customer.files.view)
 *   POST /v1/customers/{id}/files?kind=&name= raw body upload (customer.files.upload); Content-Type and
 *        Content-Length are checked before the body is read (400 / 413)
 *   GET  /v1/customers/{id}/files/{fileId}   download (customer.files.download), audited
 * The permission in brackets is the route manifest's rule for the route, decided by the guard before
 * these run; here only the customer's scope is checked: one outside the caller's hierarchy scope answers 404.
 */
export type FilesApiContext = ApiContext & { customerId: string; fileId?: string; root?: string };

function signedIn(ctx: FilesApiContext) {
  const principal = requirePrincipal(ctx.principal);
  return { principal, actor: actorFromPrincipal(principal, { ip: ctx.ip, requestId: ctx.requestId }) };
}

async function dbOf(ctx: FilesApiContext): Promise<Db> {
  return ctx.db ?? getDb();
}

export async function listFilesHttp(ctx: FilesApiContext): Promise<Response> {
  try {
    const { principal } = signedIn(ctx);
    const db = await dbOf(ctx);
    const kind = new URL(ctx.request.url).searchParams.get('kind');
    if (kind !== null && !isFileKind(kind))
      throw new AppError('BAD_REQUEST', 'kind must be document, bureau_pdf or bank_statement', { field: 'kind' });
    const files = await db.tenant(principal.tenantId, async (tx) => {
      await assertCustomerVisible(tx, ctx.customerId, await resolveScopeNodes(tx, principal, null));
      return listCustomerFiles(tx, ctx.customerId, kind ?? undefined);
    });
    return json({ items: files.map(customerFileJson) });
  } catch (error) {
    return errorResponse(error, ctx.requestId);
  }
}

export async function uploadFileHttp(ctx: FilesApiContext): Promise<Response> {
  try {
    const { actor } = signedIn(ctx);
    const db = await dbOf(ctx);
    const url = new URL(ctx.request.url);
    const length = ctx.request.headers.get('content-length');
    const file = await uploadCustomerFile(
      db,
      actor,
      {
        customerId: ctx.customerId,
        kind: url.searchParams.get('kind') ?? 'document',
        fileName: url.searchParams.get('name') ?? '',
        contentType: ctx.request.headers.get('content-type') ?? '',
        declaredLength: length === null ? null : Number(length),
        body: ctx.request.body,
      },
      { root: ctx.root },
    );
    return json(customerFileJson(file), { status: 201 });
  } catch (error) {
    return errorResponse(error, ctx.requestId);
  }
}

export async function downloadFileHttp(ctx: FilesApiContext): Promise<Response> {
  try {
    const { principal, actor } = signedIn(ctx);
    const db = await dbOf(ctx);
    const file = await db.tenant(principal.tenantId, async (tx) => {
      const row = await getCustomerFile(
        tx,
        ctx.customerId,
        ctx.fileId ?? '',
        await resolveScopeNodes(tx, principal, null),
      );
      await auditDownload(tx, actor, row);
      return row;
    });
    const bytes = await readCustomerFile(file, ctx.root);
    return new Response(new Uint8Array(bytes), {
      headers: {
        'content-type': file.content_type,
        'content-length': String(bytes.length),
        'content-disposition': contentDisposition('attachment', file.file_name),
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-store',
      },
    });
  } catch (error) {
    return errorResponse(error, ctx.requestId);
  }
}

export function filesContext(
  context: Parameters<typeof apiContext>[0] & { params: Record<string, string | undefined> },
): FilesApiContext {
  return { ...apiContext(context), customerId: context.params.id ?? '', fileId: context.params.fileId };
}

/** POST /v1/customers/{id}/bank-statements?name=… (raw CSV body; customer.bank_statements.import, implied by files.upload with bank_statements.view): 201 the import, 422 with details.rows, 409 if already imported. */
export async function importStatementHttp(ctx: FilesApiContext): Promise<Response> {
  try {
    const { actor } = signedIn(ctx);
    const db = await dbOf(ctx);
    const url = new URL(ctx.request.url);
    const length = ctx.request.headers.get('content-length');
    const { import: created, file } = await importBankStatement(
      db,
      actor,
      {
        customerId: ctx.customerId,
        fileName: url.searchParams.get('name') ?? 'statement.csv',
        contentType: ctx.request.headers.get('content-type') ?? '',
        declaredLength: length === null ? null : Number(length),
        body: ctx.request.body,
      },
      { root: ctx.root },
    );
    return json(
      {
        id: created.id,
        fileId: file.id,
        rowCount: created.row_count,
        firstDate: created.first_date,
        lastDate: created.last_date,
        currency: created.currency.trim(),
      },
      { status: 201 },
    );
  } catch (error) {
    return errorResponse(error, ctx.requestId);
  }
}

/**
 * GET /v1/customers/{id}/analytics → the profile's computed views as JSON (money as minor-unit strings):
 * transaction metrics and repayment behaviour (customer.profile.view), and the credit analysis when the
 * caller has customer.credit_analysis.view.
 */
export async function analyticsHttp(ctx: FilesApiContext): Promise<Response> {
  try {
    const { principal } = signedIn(ctx);
    const db = await dbOf(ctx);
    const body = await db.tenant(principal.tenantId, async (tx) => {
      await assertCustomerVisible(tx, ctx.customerId, await resolveScopeNodes(tx, principal, null));
      const [tenant] = await tx.query<{ business_date: string }>(
        `select to_char(business_date, 'YYYY-MM-DD') as business_date from tenants where id = $1`,
        [principal.tenantId],
      );
      return {
        businessDate: tenant.business_date,
        metrics: await transactionMetrics(tx, ctx.customerId, { untilDate: tenant.business_date }),
        repaymentBehaviour: await repaymentBehaviour(tx, ctx.customerId, tenant.business_date),
        riskClassHistory: await riskClassHistory(tx, ctx.customerId),
        creditAnalysis: allowedActions(principal, 'customer').seeCreditAnalysis
          ? await creditAnalysis(tx, ctx.customerId, tenant.business_date)
          : null,
      };
    });
    return json(body);
  } catch (error) {
    return errorResponse(error, ctx.requestId);
  }
}
