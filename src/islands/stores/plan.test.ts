import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  $plan,
  PLAN_REFRESH_MS,
  isEnabled,
  isLimitReached,
  seedPlan,
  startPlanRefresh,
  type PricingFeature,
} from './plan.ts';

function fakeDoc(state: 'visible' | 'hidden') {
  const listeners = new Set<() => void>();
  return {
    visibilityState: state as string,
    addEventListener: (_: 'visibilitychange', fn: () => void) => void listeners.add(fn),
    removeEventListener: (_: 'visibilitychange', fn: () => void) => void listeners.delete(fn),
    set(next: 'visible' | 'hidden') {
      this.visibilityState = next;
      listeners.forEach((fn) => fn());
    },
    listenerCount: () => listeners.size,
  };
}

const FEATURES: PricingFeature[] = [
  {
    name: 'exports',
    supports_usage_limit: true,
    usage_unit: 'files',
    plans: [{ enabled: true, unlimited: false, usage_limit: 10 }],
    usage: 10,
  },
  { name: 'strategies', supports_usage_limit: false, usage_unit: null, plans: [{ enabled: false, unlimited: true }] },
];

describe('$plan refresh', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    seedPlan([]);
  });
  afterEach(() => vi.useRealTimers());

  it('fetches at start when visible and every 5 minutes while visible', async () => {
    const doc = fakeDoc('visible');
    const fetchPlan = vi.fn(async () => FEATURES);
    const stop = startPlanRefresh({ fetchPlan, doc });
    expect(fetchPlan).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(PLAN_REFRESH_MS - 1);
    expect(fetchPlan).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchPlan).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(PLAN_REFRESH_MS * 2);
    expect(fetchPlan).toHaveBeenCalledTimes(4);
    expect($plan.get().features).toEqual(FEATURES);
    stop();
    await vi.advanceTimersByTimeAsync(PLAN_REFRESH_MS * 3);
    expect(fetchPlan).toHaveBeenCalledTimes(4);
    expect(doc.listenerCount()).toBe(0);
  });

  it('stops while hidden and refreshes when the tab becomes visible again', async () => {
    const doc = fakeDoc('visible');
    const fetchPlan = vi.fn(async () => FEATURES);
    startPlanRefresh({ fetchPlan, doc, refreshNow: false });
    expect(fetchPlan).toHaveBeenCalledTimes(0);
    doc.set('hidden');
    await vi.advanceTimersByTimeAsync(PLAN_REFRESH_MS * 4);
    expect(fetchPlan).toHaveBeenCalledTimes(0);
    doc.set('visible');
    expect(fetchPlan).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(PLAN_REFRESH_MS);
    expect(fetchPlan).toHaveBeenCalledTimes(2);
  });

  it('does nothing while a hidden tab starts', async () => {
    const doc = fakeDoc('hidden');
    const fetchPlan = vi.fn(async () => FEATURES);
    startPlanRefresh({ fetchPlan, doc });
    await vi.advanceTimersByTimeAsync(PLAN_REFRESH_MS * 2);
    expect(fetchPlan).not.toHaveBeenCalled();
  });

  it('keeps the last features when a refresh fails', async () => {
    seedPlan(FEATURES);
    const doc = fakeDoc('visible');
    startPlanRefresh({ fetchPlan: () => Promise.reject(new Error('HTTP 503 - Service Unavailable')), doc });
    await vi.advanceTimersByTimeAsync(0);
    expect($plan.get().features).toEqual(FEATURES);
    expect($plan.get().error).toBe('HTTP 503 - Service Unavailable');
  });

  it('feature helpers read the store', () => {
    seedPlan(FEATURES);
    expect(isEnabled('exports')).toBe(true);
    expect(isEnabled('strategies')).toBe(false);
    expect(isEnabled('unknown')).toBe(false);
    expect(isLimitReached('exports')).toBe(true);
    expect(isLimitReached('exports', 9)).toBe(false);
    expect(isLimitReached('unknown')).toBe(false);
  });
});
