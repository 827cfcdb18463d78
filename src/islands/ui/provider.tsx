import { ChakraProvider } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { AppErrorBoundary } from './error-boundary.tsx';
import { IslandLanguage } from './island-language.ts';
import { system } from './system.ts';

/**
 * What every island renders first: Chakra with our system, the page's language, and the error
 * boundary. Translations are not included: an island that calls useTranslation wraps its content in
 * <Translations> (translations.tsx says why). Each island is its own React root (Astro), so each has
 * its own provider; the stores in src/islands/stores are what they share.
 */
export function IslandProvider({
  language,
  module,
  children,
}: {
  language: Language;
  module: string;
  children: ReactNode;
}) {
  return (
    <ChakraProvider value={system}>
      <IslandLanguage.Provider value={language}>
        <AppErrorBoundary module={module}>{children}</AppErrorBoundary>
      </IslandLanguage.Provider>
    </ChakraProvider>
  );
}
