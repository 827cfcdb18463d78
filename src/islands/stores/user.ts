import { map } from 'nanostores';

/** The current user exactly as GET /v1/users/me returns it; one type for server and islands. */
import type { CurrentUser } from '#lib/tenancy/users.ts';

export type { CurrentUser };

export type UserState = {
  isLoading: boolean;
  value: CurrentUser | null;
  error: { status: number; message: string } | null;
};

/**
 * Shared across islands of a page ("User load"): loading, then value or error; reset clears
 * both; partial updates merge. Pages seed it from server-rendered data so islands do not refetch.
 */
export const $user = map<UserState>({ isLoading: false, value: null, error: null });

export const USER_ID_STORAGE_KEY = 'lending.userId';

function rememberUserId(id: string): void {
  try {
    globalThis.localStorage?.setItem(USER_ID_STORAGE_KEY, id);
  } catch {
    // Private mode or storage disabled: remembering the id is a convenience only.
  }
}

export function seedUser(user: CurrentUser): void {
  $user.set({ isLoading: false, value: user, error: null });
  rememberUserId(user.id);
}

/** Loads the user with the given fetcher (the ky client in islands). Concurrent calls share one request. */
let inFlight: Promise<CurrentUser | null> | null = null;
export function loadUser(fetchUser: () => Promise<CurrentUser>): Promise<CurrentUser | null> {
  if (inFlight) return inFlight;
  $user.setKey('isLoading', true);
  inFlight = fetchUser()
    .then((user) => {
      seedUser(user);
      return user;
    })
    .catch((error: unknown) => {
      const status = (error as { response?: { status?: number } })?.response?.status ?? 500;
      const message = error instanceof Error && error.message ? error.message : 'Unknown error';
      $user.set({ isLoading: false, value: null, error: { status, message } });
      return null;
    })
    .finally(() => {
      inFlight = null;
    });
  return inFlight;
}

export function mergeUser(partial: Partial<CurrentUser>): void {
  const current = $user.get().value;
  if (!current) return;
  $user.setKey('value', { ...current, ...partial });
}

export function resetUser(): void {
  $user.set({ isLoading: false, value: null, error: null });
}
