import type { UserState } from '../stores/user.ts';

/**
 * The protected-area guard as islands see it, when they need the user and the page did
 * not seed it: load it (showing the full-screen overlay meanwhile), send a 401 to login with
 * 'You are not authorized to access the board.', show any other error, else render.
 */
export type GateStep = 'load' | 'loading' | 'unauthorized' | 'password-change' | 'error' | 'ready';

export const NOT_AUTHORIZED_MESSAGE = 'You are not authorized to access the board.';

export function gateStep(state: UserState): GateStep {
  if (state.value) return state.value.password_change_required ? 'password-change' : 'ready';
  if (state.isLoading) return 'loading';
  if (state.error) return state.error.status === 401 ? 'unauthorized' : 'error';
  return 'load';
}

export function unauthorizedUrl(location: { pathname: string; search: string; hash: string }): string {
  const redirect = `${location.pathname}${location.search}${location.hash}`;
  return `/user/login?redirect=${encodeURIComponent(redirect)}&message=${encodeURIComponent(NOT_AUTHORIZED_MESSAGE)}`;
}
