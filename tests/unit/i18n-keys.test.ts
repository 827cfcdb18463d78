import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESOURCES, type Resource } from '#lib/i18n/resources.ts';

/**
 * Every literal key the shell passes to t() exists in the English bundle (and so, by the
 * completeness test, in French): a typo would otherwise show the raw key to users.
 */
const ROOTS = ['src/components', 'src/layouts', 'src/islands'];
const PAGES = [
  'src/pages/index.astro',
  'src/pages/403.astro',
  'src/pages/404.astro',
  'src/pages/500.astro',
  'src/pages/admin/platform/error-reports.astro',
  'src/pages/loans/403.astro',
  'src/pages/[section]/403.astro',
  'src/pages/[section]/[...rest].astro',
  'src/pages/[section]/user/profile.astro',
  'src/pages/[section]/user/downloads-list.astro',
];

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return files(full);
    return /\.(astro|tsx?)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function has(resource: Resource | string | undefined, parts: string[], wantsObject: boolean): boolean {
  if (parts.length === 0) return wantsObject ? typeof resource === 'object' : typeof resource === 'string';
  if (!resource || typeof resource === 'string') return false;
  return has(resource[parts[0]], parts.slice(1), wantsObject);
}

describe('translation keys used by the shell', () => {
  it('exist in the bundles', () => {
    const missing: string[] = [];
    for (const file of [...ROOTS.flatMap(files), ...PAGES.filter((p) => fs.existsSync(p))]) {
      const text = fs.readFileSync(file, 'utf8');
      // Files that take their own `t` from useTranslation('<ns>') default to that namespace.
      const defaultNs = /useTranslation\('(\w+)'\)/.exec(text)?.[1] ?? 'common';
      // t('ns:group', { returnObjects: true }) asks for a whole group of texts, not one string.
      for (const match of text.matchAll(/\bt\('([\w.:-]+)'(\s*,\s*\{\s*returnObjects:\s*true)?/g)) {
        const key = match[1];
        const wantsObject = Boolean(match[2]);
        const [ns, rest] = key.includes(':') ? key.split(':') : [defaultNs, key];
        const bundle = (RESOURCES.en as Record<string, Resource>)[ns];
        if (!bundle) continue; // another engineer's namespace, checked by its own tests
        if (!has(bundle, rest.split('.'), wantsObject)) missing.push(`${path.relative(process.cwd(), file)}: ${key}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
