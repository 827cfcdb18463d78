import { describe, expect, it } from 'vitest';
import { RESOURCES, type Resource } from '#lib/i18n/resources.ts';

/** Every leaf key of a resource as a dotted path, with its text. */
function leaves(resource: Resource, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(resource)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of leaves(value, path)) out.set(k, v);
  }
  return out;
}

const INTERPOLATION = /\{\{\s*(\w+)\s*\}\}/g;
const names = (text: string) => [...text.matchAll(INTERPOLATION)].map((m) => m[1]).sort();

describe('translations', () => {
  const namespaces = Object.keys(RESOURCES.en) as (keyof typeof RESOURCES.en)[];

  it('French has the same namespaces as English', () => {
    expect(Object.keys(RESOURCES.fr).sort()).toEqual([...namespaces].sort());
  });

  describe.each(namespaces)('namespace %s', (ns) => {
    const en = leaves(RESOURCES.en[ns] as Resource);
    const fr = leaves((RESOURCES.fr as Record<string, Resource>)[ns] ?? {});

    it('every English key has a non-empty French text', () => {
      const missing = [...en.keys()].filter((key) => !fr.get(key)?.trim());
      expect(missing, `keys without French text in ${ns}`).toEqual([]);
    });

    it('French has no key English lacks', () => {
      expect([...fr.keys()].filter((key) => !en.has(key))).toEqual([]);
    });

    it('French keeps the same {{placeholders}}', () => {
      const mismatched = [...en.entries()]
        .filter(([key, text]) => fr.has(key) && names(text).join() !== names(fr.get(key)!).join())
        .map(([key]) => key);
      expect(mismatched).toEqual([]);
    });

    it("French uses one apostrophe, the typographic one (l’export, not l'export)", () => {
      expect([...fr.entries()].filter(([, text]) => /\p{L}'\p{L}/u.test(text)).map(([key]) => key)).toEqual([]);
    });
  });
});
