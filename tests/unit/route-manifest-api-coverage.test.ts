import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchApiRoute } from '../../src/lib/auth/route-manifest.ts';

// Deny by default means an endpoint missing from the API manifest answers 404 through the guard.
// This test walks src/pages/v1 and fails when an endpoint or one of its methods has no entry, so a
// new endpoint is declared (with its permission) in src/lib/auth/route-manifest.ts API_ROUTES.

const ROOT = path.resolve('src/pages');

function endpointFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    // Astro does not route files or folders whose name starts with '_' (page helpers).
    if (d.name.startsWith('_')) return [];
    if (d.isDirectory()) return endpointFiles(full);
    return /\.(ts|js)$/.test(d.name) && !/\.test\.ts$/.test(d.name) ? [full] : [];
  });
}

/** '/v1/loans/[id]/index.ts' → '/v1/loans/x-id'; '[...rest]' → 'a/b'. */
function samplePath(file: string): string {
  const rel = path.relative(ROOT, file).replace(/\\/g, '/').replace(/\.(ts|js)$/, '').replace(/\/index$/, '');
  return '/' + rel.split('/').map((seg) => seg.replace(/^\[\.\.\.(\w+)\]$/, 'a/b').replace(/^\[(\w+)\]$/, 'x-$1')).join('/');
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

describe('API manifest covers every /v1 endpoint', () => {
  const files = endpointFiles(path.join(ROOT, 'v1'));
  it('finds the endpoints', () => expect(files.length).toBeGreaterThan(0));
  it.each(files.map((f) => [path.relative(ROOT, f), f]))('%s', (_rel, file) => {
    const source = fs.readFileSync(file, 'utf8');
    const exported = METHODS.filter((m) => new RegExp(`export\\s+(const|async function|function)\\s+${m}\\b`).test(source));
    const url = samplePath(file);
    const match = matchApiRoute(url);
    expect(match, `${url} has no API_ROUTES entry`).not.toBeNull();
    for (const method of exported) expect(match!.entry.methods[method], `${method} ${url} is not declared`).toBeDefined();
  });
});
