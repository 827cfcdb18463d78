import { Alert, Box, Button, Code, HStack, Heading, Stack, Text } from '@chakra-ui/react';
import { useTranslation } from 'react-i18next';
import { describeFallback } from './error-boundary.tsx';
import { ReportErrorButton } from './report-error-button.tsx';
import { Translations } from './translations.tsx';

/**
 * The error UI of every island, loaded on demand (React.lazy) by ErrorAlert (error-alert.tsx) and by
 * the error boundary (error-boundary.tsx) the first time one shows: with the translations it needs,
 * it would otherwise weigh on every page that merely could fail.
 */

type AlertProps = { status?: number; message: string; onRetry?: () => void; error?: unknown; module?: string };

function AlertBody({ status = 500, message, onRetry, error, module }: AlertProps) {
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

export function ErrorAlertContent(props: AlertProps) {
  return (
    <Translations>
      <AlertBody {...props} />
    </Translations>
  );
}

function FallbackBody({ error, module }: { error: unknown; module: string }) {
  const { t } = useTranslation('errors');
  const { status, text } = describeFallback(error);
  return (
    <Box role="alert" borderWidth="1px" borderColor="border.error" borderRadius="md" p="4" bg="bg.error">
      <Stack gap="2">
        <Heading as="h2" textStyle="h4">
          {t('unexpected')}
        </Heading>
        {status !== undefined ? <Text fontWeight="semibold">{status}</Text> : null}
        <Code whiteSpace="pre-wrap" bg="transparent" p="0">
          {text}
        </Code>
        <Box>
          <Button colorPalette="brand" onClick={() => window.location.reload()} mr="3">
            {t('common:actions.reload')}
          </Button>
        </Box>
        <ReportErrorButton error={error} module={module} />
      </Stack>
    </Box>
  );
}

export function BoundaryFallback(props: { error: unknown; module: string }) {
  return (
    <Translations>
      <FallbackBody {...props} />
    </Translations>
  );
}
