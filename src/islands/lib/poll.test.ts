import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startPolling } from './poll.ts';

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
  };
}

describe('downloads polling', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('polls every interval until nothing is pending', async () => {
    const results = [['running'], ['running'], ['done']];
    const load = vi.fn(async () => results.shift()!);
    const onResult = vi.fn();
    startPolling({
      intervalMs: 3000,
      doc: fakeDoc('visible'),
      load,
      onResult,
      onError: vi.fn(),
      shouldContinue: (s) => s.includes('running'),
    });
    await vi.advanceTimersByTimeAsync(2999);
    expect(load).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(6000);
    expect(onResult.mock.calls.map((c) => c[0])).toEqual([['running'], ['running'], ['done']]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('waits while the tab is hidden and polls when it is shown', async () => {
    const doc = fakeDoc('hidden');
    const load = vi.fn(async () => ['done']);
    startPolling({ intervalMs: 3000, doc, load, onResult: vi.fn(), onError: vi.fn(), shouldContinue: () => false });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(load).not.toHaveBeenCalled();
    doc.set('visible');
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('stops on an error and reports it; stop() cancels', async () => {
    const onError = vi.fn();
    const load = vi.fn(() => Promise.reject(new Error('HTTP 500 - Internal Server Error')));
    startPolling({
      intervalMs: 1000,
      doc: fakeDoc('visible'),
      load,
      onResult: vi.fn(),
      onError,
      shouldContinue: () => true,
    });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(load).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledOnce();
    const load2 = vi.fn(async () => ['running']);
    const stop = startPolling({
      intervalMs: 1000,
      doc: fakeDoc('visible'),
      load: load2,
      onResult: vi.fn(),
      onError,
      shouldContinue: () => true,
    });
    stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(load2).not.toHaveBeenCalled();
  });
});
