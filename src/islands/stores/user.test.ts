import { beforeEach, describe, expect, it, vi } from 'vitest';
import { $user, loadUser, mergeUser, resetUser, type CurrentUser } from './user.ts';

const USER: CurrentUser = {
  id: 'u-1',
  display_name: 'Ada',
  email: 'ada@demo.test',
  tenant_id: 'demo-eu1',
  roles: [{ name: 'Analyst' }],
  data_permissions: [],
  is_admin: false,
  authorities: ['analytics.overview.view'],
  language: 'fr-FR',
  session_timeout: 60,
  password_change_required: false,
};

describe('$user', () => {
  beforeEach(() => resetUser());

  it('loading, then value; the id is stored locally', async () => {
    const storage = new Map<string, string>();
    vi.stubGlobal('localStorage', { setItem: (k: string, v: string) => storage.set(k, v) });
    const pending = loadUser(async () => USER);
    expect($user.get().isLoading).toBe(true);
    await pending;
    expect($user.get()).toEqual({ isLoading: false, value: USER, error: null });
    expect(storage.get('lending.userId')).toBe('u-1');
    vi.unstubAllGlobals();
  });

  it('loading, then error with the status', async () => {
    await loadUser(() =>
      Promise.reject(Object.assign(new Error('HTTP 401 - Unauthorized'), { response: { status: 401 } })),
    );
    expect($user.get()).toEqual({
      isLoading: false,
      value: null,
      error: { status: 401, message: 'HTTP 401 - Unauthorized' },
    });
  });

  it('concurrent loads share one request', async () => {
    const fetchUser = vi.fn(async () => USER);
    await Promise.all([loadUser(fetchUser), loadUser(fetchUser)]);
    expect(fetchUser).toHaveBeenCalledOnce();
  });

  it('merges partial updates and reset clears value and error', async () => {
    await loadUser(async () => USER);
    mergeUser({ language: 'en-US' });
    expect($user.get().value).toEqual({ ...USER, language: 'en-US' });
    resetUser();
    expect($user.get()).toEqual({ isLoading: false, value: null, error: null });
  });
});
