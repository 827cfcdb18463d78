import { ChakraProvider } from '@chakra-ui/react';
import { useMemo, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import type { Language } from '../../lib/i18n/index.ts';
import { islandI18n } from '../lib/i18n.ts';
import { AppErrorBoundary } from './error-boundary.tsx';
import { system } from './system.ts';

/**
 * What every island renders first: Chakra with our system, the translations in the page's language,
 * and the error boundary. Each island is its own React root (Astro), so each has its own provider;
 * the stores in src/islands/stores are what they share.
 */
export function IslandProvider({ language, module, children }: { language: Language; module: string; children: ReactNode }) {
  const i18n = useMemo(() => islandI18n(language), [language]);
  return (
    <ChakraProvider value={system}>
      <I18nextProvider i18n={i18n}>
        <AppErrorBoundary module={module}>{children}</AppErrorBoundary>
      </I18nextProvider>
    </ChakraProvider>
  );
}
