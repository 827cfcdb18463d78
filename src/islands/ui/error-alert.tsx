import { Alert, Box, Button, HStack } from '@chakra-ui/react';
import { useTranslation } from 'react-i18next';
import { ReportErrorButton } from './report-error-button.tsx';

/**
 * The error alert of spec §8: the status (500 when unknown), the server's message as description,
 * a Retry button (when the caller can retry) and the Report error button.
 */
export function ErrorAlert({ status = 500, message, onRetry, error, module }: { status?: number; message: string; onRetry?: () => void; error?: unknown; module?: string }) {
  const { t } = useTranslation('errors');
  return (
    <Alert.Root status="error" borderRadius="md" alignItems="flex-start" role="alert">
      <Alert.Indicator />
      <Alert.Content gap="2">
        <Alert.Title>{t('status', { status })}</Alert.Title>
        <Alert.Description>{message}</Alert.Description>
        <HStack gap="3" wrap="wrap">
          {onRetry ? (
            <Button colorPalette="brand" onClick={onRetry}>
              {t('common:actions.retry')}
            </Button>
          ) : null}
          <Box>
            <ReportErrorButton error={error} status={status} message={message} module={module} />
          </Box>
        </HStack>
      </Alert.Content>
    </Alert.Root>
  );
}
