import { ErrorAlert } from '../ui/error-alert.tsx';
import type { Failure } from './use-command.ts';

/** The refusal of a command form (`useCommand().failure`), as the error alert; nothing when none. */
export function CommandFailure({ failure, module }: { failure: Failure | null; module: string }) {
  if (!failure) return null;
  return <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module={module} />;
}
