import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPublicAsset } from '#lib/auth/guard.ts';
import { isRuleKey, type Rule } from '#lib/auth/permissions.ts';
import {
  API_ROUTES,
  LAYOUT_SECTIONS,
  ROUTES,
  matchApiRoute,
  matchRoute,
  type HttpMethod,
} from '#lib/auth/route-manifest.ts';
import { LISTS } from '#lib/lists/registry.ts';

// One permission point. Deny by default means a page or endpoint missing from the manifest answers
// 404 through the guard; this test walks src/pages and proves the other half: every page and every
// (/v1 route, exported method) resolves to exactly one manifest entry carrying exactly one rule
// (public, signed-in, one known key, or ADMIN), the manifest declares nothing no file serves, and the
// permission check itself is called nowhere but the permission module.

const ROOT = path.resolve('src/pages');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const satisfies readonly HttpMethod[];

function routedFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    // Astro does not route files or folders whose name starts with '_' (page helpers).
    if (d.name.startsWith('_')) return [];
    if (d.isDirectory()) return routedFiles(full);
    return /\.(astro|ts|js)$/.test(d.name) && !/\.test\.ts$/.test(d.name) ? [full] : [];
  });
}

/** 'loans/[id]/index.ts' → '/loans/x-id'. */
function samplePath(file: string): string {
  const rel = path
    .relative(ROOT, file)
    .replace(/\\/g, '/')
    .replace(/\.(astro|ts|js)$/, '')
    .replace(/(^|\/)index$/, '');
  return (
    '/' +
    rel
      .split('/')
      .filter(Boolean)
      .map((seg) => (seg === '[section]' || seg === '[list]' ? seg : seg.replace(/^\[(\w+)\]$/, 'x-$1')))
      .join('/')
  );
}

/** Every pattern that matches the path, with its specificity (static segment 2, param 1). */
function allMatches(patterns: readonly string[], pathname: string): { pattern: string; score: string }[] {
  const parts = pathname.split('/').filter(Boolean);
  return patterns.flatMap((pattern) => {
    const segments = pattern.split('/').filter(Boolean);
    if (segments.length !== parts.length) return [];
    const ok = segments.every((s, i) => s.startsWith(':') || s === parts[i]);
    return ok ? [{ pattern, score: segments.map((s) => (s.startsWith(':') ? 1 : 2)).join('') }] : [];
  });
}

/** The single best match: no other matching pattern is equally specific. */
function expectUnambiguous(patterns: readonly string[], pathname: string, chosen: string): void {
  const matches = allMatches(patterns, pathname);
  const best = matches.find((m) => m.pattern === chosen)!;
  const ties = matches.filter((m) => m.score === best.score);
  expect(
    ties.map((m) => m.pattern),
    `${pathname} matches several equally specific entries`,
  ).toEqual([chosen]);
}

function expectOneRule(rule: Rule | undefined, where: string): void {
  expect(rule, `${where} has no rule`).toBeDefined();
  expect(Array.isArray(rule), `${where}: a list of alternatives`).toBe(false);
  expect(['public', 'signed-in', 'permission', 'admin'], where).toContain(rule!.kind);
  if (rule!.kind === 'permission') {
    expect(typeof rule!.key, where).toBe('string');
    expect(isRuleKey(rule!.key), `${where}: unknown key ${rule!.key}`).toBe(true);
  }
}

function exportedMethods(file: string): HttpMethod[] {
  const source = fs.readFileSync(file, 'utf8');
  return METHODS.filter((m) => new RegExp(`export\\s+(const|async function|function)\\s+${m}\\b`).test(source));
}

const LIST_SEGMENTS = Object.values(LISTS).map((entry) => entry.path.split('/').pop()!);

const apiFiles = routedFiles(path.join(ROOT, 'v1'));
const pageFiles = routedFiles(ROOT).filter((f) => !f.startsWith(path.join(ROOT, 'v1') + path.sep));

describe('every /v1 endpoint method resolves to exactly one rule', () => {
  it('finds the endpoints', () => expect(apiFiles.length).toBeGreaterThan(20));
  it.each(apiFiles.map((f) => [path.relative(ROOT, f), f]))('%s', (_rel, file) => {
    const url = samplePath(file);
    const match = matchApiRoute(url);
    expect(match, `${url} has no API_ROUTES entry`).not.toBeNull();
    expectUnambiguous(
      API_ROUTES.map((r) => r.pattern),
      url,
      match!.entry.pattern,
    );
    const methods = exportedMethods(file);
    expect(methods.length, `${url} exports no method`).toBeGreaterThan(0);
    for (const method of methods) expectOneRule(match!.entry.methods[method], `${method} ${url}`);
    // Exact per method: the entry declares no method the file does not serve.
    expect(Object.keys(match!.entry.methods).sort(), url).toEqual([...methods].sort());
  });

  it('has no subtree entries and no entry without an endpoint file', () => {
    const served = new Set(apiFiles.map((f) => matchApiRoute(samplePath(f))?.entry.pattern));
    for (const r of API_ROUTES) {
      expect(r.pattern, 'subtree grant').not.toMatch(/\*/);
      expect(served.has(r.pattern), `${r.pattern} has no endpoint file`).toBe(true);
      for (const [method, action] of Object.entries(r.audit?.actions ?? {}))
        expect(r.methods[method as HttpMethod], `${r.pattern} audits ${action} for an undeclared method`).toBeDefined();
    }
  });
});

describe('every page resolves to exactly one rule', () => {
  it.each(pageFiles.map((f) => [path.relative(ROOT, f), f]))('%s', (rel, file) => {
    // Catch-all pages are the sections' 404 pages, reached by the guard's rewrite to /{section}/404.
    if (/\[\.\.\.\w+\]/.test(rel)) return;
    const sample = samplePath(file);
    // The health check is one of the guard's public assets (src/lib/auth/guard.ts): public, and nothing else.
    if (isPublicAsset(sample)) return void expect(matchRoute(sample)).toBeNull();
    // `[section]` serves every section with a layout, each with its own route; `[list]` serves the
    // lists of the registry that have the page (it answers 404 for the others).
    const perSection = sample.includes('[section]')
      ? LAYOUT_SECTIONS.map((s) => sample.replace('[section]', s))
      : [sample];
    for (const url of perSection) {
      const candidates = url.includes('[list]') ? LIST_SEGMENTS.map((l) => url.replace('[list]', l)) : [url];
      const declared = candidates.filter((c) => matchRoute(c));
      expect(declared.length, `${url} has no manifest route`).toBeGreaterThan(0);
      for (const concrete of declared) {
        const match = matchRoute(concrete)!;
        expectUnambiguous(
          ROUTES.map((r) => r.pattern),
          concrete,
          match.entry.pattern,
        );
        expectOneRule(match.entry.rule, concrete);
      }
    }
  });

  it('has no subtree entries', () => {
    for (const r of ROUTES) expect(r.pattern).not.toMatch(/\*/);
  });
});

describe('one permission point in the source', () => {
  const SRC = path.resolve('src');
  /** The permission module: the check and the rules live here; everything else asks allows / allowedActions / the guard. */
  const PERMISSION_MODULE = new Set(['lib/auth/permissions.ts']);

  function sourceFiles(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
      const full = path.join(dir, d.name);
      if (d.isDirectory()) return sourceFiles(full);
      return /\.(ts|tsx|astro)$/.test(d.name) ? [full] : [];
    });
  }
  const files = sourceFiles(SRC).map((f) => ({
    rel: path.relative(SRC, f).replace(/\\/g, '/'),
    text: fs.readFileSync(f, 'utf8'),
  }));

  it('calls hasPermission only inside the permission module', () => {
    const outside = files
      .filter((f) => !PERMISSION_MODULE.has(f.rel) && /\bhasPermission\b/.test(f.text))
      .map((f) => f.rel);
    expect(outside).toEqual([]);
  });

  it('spells "administrators only" one way: the ADMIN rule of the permission module', () => {
    const spellings = [/__admin_only__/, /['"]ADMIN['"]/, /kind:\s*['"]admin['"]/];
    const outside = files
      .filter((f) => !PERMISSION_MODULE.has(f.rel) && spellings.some((re) => re.test(f.text)))
      .map((f) => f.rel);
    expect(outside).toEqual([]);
  });
});
