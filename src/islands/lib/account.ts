import { api } from './api.ts';

/**
 * The account calls of the profile page. They belong to the identity API under /v1/auth; the
 * paths are kept here, in one place, so the profile islands follow that API.
 */
export const ACCOUNT_PATHS = {
  changePassword: 'auth/password',
  sessions: 'auth/sessions',
  signOutEverywhere: 'auth/sign-out-everywhere',
} as const;

export type SessionSummary = {
  id: string;
  created_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
  method: string;
  is_current: boolean;
};

export async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
  await api.post(ACCOUNT_PATHS.changePassword, {
    json: { current_password: currentPassword, new_password: newPassword },
  });
}

export async function listSessions(): Promise<SessionSummary[]> {
  const data = await api
    .get(ACCOUNT_PATHS.sessions)
    .json<{ items?: SessionSummary[]; sessions?: SessionSummary[] } | SessionSummary[]>();
  return Array.isArray(data) ? data : (data.items ?? data.sessions ?? []);
}

/** Ends every session of the user, this one included; answers where to go (the login page). */
export async function signOutEverywhere(): Promise<string> {
  const { redirect } = await api.post(ACCOUNT_PATHS.signOutEverywhere, { json: {} }).json<{ redirect?: string }>();
  return redirect ?? '/user/login';
}
