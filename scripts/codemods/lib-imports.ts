/**
 * Rewrites relative imports of src/lib into the `#lib/…` subpath import (package.json "imports"):
 *
 *   import { getDb } from '../../../../lib/db/index.ts'   →   import { getDb } from '#lib/db/index.ts'
 *
 * Outside src/lib every relative import that lands in src/lib is rewritten. Inside src/lib only the
 * deep ones are (two or more `../`, i.e. from one area into another that is not a sibling folder):
 * `./x.ts` and `../area/x.ts` stay, they read better than the subpath.
 *
 * Usage: node scripts/codemods/lib-imports.ts [--dry-run] [dir-or-file …]   (default: src tests scripts)
 * It prints each file it changes and how many specifiers; --dry-run changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LIB = path.join(ROOT, 'src', 'lib');
const EXTENSIONS = new Set(['.ts', '.tsx', '.astro', '.mts', '.js', '.mjs']);
const SKIP_DIRS = new Set(['node_modules', 'dist', '.astro', 'data']);

/**
 * The places a module names another one: `from '…'`, `import '…'`, `import('…')`, and the module
 * argument of `vi.mock('…')` / `vi.importActual('…')` (so a mock keeps naming the same module).
 */
const SPECIFIER =
  /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.(?:mock|doMock|importActual)\s*\(\s*)(['"])(\.{1,2}\/[^'"\n]*)\2/g;

export function rewriteSource(source: string, file: string): { text: string; count: number } {
  const dir = path.dirname(file);
  const isInLib = isInside(file, LIB);
  let count = 0;
  const text = source.replace(SPECIFIER, (whole, lead: string, quote: string, specifier: string) => {
    const target = path.resolve(dir, specifier);
    if (!isInside(target, LIB)) return whole;
    if (isInLib && !specifier.startsWith('../../')) return whole;
    count += 1;
    return `${lead}${quote}#lib/${path.relative(LIB, target).split(path.sep).join('/')}${quote}`;
  });
  return { text, count };
}

function isInside(target: string, dir: string): boolean {
  return target.startsWith(dir + path.sep);
}

function* files(entry: string): Generator<string> {
  const stat = fs.statSync(entry);
  if (stat.isFile()) {
    if (EXTENSIONS.has(path.extname(entry))) yield entry;
    return;
  }
  for (const child of fs.readdirSync(entry, { withFileTypes: true })) {
    if (child.isDirectory() && SKIP_DIRS.has(child.name)) continue;
    yield* files(path.join(entry, child.name));
  }
}

function main(argv: string[]): void {
  const isDryRun = argv.includes('--dry-run');
  const targets = argv.filter((arg) => !arg.startsWith('--'));
  const roots = (targets.length ? targets : ['src', 'tests', 'scripts']).map((entry) => path.resolve(ROOT, entry));
  let changedFiles = 0;
  let changedSpecifiers = 0;
  for (const root of roots) {
    for (const file of files(root)) {
      const source = fs.readFileSync(file, 'utf8');
      const { text, count } = rewriteSource(source, file);
      if (count === 0) continue;
      changedFiles += 1;
      changedSpecifiers += count;
      console.log(`${path.relative(ROOT, file)}: ${count}`);
      if (!isDryRun) fs.writeFileSync(file, text);
    }
  }
  console.log(
    `${isDryRun ? 'Would rewrite' : 'Rewrote'} ${changedSpecifiers} import(s) in ${changedFiles} file(s) to #lib/….`,
  );
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) main(process.argv.slice(2));
