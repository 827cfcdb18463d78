import { hasPermission } from '../auth/permissions.ts';
import { requirePrincipal, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors/app-error.ts';
import { findList, type ListEntry } from './registry.ts';

/**
 * The list named in a request, when the caller may act on it: 401 signed out, 404 unknown list,
 * 403 without the permission (the list's own, or the given one such as loans.custom_views.edit).
 */
export function listAccess(
  principalOrNone: Principal | undefined,
  name: string | undefined,
  permission?: string,
  requestId?: string,
): { principal: Principal; entry: ListEntry; actor: { tenantId: string; userId: string; requestId?: string } } {
  const principal = requirePrincipal(principalOrNone);
  const entry = findList(name ?? '');
  if (!entry) throw new AppError('NOT_FOUND', 'This list does not exist.', { field: 'list' });
  if (!hasPermission(principal, entry.permission) || (permission && !hasPermission(principal, permission))) {
    throw new AppError('FORBIDDEN', 'You may not do this on this list.');
  }
  return { principal, entry, actor: { tenantId: principal.tenantId, userId: principal.userId, requestId } };
}
