import { Button, HStack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { buildContext, describeError, sendErrorReport, toPayload } from '../lib/error-report.ts';

/**
 * The manual "Report error": sends the same data as an automatic report, with
 * report_type 'manual', and says 'Error report sent, thank you!' or 'Failed to send error report'.
 */
export function ReportErrorButton({
  error,
  module,
  status,
  message,
}: {
  error?: unknown;
  module?: string;
  status?: number;
  message?: string;
}) {
  const { t } = useTranslation('common');
  const [state, setState] = useState<'idle' | 'sending' | 'sent' | 'failed'>('idle');
  const send = async () => {
    setState('sending');
    const described =
      error !== undefined ? describeError(error) : { message: message ?? `HTTP ${status ?? 500}`, stack: '' };
    const ok = await sendErrorReport(toPayload(described, buildContext({ module }), 'manual'));
    setState(ok ? 'sent' : 'failed');
  };
  return (
    <HStack gap="3" wrap="wrap">
      <Button
        variant="outline"
        colorPalette="gray"
        onClick={send}
        loading={state === 'sending'}
        disabled={state === 'sent'}
      >
        {t('actions.reportError')}
      </Button>
      <Text role="status" aria-live="polite" fontSize="sm" color={state === 'failed' ? 'fg.error' : 'fg.success'}>
        {state === 'sent' ? t('report.sent') : state === 'failed' ? t('report.failed') : ''}
      </Text>
    </HStack>
  );
}
