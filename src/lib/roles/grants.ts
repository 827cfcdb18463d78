import {
  AREAS,
  PERMISSION_KEYS,
  PERMISSION_TABLE,
  allows,
  need,
  type Area,
  type PermissionKey,
  type PermissionSubject,
} from '../auth/permissions.ts';

/**
 * What a role may hold, and what a holding grants. A role's `authorities` are grants: a full key of
 * the permission table (`loans.customers.view`), or one of its fallbacks (spec §6): a whole resource
 * (`loans.customers`) or a whole area (`loans`), which grant every action below them, including
 * actions the table gains later. Pure functions: the role commands, the editor and the matrix share them.
 */

/** Where a grant sits in the table. */
export type GrantLevel = 'area' | 'resource' | 'key';

const RESOURCE_GRANTS: ReadonlySet<string> = new Set(
  Object.entries(PERMISSION_TABLE).flatMap(([area, resources]) => Object.keys(resources).map((r) => `${area}.${r}`)),
);
const KEY_GRANTS: ReadonlySet<string> = new Set(PERMISSION_KEYS);

/** The level of a grant the table knows, or null for anything else (typos, implied keys, made-up areas). */
export function grantLevel(grant: string): GrantLevel | null {
  if ((AREAS as readonly string[]).includes(grant)) return 'area';
  if (RESOURCE_GRANTS.has(grant)) return 'resource';
  if (KEY_GRANTS.has(grant)) return 'key';
  return null;
}

/** The table keys a grant covers: itself for a key, every action below an area or a resource. */
export function keysUnder(grant: string): PermissionKey[] {
  return PERMISSION_KEYS.filter((key) => key === grant || key.startsWith(`${grant}.`));
}

/** Table order of grants: areas, resources and keys in the order the permission table lists them. */
const ORDER: ReadonlyMap<string, number> = new Map(
  AREAS.flatMap((area) => [
    area,
    ...Object.entries(PERMISSION_TABLE[area]).flatMap(([resource, actions]) => [
      `${area}.${resource}`,
      ...(actions as readonly string[]).map((a) => `${area}.${resource}.${a}`),
    ]),
  ]).map((grant, i) => [grant, i]),
);

/**
 * A role's grants as they are stored: each once, in table order, leaving out a key or resource that a
 * broader grant of the same set already covers (`loans` makes `loans.customers.view` say nothing more).
 * Callers check `grantLevel` first; unknown grants are not expected here.
 */
export function normaliseGrants(grants: readonly string[]): string[] {
  const set = new Set(grants);
  return [...set]
    .filter((grant) => {
      const parts = grant.split('.');
      for (let n = 1; n < parts.length; n++) if (set.has(parts.slice(0, n).join('.'))) return false;
      return true;
    })
    .sort((a, b) => (ORDER.get(a) ?? Infinity) - (ORDER.get(b) ?? Infinity));
}

/** How a role holds one key: the key itself, its resource, its area, or not at all. */
export type GrantSource = 'key' | 'resource' | 'area' | null;

/** Which of the role's grants gives it `key` (the most specific one), per the fallbacks of spec §6. */
export function grantSource(grants: ReadonlySet<string> | readonly string[], key: string): GrantSource {
  const set = grants instanceof Set ? grants : new Set(grants as readonly string[]);
  const [area, resource] = key.split('.');
  if (set.has(key)) return 'key';
  if (set.has(`${area}.${resource}`)) return 'resource';
  if (set.has(area)) return 'area';
  return null;
}

/** Every table key a set of grants gives (the count the editor shows, the users' effective rights). */
export function effectiveKeys(grants: readonly string[]): PermissionKey[] {
  const set = new Set(grants);
  return PERMISSION_KEYS.filter((key) => grantSource(set, key) !== null);
}

/**
 * The grants among `grants` that `subject` could not give away because they do not hold them
 * themselves: a grant is the subject's to give when they hold every table key it covers (an
 * administrator holds everything). Checked through `allows`, the one permission evaluator, so a
 * subject holding `loans` may give `loans.customers`, and one holding each action of customers may
 * give `loans.customers` too, but nobody gives what they could not do.
 */
export function grantsBeyond(subject: PermissionSubject, grants: readonly string[]): string[] {
  if (subject.isAdmin) return [];
  return grants.filter((grant) => keysUnder(grant).some((key) => !allows(subject, need(key))));
}

/** The permission table as a tree for the editor and the matrix: areas → resources → keys. */
export type GrantTree = {
  area: Area;
  resources: { resource: string; grant: string; keys: { key: PermissionKey; action: string }[] }[];
}[];

export const GRANT_TREE: GrantTree = AREAS.map((area) => ({
  area,
  resources: Object.entries(PERMISSION_TABLE[area]).map(([resource, actions]) => ({
    resource,
    grant: `${area}.${resource}`,
    keys: (actions as readonly string[]).map((action) => ({
      key: `${area}.${resource}.${action}` as PermissionKey,
      action,
    })),
  })),
}));
