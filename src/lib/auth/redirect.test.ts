import { describe, expect, it } from 'vitest';
import {
  HOSTILE_REDIRECTS,
  LEGITIMATE_REDIRECTS,
  SAME_ORIGIN_ODDITIES,
} from '../../../tests/e2e/support/payloads-redirect.ts';
import { safeRedirect } from './redirect.ts';

const ORIGIN = 'https://lend.example.com';

/** What a browser does with a Location header: resolve it against the page's URL. */
function landsOn(location: string): string {
  return new URL(location, `${ORIGIN}/user/login`).origin;
}

describe('safeRedirect', () => {
  it.each(LEGITIMATE_REDIRECTS.map(([input, expected]) => [input, expected]))('keeps %s as %s', (input, expected) => {
    expect(safeRedirect(input)).toBe(expected);
  });

  it.each(HOSTILE_REDIRECTS.map((p) => [JSON.stringify(p).slice(0, 80), p]))('refuses %s', (_label, payload) => {
    expect(safeRedirect(payload)).toBe('/');
  });

  it.each(SAME_ORIGIN_ODDITIES.map((p) => [p]))('keeps %s on our origin', (payload) => {
    const target = safeRedirect(payload);
    expect(target).toMatch(/^\/(?![/\\])/);
    expect(landsOn(target)).toBe(ORIGIN);
  });

  it('answers a value that means the same when read again, and whose every decoding is a same-origin path', () => {
    for (const payload of [...HOSTILE_REDIRECTS, ...SAME_ORIGIN_ODDITIES, ...LEGITIMATE_REDIRECTS.map(([i]) => i)]) {
      const target = safeRedirect(payload);
      expect(safeRedirect(target)).toBe(target);
      let layer = target;
      for (let i = 0; i < 5; i++) {
        expect(landsOn(layer)).toBe(ORIGIN);
        expect(layer).not.toMatch(/^\/[/\\]|\\/);
        try {
          layer = decodeURIComponent(layer);
        } catch {
          break;
        }
      }
    }
  });

  it('falls back for empty and missing values, and to the fallback given', () => {
    expect(safeRedirect('')).toBe('/');
    expect(safeRedirect(null)).toBe('/');
    expect(safeRedirect(undefined)).toBe('/');
    expect(safeRedirect('//evil.test', '/home')).toBe('/home');
  });
});
