import { useContext, useMemo, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { islandI18n } from '../lib/i18n.ts';
import { IslandLanguage } from './island-language.ts';

/**
 * The island translations (i18next, in the page's language) for what is inside. Only what calls
 * useTranslation needs it, and i18next is a fifth of an island's JavaScript: an island that shows
 * translated text wraps its content in it; the error UI (error-ui.tsx) wraps itself, and is loaded
 * only when something fails. Most islands take their words as labels from the page instead.
 */
export function Translations({ children }: { children: ReactNode }) {
  const language = useContext(IslandLanguage);
  const i18n = useMemo(() => islandI18n(language), [language]);
  return <I18nextProvider i18n={i18n}>{children}</I18nextProvider>;
}
