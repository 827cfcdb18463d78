import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACTIVITY_EVENTS, idleTimeoutSeconds, loginUrlFor, signOutForIdle, startIdleTimer } from './idle.ts';

describe('idle timeout', () => {
  it('admins use their session_timeout, others the tenant auto_logout.timeout, default 60', () => {
    expect(
      idleTimeoutSeconds({ isAdmin: true, sessionTimeout: 900, tenantConfig: { auto_logout: { timeout: 30 } } }),
    ).toBe(900);
    expect(idleTimeoutSeconds({ isAdmin: true, sessionTimeout: null })).toBe(60);
    expect(
      idleTimeoutSeconds({ isAdmin: false, sessionTimeout: 900, tenantConfig: { auto_logout: { timeout: 30 } } }),
    ).toBe(30);
    expect(idleTimeoutSeconds({ isAdmin: false, tenantConfig: {} })).toBe(60);
    expect(idleTimeoutSeconds({ isAdmin: false, tenantConfig: { auto_logout: { timeout: -5 } } })).toBe(60);
  });

  it('keeps path, query and hash in the login redirect', () => {
    expect(loginUrlFor({ pathname: '/loans/loans', search: '?tab=overdue', hash: '#row-3' })).toBe(
      '/user/login?redirect=%2Floans%2Floans%3Ftab%3Doverdue%23row-3',
    );
  });
});

describe('idle timer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function fakeTarget() {
    const listeners = new Map<string, Set<() => void>>();
    return {
      addEventListener: (type: string, fn: () => void) =>
        void (listeners.get(type) ?? listeners.set(type, new Set()).get(type)!).add(fn),
      removeEventListener: (type: string, fn: () => void) => void listeners.get(type)?.delete(fn),
      fire: (type: string) => listeners.get(type)?.forEach((fn) => fn()),
      count: () => [...listeners.values()].reduce((n, s) => n + s.size, 0),
    };
  }

  it('fires once after the timeout without activity', () => {
    const target = fakeTarget();
    const onIdle = vi.fn();
    startIdleTimer({ seconds: 60, target, onIdle });
    vi.advanceTimersByTime(59_999);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(600_000);
    expect(onIdle).toHaveBeenCalledTimes(1);
    expect(target.count()).toBe(0);
  });

  it.each(ACTIVITY_EVENTS)('%s restarts the countdown', (type) => {
    const target = fakeTarget();
    const onIdle = vi.fn();
    startIdleTimer({ seconds: 10, target, onIdle });
    vi.advanceTimersByTime(9_000);
    target.fire(type);
    vi.advanceTimersByTime(9_000);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it('other events do not count as activity', () => {
    const target = fakeTarget();
    const onIdle = vi.fn();
    startIdleTimer({ seconds: 10, target, onIdle });
    vi.advanceTimersByTime(9_000);
    target.fire('scroll');
    vi.advanceTimersByTime(1_000);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it('stop cancels it', () => {
    const target = fakeTarget();
    const onIdle = vi.fn();
    const stop = startIdleTimer({ seconds: 10, target, onIdle });
    stop();
    vi.advanceTimersByTime(60_000);
    expect(onIdle).not.toHaveBeenCalled();
  });
});

describe('sign-out on idle', () => {
  it('signs out then goes to login with the origin, even when sign-out fails', async () => {
    const navigate = vi.fn();
    const log = vi.fn();
    await signOutForIdle({
      signOut: () => Promise.reject(new Error('offline')),
      location: { pathname: '/admin/user/users', search: '', hash: '' },
      navigate,
      log,
    });
    expect(log).toHaveBeenCalledOnce();
    expect(navigate).toHaveBeenCalledWith('/user/login?redirect=%2Fadmin%2Fuser%2Fusers');
  });
});
