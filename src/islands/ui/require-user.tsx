import { useStore } from '@nanostores/react';
import { useEffect, type ReactNode } from 'react';
import { api } from '../lib/api.ts';
import { gateStep, unauthorizedUrl } from '../lib/user-gate.ts';
import { $user, loadUser, seedUser, type CurrentUser } from '../stores/user.ts';
import { ErrorAlert } from './error-alert.tsx';
import { LoadingOverlay } from './loading-overlay.tsx';

/**
 * Renders children once the current user is known. A page that server-renders the user passes it
 * as `initialUser` (no fetch, no overlay); otherwise the user is loaded from GET /v1/users/me behind
 * the full-screen loading overlay, and a 401 or a forced password change leaves the page.
 */
export function RequireUser({ initialUser, children }: { initialUser?: CurrentUser; children: ReactNode }) {
  if (initialUser && !$user.get().value) seedUser(initialUser);
  const state = useStore($user);
  const step = gateStep(state);
  useEffect(() => {
    if (step === 'load') void loadUser(() => api.get('users/me').json<CurrentUser>());
    if (step === 'unauthorized') window.location.assign(unauthorizedUrl(window.location));
    if (step === 'password-change') window.location.assign('/user/reset-password');
  }, [step]);
  if (step === 'ready') return <>{children}</>;
  if (step === 'error' && state.error) {
    return (
      <ErrorAlert
        status={state.error.status}
        message={state.error.message}
        onRetry={() => void loadUser(() => api.get('users/me').json<CurrentUser>())}
        module="RequireUser"
      />
    );
  }
  return <LoadingOverlay isOpen opacity={1} />;
}
