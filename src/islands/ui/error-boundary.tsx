import { Box, Button, Code, Heading, Stack, Text } from '@chakra-ui/react';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { reportUncaught } from '../lib/error-report.ts';
import { ReportErrorButton } from './report-error-button.tsx';

type Props = { module: string; children: ReactNode };
type State = { error: unknown };

/** A thrown error may carry an HTTP status and text (a failed load) or just a message. */
export function describeFallback(error: unknown): { status?: number; text: string } {
  const e = error as { status?: unknown; statusText?: unknown; response?: { status?: number; statusText?: string }; message?: unknown };
  const status = typeof e?.status === 'number' ? e.status : e?.response?.status;
  const statusText = typeof e?.statusText === 'string' ? e.statusText : e?.response?.statusText;
  if (status !== undefined && statusText) return { status, text: statusText };
  if (typeof e?.message === 'string' && e.message) return { status, text: e.message };
  return { status, text: typeof error === 'string' && error ? error : 'Unknown error' };
}

function Fallback({ error, module }: { error: unknown; module: string }) {
  const { t } = useTranslation('errors');
  const { status, text } = describeFallback(error);
  return (
    <Box role="alert" borderWidth="1px" borderColor="border.error" borderRadius="md" p="4" bg="bg.error">
      <Stack gap="2">
        <Heading as="h2" textStyle="h4">{t('unexpected')}</Heading>
        {status !== undefined ? <Text fontWeight="semibold">{status}</Text> : null}
        <Code whiteSpace="pre-wrap" bg="transparent" p="0">{text}</Code>
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

/**
 * The "Unexpected Application Error!" fallback of spec §2 around every island: a render error
 * shows its status and text (or its message) instead of an empty space, and is reported.
 */
export class AppErrorBoundary extends Component<Props, State> {
  state: State = { error: undefined };
  static getDerivedStateFromError(error: unknown): State {
    return { error: error ?? new Error('Unknown error') };
  }
  componentDidCatch(error: unknown, _info: ErrorInfo): void {
    void reportUncaught(error, this.props.module);
  }
  render() {
    return this.state.error !== undefined ? <Fallback error={this.state.error} module={this.props.module} /> : this.props.children;
  }
}
