import { api } from './api.ts';

/**
 * B1's sign-out endpoint: ends the session record and clears the cookie. Answers where to go next
 * (the identity provider's logout after single sign-on, else the login page).
 */
export const SIGN_OUT_PATH = 'auth/sign-out';

export async function signOut(): Promise<string> {
  const { redirect } = await api.post(SIGN_OUT_PATH, { json: {} }).json<{ redirect?: string }>();
  return redirect ?? '/user/login';
}
