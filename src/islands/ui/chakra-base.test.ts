import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISLAND_COMPONENTS } from './chakra-base.ts';
import { system } from './system.ts';

const ISLANDS = path.resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Every name an island imports from '@chakra-ui/react' (values, not types). */
function importedComponents(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sources(ISLANDS)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@chakra-ui\/react'/g)) {
      for (const raw of m[1]!.split(',')) {
        const name = raw
          .trim()
          .split(/\s+as\s+/)[0]!
          .trim();
        if (name && !name.startsWith('type ')) found.set(name, path.relative(ISLANDS, file));
      }
    }
  }
  return found;
}

describe('the Chakra system islands use', () => {
  it('lists every Chakra component an island imports, so its recipe is not left out', () => {
    const imported = importedComponents();
    expect(imported.size).toBeGreaterThan(10);
    const unlisted = [...imported].filter(([name]) => !(name in ISLAND_COMPONENTS) && /^[A-Z]/.test(name));
    expect(unlisted.map(([name, file]) => `${name} (${file})`)).toEqual([]);
  });

  it('holds the recipe of every listed component', () => {
    const keys = Object.values(ISLAND_COMPONENTS).flat();
    expect(keys.filter((key) => !system.isRecipe(key) && !system.isSlotRecipe(key))).toEqual([]);
  });

  it('leaves out the recipes of components no island shows', () => {
    for (const key of ['datePicker', 'colorPicker', 'treeView', 'carousel', 'menu', 'tabs']) {
      expect(system.isRecipe(key) || system.isSlotRecipe(key)).toBe(false);
    }
  });

  it('keeps Chakra’s tokens the recipes refer to', () => {
    expect(system.token('colors.gray.500')).toBeTruthy();
    expect(system.token('spacing.4')).toBeTruthy();
    expect(system.token('colors.brand.500')).toBeTruthy();
  });
});
