import { LANGUAGES } from './index.ts';
import { RESOURCES, type Namespace, type Resource } from './resources.ts';

/**
 * The shape of the bundled texts, per namespace and in both languages: their keys (leaves) and the
 * groups above them. A tenant override is laid on the bundle by dotted path (setPath in
 * translations.ts), so a key naming a group (`admin` in `nav`) would replace a whole subtree, and a
 * key under a text (`admin.users.x`) would turn that text into an object: neither may be reported
 * missing nor overridden.
 */
type Shape = { leaves: Set<string>; groups: Set<string> };

function walk(resource: Resource, prefix: string, shape: Shape): void {
  for (const [k, v] of Object.entries(resource)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') shape.leaves.add(key);
    else if (v && typeof v === 'object') {
      shape.groups.add(key);
      walk(v as Resource, key, shape);
    }
  }
}

const SHAPES: Record<string, Shape> = Object.fromEntries(
  (Object.keys(RESOURCES.en) as Namespace[]).map((ns) => {
    const shape: Shape = { leaves: new Set(), groups: new Set() };
    for (const lng of LANGUAGES) walk(RESOURCES[lng][ns] as Resource, '', shape);
    return [ns, shape];
  }),
);

/** The key is a bundled text in either language. */
export function isBundledKey(namespace: string, key: string): boolean {
  return SHAPES[namespace]?.leaves.has(key) ?? false;
}

/**
 * The key clashes with the bundle's structure: it names a group of bundled texts (a prefix of
 * bundled keys), or lies under a bundled text.
 */
export function clashesWithBundle(namespace: string, key: string): boolean {
  const shape = SHAPES[namespace];
  if (!shape) return false;
  if (shape.groups.has(key)) return true;
  const parts = key.split('.');
  for (let i = 1; i < parts.length; i++) if (shape.leaves.has(parts.slice(0, i).join('.'))) return true;
  return false;
}
