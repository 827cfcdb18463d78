import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Language } from '#lib/i18n/index.ts';
import enCommon from '#lib/i18n/locales/en/common.json' with { type: 'json' };
import frCommon from '#lib/i18n/locales/fr/common.json' with { type: 'json' };
import enErrors from '#lib/i18n/locales/en/errors.json' with { type: 'json' };
import frErrors from '#lib/i18n/locales/fr/errors.json' with { type: 'json' };

/**
 * Islands bundle only the namespaces they use (common, errors), so the first render, on the server
 * and in the browser, is already in the right language with no flash and no request. The tenant's
 * overrides are then fetched once per page from GET /v1/translations/{lng}/{ns} and laid on top;
 * keys missing from the bundle are reported (POST) for translators.
 */
const ISLAND_NAMESPACES = ['common', 'errors'] as const;
const BUNDLES = { en: { common: enCommon, errors: enErrors }, fr: { common: frCommon, errors: frErrors } };

const instances = new Map<Language, I18n>();
const overridesLoaded = new Set<Language>();

export function islandI18n(language: Language): I18n {
  let instance = instances.get(language);
  if (instance) return instance;
  instance = i18next.createInstance();
  instance.use(initReactI18next).init({
    lng: language,
    fallbackLng: 'en',
    resources: structuredClone(BUNDLES),
    ns: [...ISLAND_NAMESPACES],
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    initAsync: false,
    showSupportNotice: false,
    saveMissing: typeof window !== 'undefined',
    missingKeyHandler: (_lngs: readonly string[], ns: string, key: string, fallback: string) =>
      reportMissingKey(language, ns, key, fallback),
  } as never);
  instances.set(language, instance);
  if (typeof window !== 'undefined') void loadOverrides(instance, language);
  return instance;
}

async function loadOverrides(instance: I18n, language: Language): Promise<void> {
  if (overridesLoaded.has(language)) return;
  overridesLoaded.add(language);
  for (const ns of ISLAND_NAMESPACES) {
    try {
      const response = await fetch(`/v1/translations/${language}/${ns}`, {
        credentials: 'same-origin',
        headers: { accept: 'application/json', 'x-background': '1' },
      });
      if (response.ok) instance.addResourceBundle(language, ns, await response.json(), true, true);
    } catch {
      // The bundled texts are complete; overrides are a refinement.
    }
  }
}

const pendingMissing = new Map<string, Record<string, string>>();
let flushTimer: ReturnType<typeof setTimeout> | undefined;

function reportMissingKey(language: Language, ns: string, key: string, fallback: string): void {
  const bucket = `${language}/${ns}`;
  const keys = pendingMissing.get(bucket) ?? {};
  keys[key] = typeof fallback === 'string' ? fallback : '';
  pendingMissing.set(bucket, keys);
  flushTimer ??= setTimeout(() => {
    flushTimer = undefined;
    for (const [path, body] of pendingMissing) {
      void fetch(`/v1/translations/${path}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-background': '1' },
        body: JSON.stringify(body),
      }).catch(() => undefined);
    }
    pendingMissing.clear();
  }, 2000);
}
