import { allowedActions } from '../auth/allowed-actions.ts';
import { requirePrincipal, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors/app-error.ts';
import { findList, type ListEntry } from './registry.ts';

/**
 * The list named in a request, when the caller may open it: 401 signed out, 404 unknown list, 403
 * when the list's page is closed to them. What the route itself needs (e.g. loans.custom_views.edit)
 * the guard has already decided.
 */
export function listAccess(
  principalOrNone: Principal | undefined,
  name: string | undefined,
  requestId?: string,
): { principal: Principal; entry: ListEntry; actor: { tenantId: string; userId: string; requestId?: string } } {
  const principal = requirePrincipal(principalOrNone);
  const entry = findList(name ?? '');
  if (!entry) throw new AppError('NOT_FOUND', 'This list does not exist.', { field: 'list' });
  if (!allowedActions(principal, 'list', entry).open) {
    throw new AppError('FORBIDDEN', 'You may not do this on this list.');
  }
  return { principal, entry, actor: { tenantId: principal.tenantId, userId: principal.userId, requestId } };
}
