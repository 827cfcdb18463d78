/**
 * The tenant's organisation hierarchy (region → branch → officer, table hierarchy_nodes) as trees,
 * for GET /v1/hierarchies and the scope pickers. A user restricted by data permissions sees only the
 * subtrees they may open (src/lib/tenancy/scope.ts decides which), so a picker never offers a scope
 * that would show nothing.
 */
import type { Tx } from '../db/index.ts';
import { type HierarchyLevel, resolveScopeNodes, type ScopeSubject } from './scope.ts';
import type { HierarchyNodesRow } from '../db/schema.generated.ts';

/** A `hierarchy_nodes` row with its children; `user_id` is the staff user of an officer node. */
export type HierarchyNode = Pick<HierarchyNodesRow, 'id' | 'code' | 'name' | 'parent_id' | 'user_id'> & {
  level: HierarchyLevel;
  children: HierarchyNode[];
};

const LEVEL_ORDER: Record<HierarchyLevel, number> = { region: 0, branch: 1, officer: 2 };

export async function listHierarchies(tx: Tx, subject: ScopeSubject): Promise<HierarchyNode[]> {
  const allowed = await resolveScopeNodes(tx, subject, null);
  const rows = await tx.query<Omit<HierarchyNode, 'children'>>(
    `select id::text as id, level, code, name, parent_id::text as parent_id, user_id::text as user_id
       from hierarchy_nodes
      where ($1::uuid[] is null or id = any($1::uuid[]))
      order by name, code`,
    [allowed],
  );
  const byId = new Map(rows.map((r) => [r.id, { ...r, children: [] as HierarchyNode[] }]));
  const roots: HierarchyNode[] = [];
  for (const node of byId.values()) {
    const parent = node.parent_id ? byId.get(node.parent_id) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  roots.sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || a.name.localeCompare(b.name));
  return roots;
}
