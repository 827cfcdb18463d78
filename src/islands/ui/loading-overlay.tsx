import { Box, Spinner, VStack } from '@chakra-ui/react';
import { useTranslation } from 'react-i18next';
import { clampOpacity } from '../lib/overlay.ts';
import { Logo } from './logo.tsx';

/** Full-screen overlay with the logo and a spinner while an island loads the user. */
export function LoadingOverlay({ isOpen, opacity = 1 }: { isOpen: boolean; opacity?: number }) {
  const { t } = useTranslation('common');
  if (!isOpen) return null;
  return (
    <Box
      position="fixed"
      inset="0"
      zIndex="overlay"
      display="flex"
      alignItems="center"
      justifyContent="center"
      bg={`rgba(255,255,255,${clampOpacity(opacity)})`}
      role="progressbar"
      aria-busy="true"
      aria-label={t('loadingOverlay')}
    >
      <VStack gap="4">
        <Logo size={48} />
        <Spinner size="lg" color="brand.solid" />
      </VStack>
    </Box>
  );
}
