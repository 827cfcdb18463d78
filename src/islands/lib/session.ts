import { api } from './api.ts';

/** B1's sign-out endpoint; the server ends the session record and clears the cookie. */
export const SIGN_OUT_PATH = 'auth/sign-out';

export async function signOut(): Promise<void> {
  await api.post(SIGN_OUT_PATH, { json: {} });
}
