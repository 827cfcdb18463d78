import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { currencyDigits } from '../money/money.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { listCustomViews, getCustomView, type CustomView } from './custom-views.ts';
import type { ListEntry } from './registry.ts';
import type { ListDef } from './definition.ts';
import { withCustomColumns } from './custom-columns.ts';
import { loadList, type ListPage, type TabCounts } from './query.ts';
import { resolveRowScope, type ScopeSubject } from './row-scope.ts';
import { parseListState, type ListState, type ScopeParam, type StateIssue } from './url-state.ts';

export type ListViewer = ScopeSubject & {
  tenantId: string;
  userId: string;
  currency: string;
  /** Language of the customized-field columns' headers (default English). */
  language?: string;
};

export type ServedList = {
  /** The list as served: the registry's definition with the tenant's customized-field columns. */
  def: ListDef;
  state: ListState;
  issues: StateIssue[];
  page: ListPage;
  counts: TabCounts;
  /** Tabs whose count stopped at the cap (COUNT_CAP): show "1,000+", the real number is higher. */
  cappedTabs: string[];
  /** The active tab's row count (for "page n of m"); at least this many when `isTotalCapped`. */
  total: number;
  isTotalCapped: boolean;
  businessDate: string;
  views: CustomView[];
  activeView: CustomView | null;
};

/**
 * Everything a list page or GET /v1/lists/:name needs, in one tenant transaction: the state from
 * the URL, the viewer's row scope (data permissions and the scope filter), the page, the counts of
 * every tab (capped at COUNT_CAP, see query.ts) and the custom views. With `isStrict`, a malformed parameter is a 400 naming it (API);
 * pages instead fall back to defaults so an old bookmark still opens.
 */
export async function serveList(
  db: Db,
  viewer: ListViewer,
  entry: ListEntry,
  params: URLSearchParams,
  options: { isStrict?: boolean; countCap?: number } = {},
): Promise<ServedList> {
  return db.tenant(viewer.tenantId, async (tx) => {
    const def = await withCustomColumns(tx, entry.def, viewer.language ?? 'en');
    const { state, issues } = parseListState(def, params);
    if (options.isStrict && issues.length)
      throw new AppError('BAD_REQUEST', `${issues[0]!.param}: ${issues[0]!.message}`, { field: issues[0]!.param });
    const date = await businessDate(tx, viewer.tenantId);
    if (options.isStrict && state.scope && !(await scopeNodeExists(tx, state.scope))) {
      // Another tenant's branch, or none: named as not found rather than answered with an empty page.
      throw new AppError('NOT_FOUND', `scope: no ${state.scope.hierarchy_level} ${state.scope.hierarchy_id}`, {
        field: 'scope',
      });
    }
    const rowScope = await resolveRowScope(tx, viewer, state.scope);
    const { page, counts, cappedTabs } = await loadList(tx, def, state, {
      businessDate: date,
      currencyDigits: currencyDigits(viewer.currency),
      rowScope,
      countCap: options.countCap,
    });
    const actor = { tenantId: viewer.tenantId, userId: viewer.userId };
    const views = await listCustomViews(tx, actor, entry.def.name);
    const activeView = state.view
      ? (views.find((v) => v.id === state.view) ??
        (await getCustomView(tx, actor, entry.def.name, state.view).catch(() => null)))
      : null;
    return {
      def,
      state,
      issues,
      page,
      counts,
      cappedTabs,
      total: counts[state.tab] ?? 0,
      isTotalCapped: cappedTabs.includes(state.tab),
      businessDate: date,
      views,
      activeView,
    };
  });
}

/** Whether the scope's node exists in the tenant (row-level security hides other tenants' nodes). */
async function scopeNodeExists(tx: Tx, scope: ScopeParam): Promise<boolean> {
  const rows = await tx.query(
    `select 1 from hierarchy_nodes where level = $1 and (id::text = lower($2) or code = $2) limit 1`,
    [scope.hierarchy_level, scope.hierarchy_id],
  );
  return rows.length > 0;
}
