import { LAYOUT_SECTIONS, type LayoutSection } from '#lib/auth/route-manifest.ts';
import { AppError } from '#lib/errors/app-error.ts';

/**
 * The `[section]` route parameter: the pages every section shows (customer profile and its flows, the
 * user's own profile and downloads, the section's 403 and 404) are one set of route files under
 * src/pages/[section]/, and the section is data. Only the sections of the one list
 * (LAYOUT_SECTIONS) are accepted; anything else is null, and the page answers the root 404.
 */
export function sectionParam(value: string | undefined): LayoutSection | null {
  return (LAYOUT_SECTIONS as readonly string[]).includes(value ?? '') ? (value as LayoutSection) : null;
}

/**
 * The section of a page that loads an object: an unknown one throws NOT_FOUND from the page's
 * frontmatter, before the first byte, and the client-errors middleware step answers the root 404
 * page with status 404 (the same answer as any other unknown path).
 */
export function requireSection(value: string | undefined): LayoutSection {
  const section = sectionParam(value);
  if (!section) throw new AppError('NOT_FOUND', 'No such page.');
  return section;
}
