/**
 * The database handle for Astro pages, layouts and components. They hand it (or a transaction opened
 * on it) to functions of src/lib and never write SQL themselves: every query lives in src/lib/<area>.
 * Pages import the handle from here rather than from src/lib/db, so "no src/lib/db import under
 * src/pages, src/components, src/layouts" is a rule a linter can check.
 */
export { getDb as pageDb } from '#lib/db/index.ts';
export type { Db, Tx } from '#lib/db/index.ts';
