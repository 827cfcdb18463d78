import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_AFTER_CAP_MS, retryAfterMs, retryDelayMs } from './schedule.ts';

describe('webhook retry schedule', () => {
  it('spans at least 24 hours even with every jitter at its lowest', () => {
    let total = 0;
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) total += retryDelayMs(attempt, 0)!;
    expect(total).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(retryDelayMs(MAX_ATTEMPTS, 0.5)).toBeNull();
  });
  it('grows and jitters by ±20 %', () => {
    expect(retryDelayMs(1, 0.5)).toBe(5_000);
    expect(retryDelayMs(1, 0)).toBe(4_000);
    expect(retryDelayMs(1, 0.999999)).toBe(6_000);
    expect(retryDelayMs(2, 0.5)).toBe(300_000);
    expect(retryDelayMs(4, 0.5)).toBe(7_200_000);
  });
  it('reads Retry-After as seconds or a date, capped', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('999999999', now)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });
});
