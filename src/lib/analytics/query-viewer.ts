import { allows, need, type PermissionSubject } from '../auth/permissions.ts';
import type { Principal } from '../auth/principal.ts';
import type { ListViewer } from '../lists/serve.ts';

/**
 * The viewer of a query's results and exports: the signed-in user's data permissions (rows) and
 * authorities (which datasets: a dataset needs its list page's permission), and the tenant currency.
 */
export type QueryViewer = ListViewer & PermissionSubject & { language: string };

export function listViewerOf(
  principal: Principal,
  tenant: { id: string; currency: string },
  language: string | undefined,
): QueryViewer {
  return {
    tenantId: tenant.id,
    userId: principal.userId,
    isAdmin: principal.isAdmin,
    authorities: principal.authorities,
    dataPermissions: principal.dataPermissions,
    currency: tenant.currency,
    language: language ?? 'en',
  };
}

/** What the viewer may do with queries besides opening them (the pages show only the allowed buttons). */
export type QueryCan = { edit: boolean; run: boolean; export: boolean };

export function queryCan(principal: Principal): QueryCan {
  return {
    edit: allows(principal, need('analytics.list_export.edit')),
    run: allows(principal, need('analytics.list_export.run_query')),
    export: allows(principal, need('analytics.list_export.export_query')),
  };
}
