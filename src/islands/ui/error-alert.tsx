import { lazy } from 'react';
import { LoadOrPlain, PlainError } from './load-or-plain.tsx';

const Content = lazy(() => import('./error-ui.tsx').then((m) => ({ default: m.ErrorAlertContent })));

/**
 * The error alert: the status (500 when unknown), the server's message as description,
 * a Retry button (when the caller can retry) and the Report error button. Its content is loaded
 * when an alert first shows (error-ui.tsx); until then, or if it cannot be loaded, the status and
 * the message show as plain text.
 */
export function ErrorAlert(props: {
  status?: number;
  message: string;
  onRetry?: () => void;
  error?: unknown;
  module?: string;
}) {
  return (
    <LoadOrPlain plain={<PlainError status={props.status ?? 500} message={props.message} />}>
      <Content {...props} />
    </LoadOrPlain>
  );
}
