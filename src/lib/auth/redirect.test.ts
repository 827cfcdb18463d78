import { describe, expect, it } from 'vitest';
import { safeRedirect } from './redirect.ts';

describe('safeRedirect', () => {
  it.each([
    ['/loans/loans?tab=overdue', '/loans/loans?tab=overdue'],
    ['/analytics/overview#chart', '/analytics/overview#chart'],
    ['https://evil.test/x', '/'],
    ['//evil.test/x', '/'],
    ['/\\evil.test', '/'],
    ['/%0d%0aSet-Cookie:x', '/%0d%0aSet-Cookie:x'],
    ['javascript:alert(1)', '/'],
    ['/user/login?redirect=/x', '/'],
    ['', '/'],
    [null, '/'],
  ])('%s → %s', (input, expected) => {
    expect(safeRedirect(input)).toBe(expected);
  });
});
