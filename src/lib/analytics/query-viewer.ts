import type { Principal } from '../auth/principal.ts';
import type { ListViewer } from '../lists/serve.ts';

/** The viewer of a query's results and exports: the signed-in user's data permissions and tenant currency. */
export function listViewerOf(
  principal: Principal,
  tenant: { id: string; currency: string },
  language: string | undefined,
): ListViewer & { language: string } {
  return {
    tenantId: tenant.id,
    userId: principal.userId,
    isAdmin: principal.isAdmin,
    dataPermissions: principal.dataPermissions,
    currency: tenant.currency,
    language: language ?? 'en',
  };
}
