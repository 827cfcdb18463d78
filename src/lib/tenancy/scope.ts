/**
 * The hierarchy scope of lists ("Scope parameter"): `scope=level:id` narrows a list, count,
 * search or export to one node of the tenant's region → branch → officer hierarchy, and a user's data
 * permissions (data_permissions on the fields region / branch / officer, valued with node
 * codes) restrict what they may see at all. Both become ONE SQL filter fragment here.
 *
 * How the loans workspace uses it, for EVERY list, count, search and export query:
 *
 *   const scope = parseScope(url.searchParams.get('scope'));           // 400 naming 'scope' if malformed
 *   const filter = await scopeFilter(tx, principal, scope, {
 *     columns: ['c.branch_id', 'c.officer_id'],                         // the row's hierarchy node columns
 *     firstParam: params.length + 1,                                    // next free $n of your query
 *   });
 *   const rows = await tx.query(`select … from customers c where ${filter.sql} and …`, [...params, ...filter.params]);
 *
 * Rules (tested in tests/integration/access-scope.test.ts):
 *  - An administrator, or a user with no hierarchy data permission, is unrestricted.
 *  - Hierarchy permissions of a user form one allowed set (branch A + region R = both), expanded to
 *    every node below them (a region covers its branches and their officers).
 *  - A scope narrows to its node and everything below it, intersected with the allowed set: a scope
 *    can only narrow, never widen. A scope outside the allowed set, or naming no node, matches no row.
 *  - A permission naming a code that does not exist allows nothing (fail closed), never everything.
 *  - Data permissions on other fields (not region/branch/officer) do not restrict by hierarchy.
 * A row matches when ANY of its node columns is in the resulting set (a customer with branch_id in
 * it, or an officer_id in it). The fragment is parameterised; it never interpolates request values.
 */
import { z } from 'zod';
import type { DataPermission } from '../auth/principal.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import type { HierarchyNodesRow } from '../db/schema.generated.ts';

export const HIERARCHY_LEVELS = ['region', 'branch', 'officer'] as const;
export type HierarchyLevel = (typeof HIERARCHY_LEVELS)[number];

/** A parsed `scope` parameter, named as the API names it. */
export type Scope = { hierarchy_level: HierarchyLevel; hierarchy_id: string };

const scopeIdSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/);

/**
 * Parses `level:id` (id = the node's uuid or its code). Empty or absent → null (no narrowing).
 * Anything else malformed → 400 naming the field 'scope'.
 */
export function parseScope(value: string | null | undefined): Scope | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const colon = value.indexOf(':');
  const level = colon > 0 ? value.slice(0, colon) : '';
  const id = colon > 0 ? value.slice(colon + 1) : '';
  if (!(HIERARCHY_LEVELS as readonly string[]).includes(level) || !scopeIdSchema.safeParse(id).success) {
    throw new AppError('BAD_REQUEST', "scope must look like 'branch:<id>' with level region, branch or officer", {
      field: 'scope',
    });
  }
  return { hierarchy_level: level as HierarchyLevel, hierarchy_id: id };
}

export function formatScope(scope: Scope): string {
  return `${scope.hierarchy_level}:${scope.hierarchy_id}`;
}

export type ScopeSubject = { isAdmin: boolean; dataPermissions: readonly DataPermission[] };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The hierarchy node ids the subject may see under the scope, or null when unrestricted. One query
 * (a recursive walk down from the permitted and scoped nodes).
 */
export async function resolveScopeNodes(tx: Tx, subject: ScopeSubject, scope: Scope | null): Promise<string[] | null> {
  const permissions = subject.isAdmin
    ? []
    : subject.dataPermissions.filter((p) => (HIERARCHY_LEVELS as readonly string[]).includes(p.field));
  const isRestricted = permissions.length > 0;
  if (!isRestricted && !scope) return null;
  const scopeLevel = scope?.hierarchy_level ?? null;
  const scopeId = scope && UUID.test(scope.hierarchy_id) ? scope.hierarchy_id : null;
  const scopeCode = scope && !UUID.test(scope.hierarchy_id) ? scope.hierarchy_id : null;
  const rows = await tx.query<Pick<HierarchyNodesRow, 'id'>>(
    `with recursive
       allowed_roots as (
         select n.id from hierarchy_nodes n join unnest($1::text[], $2::text[]) as p(level, code) on n.level = p.level and n.code = p.code
       ),
       allowed as (
         select id from allowed_roots
         union select c.id from hierarchy_nodes c join allowed a on c.parent_id = a.id
       ),
       scoped_roots as (
         select n.id from hierarchy_nodes n
          where $4::text is not null and n.level = $4 and (n.id = $5::uuid or n.code = $6)
       ),
       scoped as (
         select id from scoped_roots
         union select c.id from hierarchy_nodes c join scoped s on c.parent_id = s.id
       )
     select n.id::text as id from hierarchy_nodes n
      where (not $3::boolean or n.id in (select id from allowed))
        and ($4::text is null or n.id in (select id from scoped))`,
    [permissions.map((p) => p.field), permissions.map((p) => p.value), isRestricted, scopeLevel, scopeId, scopeCode],
  );
  return rows.map((r) => r.id);
}

export type ScopeFilter = { sql: string; params: unknown[] };

/**
 * The SQL fragment restricting rows to the subject's scope: 'true' when unrestricted, 'false' when
 * nothing is allowed, else `(col1 = any($n::uuid[]) or col2 = any($n::uuid[]))` with one parameter.
 * `columns` are trusted SQL expressions from the caller's code, never request input.
 */
export async function scopeFilter(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  options: { columns: readonly string[]; firstParam: number },
): Promise<ScopeFilter> {
  if (options.columns.length === 0) throw new Error('scopeFilter needs at least one hierarchy column');
  const nodes = await resolveScopeNodes(tx, subject, scope);
  if (nodes === null) return { sql: 'true', params: [] };
  if (nodes.length === 0) return { sql: 'false', params: [] };
  const p = `$${options.firstParam}::uuid[]`;
  return { sql: `(${options.columns.map((c) => `${c} = any(${p})`).join(' or ')})`, params: [nodes] };
}
