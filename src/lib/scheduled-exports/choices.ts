import type { Tx } from '../db/index.ts';
import type { UsersRow } from '../db/schema.generated.ts';
import { allowedActions } from '../auth/allowed-actions.ts';
import type { PermissionSubject } from '../auth/permissions.ts';
import { listCustomViews } from '../lists/custom-views.ts';
import { LISTS } from '../lists/registry.ts';
import { listSavedQueries } from '../analytics/queries.ts';
import type { ExportSource } from './model.ts';

/**
 * What the add and update forms offer: the lists the user may export with their own and shared
 * custom views, the saved queries, and the active staff users (failure alert recipients). A source is
 * one `<select>` value: `list:<name>`, `view:<name>:<viewId>` or `query:<id>`.
 */
export type SourceChoice = { value: string; kind: 'list' | 'view' | 'query'; list: string | null; label: string };
export type UserChoice = { id: string; name: string; email: string };

export async function formChoices(
  tx: Tx,
  user: PermissionSubject & { tenantId: string; userId: string },
): Promise<{ sources: SourceChoice[]; users: UserChoice[] }> {
  const sources: SourceChoice[] = [];
  for (const [name, entry] of Object.entries(LISTS)) {
    if (!allowedActions(user, 'list', entry).export) continue;
    sources.push({ value: `list:${name}`, kind: 'list', list: name, label: name });
    if (!entry.hasCustomViews) continue;
    for (const view of await listCustomViews(tx, user, name))
      sources.push({ value: `view:${name}:${view.id}`, kind: 'view', list: name, label: view.name });
  }
  for (const q of await listSavedQueries(tx))
    sources.push({ value: `query:${q.id}`, kind: 'query', list: null, label: q.name });
  const users = await tx.query<Pick<UsersRow, 'id' | 'display_name' | 'email'>>(
    'select id, display_name, email from users where is_active order by lower(display_name), id limit 500',
  );
  return { sources, users: users.map((u) => ({ id: u.id, name: u.display_name, email: u.email })) };
}

/** The `<select>` value of a stored source. */
export function sourceValue(source: ExportSource): string {
  if (source.kind === 'query') return `query:${source.queryId}`;
  return source.viewId ? `view:${source.list}:${source.viewId}` : `list:${source.list}`;
}

/** Names of the views and queries the exports read, for the list page's "source" column. */
export async function sourceNames(tx: Tx, sources: ExportSource[]): Promise<Map<string, string>> {
  const ids = sources.flatMap((s) => (s.kind === 'query' ? [s.queryId] : s.viewId ? [s.viewId] : []));
  if (!ids.length) return new Map();
  const rows = await tx.query<{ id: string; name: string }>(
    `select id::text as id, name from custom_views where id = any($1::uuid[])
     union all select id::text as id, name from saved_queries where id = any($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.name]));
}
