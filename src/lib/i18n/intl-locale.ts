import type { Language } from './index.ts';

/** The Intl locale of each UI language (number, money and date formatting). Type-only import: no i18next here. */
export const INTL_LOCALE: Record<Language, string> = { en: 'en-US', fr: 'fr-FR' };
