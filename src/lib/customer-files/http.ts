import { AppError } from '../errors/app-error.ts';
import { getDb, type Db } from '../db/index.ts';
import { errorResponse, json } from '../http/respond.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { hasPermission, type PermissionKey } from '../auth/permissions.ts';
import { actorFromPrincipal } from '../lending/actor.ts';
import { apiContext, type ApiContext } from '../lending/api.ts';
import { resolveScopeNodes } from '../tenancy/scope.ts';
import { assertCustomerVisible, auditDownload, customerFileJson, getCustomerFile, listCustomerFiles, readCustomerFile, uploadCustomerFile, isFileKind } from './files.ts';

/**
 * The customer files API (spec §6 customer.files.*), Astro-free so it can be tested with plain Requests:
 *   GET  /v1/customers/{id}/files            list (customer.files.view)
 *   POST /v1/customers/{id}/files?kind=&name= raw body upload (customer.files.upload); Content-Type and
 *        Content-Length are checked before the body is read (400 / 413)
 *   GET  /v1/customers/{id}/files/{fileId}   download (customer.files.download), audited
 * A customer outside the caller's hierarchy scope answers 404.
 */
export type FilesApiContext = ApiContext & { customerId: string; fileId?: string; root?: string };

function authorise(ctx: FilesApiContext, permission: PermissionKey) {
  const principal = requirePrincipal(ctx.principal);
  if (!hasPermission(principal, permission)) throw new AppError('FORBIDDEN', 'You do not have permission to do this');
  return { principal, actor: actorFromPrincipal(principal, { ip: ctx.ip, requestId: ctx.requestId }) };
}

async function dbOf(ctx: FilesApiContext): Promise<Db> {
  return ctx.db ?? getDb();
}

export async function listFilesHttp(ctx: FilesApiContext): Promise<Response> {
  try {
    const { principal } = authorise(ctx, 'customer.files.view');
    const db = await dbOf(ctx);
    const kind = new URL(ctx.request.url).searchParams.get('kind');
    if (kind !== null && !isFileKind(kind)) throw new AppError('BAD_REQUEST', 'kind must be document, bureau_pdf or bank_statement', { field: 'kind' });
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
    const { principal, actor } = authorise(ctx, 'customer.files.upload');
    const db = await dbOf(ctx);
    const url = new URL(ctx.request.url);
    const length = ctx.request.headers.get('content-length');
    const scopeNodes = await db.tenant(principal.tenantId, (tx) => resolveScopeNodes(tx, principal, null));
    const file = await uploadCustomerFile(db, actor, {
      customerId: ctx.customerId, kind: url.searchParams.get('kind') ?? 'document', fileName: url.searchParams.get('name') ?? '',
      contentType: ctx.request.headers.get('content-type') ?? '', declaredLength: length === null ? null : Number(length), body: ctx.request.body,
    }, { scopeNodes, root: ctx.root });
    return json(customerFileJson(file), { status: 201 });
  } catch (error) {
    return errorResponse(error, ctx.requestId);
  }
}

export async function downloadFileHttp(ctx: FilesApiContext): Promise<Response> {
  try {
    const { principal, actor } = authorise(ctx, 'customer.files.download');
    const db = await dbOf(ctx);
    const file = await db.tenant(principal.tenantId, async (tx) => {
      const row = await getCustomerFile(tx, ctx.customerId, ctx.fileId ?? '', await resolveScopeNodes(tx, principal, null));
      await auditDownload(tx, actor, row);
      return row;
    });
    const bytes = await readCustomerFile(file, ctx.root);
    return new Response(new Uint8Array(bytes), {
      headers: {
        'content-type': file.content_type,
        'content-length': String(bytes.length),
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.file_name)}`,
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-store',
      },
    });
  } catch (error) {
    return errorResponse(error, ctx.requestId);
  }
}

export function filesContext(context: Parameters<typeof apiContext>[0] & { params: Record<string, string | undefined> }): FilesApiContext {
  return { ...apiContext(context), customerId: context.params.id ?? '', fileId: context.params.fileId };
}
