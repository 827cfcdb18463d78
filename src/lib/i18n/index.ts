import i18next, { type TFunction } from 'i18next';
import { RESOURCES, type Namespace } from './resources.ts';

export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

/** The UI language of a locale such as 'fr-FR': French when it starts with fr, English otherwise. */
export function languageOf(locale: string | null | undefined): Language {
  return (locale ?? '').toLowerCase().startsWith('fr') ? 'fr' : 'en';
}

const instances = new Map<string, Promise<typeof i18next>>();

/**
 * A translator for one language, with the bundled resources plus optional tenant overrides
 * (admin > translations). Instances are cached per language and overrides version.
 */
export function getT(
  language: Language,
  overrides?: { key: string; resources: Partial<Record<Namespace, Record<string, unknown>>> },
): Promise<TFunction> {
  const cacheKey = `${language}:${overrides?.key ?? ''}`;
  let instance = instances.get(cacheKey);
  if (!instance) {
    const created = i18next.createInstance();
    instance = created
      .init({
        lng: language,
        fallbackLng: DEFAULT_LANGUAGE,
        // A copy per instance: addResourceBundle below merges into the object it was given, and
        // one tenant's overrides must never leak into the shared bundle.
        resources: structuredClone(RESOURCES),
        ns: Object.keys(RESOURCES.en),
        defaultNS: 'common',
        interpolation: { escapeValue: false },
        initAsync: false,
        showSupportNotice: false,
      } as never)
      .then(() => {
        for (const [ns, bundle] of Object.entries(overrides?.resources ?? {})) {
          created.addResourceBundle(language, ns, bundle, true, true);
        }
        return created;
      });
    instances.set(cacheKey, instance);
    // Each edit of a tenant's overrides makes a new key; forget the oldest so the cache stays small.
    if (instances.size > 200) instances.delete(instances.keys().next().value as string);
  }
  return instance.then((i) => i.t);
}
