import type { APIRoute } from 'astro';
import { allowedActions } from '#lib/auth/allowed-actions.ts';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../server/db.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { handle, json } from '#lib/http/respond.ts';
import { findList } from '#lib/lists/registry.ts';
import { serveList } from '#lib/lists/serve.ts';
import { listQuery } from '#lib/lists/url-state.ts';

/**
 * GET /v1/lists/:name?<list URL state> → one page of a list with the counts of every tab, under the
 * caller's data permissions and scope. Same state and rules as the list page; a malformed parameter
 * is a 400 naming it. Answer: { list, state (query string), mode, page, limit, has_next, has_prev,
 * next_cursor, prev_cursor, columns: [{ key, type }], rows: [{ id, href, values, currencies }],
 * counts: { tab: n }, capped_tabs (tabs whose count stopped at the cap, a lower bound), total, is_total_capped, business_date }. Money is minor units as decimal strings.
 */
export const GET: APIRoute = ({ locals, params, url }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const entry = findList(params.name ?? '');
    // An unknown list and one the caller may not open answer alike, so names cannot be probed.
    if (!entry || !locals.tenant) throw new AppError('NOT_FOUND', 'This list does not exist.', { field: 'name' });
    if (!allowedActions(principal, 'list', entry).open) throw new AppError('FORBIDDEN', 'You may not open this list.');
    const served = await serveList(
      await pageDb(),
      {
        tenantId: principal.tenantId,
        userId: principal.userId,
        isAdmin: principal.isAdmin,
        dataPermissions: principal.dataPermissions,
        currency: locals.tenant.currency,
        language: locals.language,
      },
      entry,
      url.searchParams,
      { isStrict: true },
    );
    const { page } = served;
    return json({
      list: entry.def.name,
      state: listQuery(served.def, served.state),
      mode: page.mode,
      page: page.page,
      limit: page.limit,
      has_next: page.hasNext,
      has_prev: page.hasPrev,
      next_cursor: page.nextCursor,
      prev_cursor: page.prevCursor,
      columns: page.columns.map((c) => ({ key: c.key, type: c.type, ...(c.labelText ? { label: c.labelText } : {}) })),
      rows: page.rows,
      counts: served.counts,
      capped_tabs: served.cappedTabs,
      total: served.total,
      is_total_capped: served.isTotalCapped,
      business_date: served.businessDate,
    });
  });
