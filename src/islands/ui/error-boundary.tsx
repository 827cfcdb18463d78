import { Component, lazy, type ErrorInfo, type ReactNode } from 'react';
import { reportUncaught } from '../lib/error-report.ts';
import { LoadOrPlain, PlainError } from './load-or-plain.tsx';

type Props = { module: string; children: ReactNode };
type State = { error: unknown };

/** A thrown error may carry an HTTP status and text (a failed load) or just a message. */
export function describeFallback(error: unknown): { status?: number; text: string } {
  const e = error as {
    status?: unknown;
    statusText?: unknown;
    response?: { status?: number; statusText?: string };
    message?: unknown;
  };
  const status = typeof e?.status === 'number' ? e.status : e?.response?.status;
  const statusText = typeof e?.statusText === 'string' ? e.statusText : e?.response?.statusText;
  if (status !== undefined && statusText) return { status, text: statusText };
  if (typeof e?.message === 'string' && e.message) return { status, text: e.message };
  return { status, text: typeof error === 'string' && error ? error : 'Unknown error' };
}

// Loaded when a render error first happens (error-ui.tsx says why).
const Fallback = lazy(() => import('./error-ui.tsx').then((m) => ({ default: m.BoundaryFallback })));

/**
 * The "Unexpected Application Error!" fallback around every island: a render error
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
    if (this.state.error === undefined) return this.props.children;
    const { status, text } = describeFallback(this.state.error);
    return (
      <LoadOrPlain plain={<PlainError status={status} message={text} />}>
        <Fallback error={this.state.error} module={this.props.module} />
      </LoadOrPlain>
    );
  }
}
