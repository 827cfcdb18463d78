import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { handle, json } from '#lib/http/respond.ts';
import { publicTenantConfig, readTenantConfig } from '#lib/tenancy/config.ts';

/** The caller's tenant configuration, defaults filled in, without secrets. */
export const GET: APIRoute = ({ locals }) =>
  handle(locals.requestId, async () => {
    requirePrincipal(locals.principal);
    if (!locals.tenant) throw new AppError('UNAUTHORIZED', 'Sign in to continue.');
    return json(publicTenantConfig(readTenantConfig(locals.tenant)));
  });
