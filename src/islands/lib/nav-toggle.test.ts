import { describe, expect, it } from 'vitest';
import { isNavCollapsedCookie, navCookie, NAV_COOKIE } from './nav-toggle.ts';

describe('side navigation toggle state', () => {
  it('only the value it writes reads as collapsed', () => {
    expect(isNavCollapsedCookie('collapsed')).toBe(true);
    expect(isNavCollapsedCookie(undefined)).toBe(false);
    expect(isNavCollapsedCookie('')).toBe(false);
    expect(isNavCollapsedCookie('open')).toBe(false);
  });

  it('collapsing remembers the choice on every path; opening forgets it', () => {
    expect(navCookie(true)).toBe(`${NAV_COOKIE}=collapsed; Path=/; Max-Age=31536000; SameSite=Lax`);
    expect(navCookie(false)).toBe(`${NAV_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`);
  });
});
