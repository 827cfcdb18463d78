// Bundled translations, one JSON file per language and namespace. Add a namespace by importing
// its two files here; tests/unit/i18n-completeness.test.ts fails when a key lacks its French text.
import enCommon from './locales/en/common.json' with { type: 'json' };
import frCommon from './locales/fr/common.json' with { type: 'json' };

export type Resource = { [key: string]: string | Resource };

export const RESOURCES = {
  en: { common: enCommon },
  fr: { common: frCommon },
} satisfies Record<string, Record<string, Resource>>;

export type Namespace = keyof (typeof RESOURCES)['en'];
