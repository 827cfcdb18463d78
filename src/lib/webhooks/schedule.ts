/**
 * When a failed delivery is tried again. Delays after attempt 1, 2, … (±20 % jitter so that many
 * endpoints failing together do not come back together): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h,
 * 10 h. Nine attempts spanning 37.6 h nominally and at least 30 h with the jitter (goal 16: ≥ 24 h).
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** Attempts a delivery gets before it is marked failed. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export const JITTER = 0.2;

/** The longest a 429's Retry-After may push the next attempt. */
export const RETRY_AFTER_CAP_MS = 10 * 3_600_000;

/**
 * The delay before the attempt after `attempt` (1-based), or null when it was the last one.
 * `random` in [0, 1) gives the jitter (injected by tests).
 */
export function retryDelayMs(attempt: number, random: number = Math.random()): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random));
}

/**
 * A Retry-After header (seconds or an HTTP date) as milliseconds from `now`, capped; null when
 * absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, now: Date): number | null {
  if (!header) return null;
  const text = header.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = at - now.getTime();
  }
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(1000, ms));
}
