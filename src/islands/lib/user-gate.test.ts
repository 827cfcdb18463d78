import { describe, expect, it } from 'vitest';
import type { CurrentUser } from '../stores/user.ts';
import { gateStep, unauthorizedUrl } from './user-gate.ts';

const user = { id: 'u', password_change_required: false } as CurrentUser;

describe('island user gate (guard)', () => {
  it('loads, waits, then renders', () => {
    expect(gateStep({ isLoading: false, value: null, error: null })).toBe('load');
    expect(gateStep({ isLoading: true, value: null, error: null })).toBe('loading');
    expect(gateStep({ isLoading: false, value: user, error: null })).toBe('ready');
  });
  it('401 → login with the message; other errors → error page; forced change → reset', () => {
    expect(gateStep({ isLoading: false, value: null, error: { status: 401, message: 'x' } })).toBe('unauthorized');
    expect(gateStep({ isLoading: false, value: null, error: { status: 500, message: 'x' } })).toBe('error');
    expect(gateStep({ isLoading: false, value: { ...user, password_change_required: true }, error: null })).toBe(
      'password-change',
    );
    expect(unauthorizedUrl({ pathname: '/loans/loans', search: '?tab=overdue', hash: '#x' })).toBe(
      '/user/login?redirect=%2Floans%2Floans%3Ftab%3Doverdue%23x&message=You%20are%20not%20authorized%20to%20access%20the%20board.',
    );
  });
});
