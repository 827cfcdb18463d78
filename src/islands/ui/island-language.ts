import { createContext } from 'react';
import type { Language } from '#lib/i18n/index.ts';

/** The page's language, set by IslandProvider for what its island renders (translations.tsx reads it). */
export const IslandLanguage = createContext<Language>('en');
