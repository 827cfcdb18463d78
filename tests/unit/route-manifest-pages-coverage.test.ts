import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPublicAsset } from '#lib/auth/guard.ts';
import { LAYOUT_SECTIONS, matchRoute } from '#lib/auth/route-manifest.ts';
import { LISTS } from '#lib/lists/registry.ts';

// Deny by default: a page file with no manifest route is unreachable (the guard answers 404). This
// test walks src/pages (outside /v1) and fails when a page has no entry in ROUTES, so every new page
// is declared with its section, permission and page-view event in src/lib/auth/route-manifest.ts.

const ROOT = path.resolve('src/pages');

function pageFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    // Astro does not route files or folders whose name starts with '_' (page helpers).
    if (d.name.startsWith('_')) return [];
    if (d.isDirectory()) return d.name === 'v1' && dir === ROOT ? [] : pageFiles(full);
    return /\.(astro|ts|js)$/.test(d.name) && !/\.test\.ts$/.test(d.name) ? [full] : [];
  });
}

// Two parameters are data rather than ids: `[section]` is one of the sections with a layout, and the
// page serves every one of them, so each must have its manifest route; `[list]` is a list of the
// registry (src/lib/lists/registry.ts), and the page answers 404 for the others, so at least one list
// must have the route (the custom-view pages exist only for lists with custom views).
const LIST_SEGMENTS = Object.values(LISTS).map((entry) => entry.path.split('/').pop()!);

function isDeclared(sample: string): boolean {
  return Boolean(matchRoute(sample === '/' ? '/' : sample.replace(/\/$/, '')) || isPublicAsset(sample));
}

describe('page manifest covers every page file', () => {
  const files = pageFiles(ROOT);
  it.each(files.map((f) => [path.relative(ROOT, f), f]))('%s', (rel) => {
    const route =
      '/' +
      rel
        .replace(/\\/g, '/')
        .replace(/\.(astro|ts|js)$/, '')
        .replace(/(^|\/)index$/, '');
    // Catch-all pages are the sections' 404 pages, reached by the guard's rewrite to /{section}/404.
    if (/\[\.\.\.\w+\]$/.test(route)) return;
    const sample = route.replace(/\[(?!section\]|list\])(\w+)\]/g, 'x-$1');
    const perSection = sample.includes('[section]')
      ? LAYOUT_SECTIONS.map((s) => sample.replace('[section]', s))
      : [sample];
    for (const path of perSection) {
      const candidates = path.includes('[list]') ? LIST_SEGMENTS.map((l) => path.replace('[list]', l)) : [path];
      expect(candidates.some(isDeclared), `${path} has no manifest route`).toBe(true);
    }
  });
});
