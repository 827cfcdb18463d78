import type { Tx } from '../db/index.ts';
import { listHierarchies, type HierarchyNode } from '../tenancy/hierarchies.ts';
import { formatScope, parseScope, type Scope, type ScopeSubject } from '../tenancy/scope.ts';

/** One option of a board's scope picker: `level:id`, indented under its parent. */
export type ScopeOption = { value: string; label: string; depth: number };

/**
 * The boards' `scope` parameter (as the lists read it) and the picker's options: only the nodes the
 * viewer may see (listHierarchies keeps a restricted user's subtrees), in tree order.
 */
export async function boardScope(
  tx: Tx,
  subject: ScopeSubject,
  raw: string | null,
): Promise<{ scope: Scope | null; value: string; options: ScopeOption[] }> {
  const scope = parseScope(raw);
  const options: ScopeOption[] = [];
  const walk = (nodes: HierarchyNode[], depth: number) => {
    for (const node of nodes) {
      options.push({ value: `${node.level}:${node.id}`, label: node.name, depth });
      walk(node.children, depth + 1);
    }
  };
  walk(await listHierarchies(tx, subject), 0);
  return { scope, value: scope ? formatScope(scope) : '', options };
}
