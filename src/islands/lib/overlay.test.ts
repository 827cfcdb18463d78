import { describe, expect, it } from 'vitest';
import { clampOpacity } from './overlay.ts';
import { describeFallback } from '../ui/error-boundary.tsx';

describe('loading overlay opacity', () => {
  it.each([
    [0.5, 0.5],
    [0, 0],
    [1, 1],
    [-0.2, 0],
    [1.7, 1],
    [Number.NaN, 1],
    [null, 1],
    [undefined, 1],
  ] as const)('%s → %s', (input, expected) => {
    expect(clampOpacity(input as number | null | undefined)).toBe(expected);
  });
});

describe('Unexpected Application Error! fallback text', () => {
  it('status and text when the error carries them, else the message', () => {
    expect(describeFallback({ status: 404, statusText: 'Not Found' })).toEqual({ status: 404, text: 'Not Found' });
    expect(describeFallback({ response: { status: 503, statusText: 'Service Unavailable' }, message: 'x' })).toEqual({
      status: 503,
      text: 'Service Unavailable',
    });
    expect(describeFallback(new Error('cannot read x'))).toEqual({ status: undefined, text: 'cannot read x' });
    expect(describeFallback(undefined)).toEqual({ status: undefined, text: 'Unknown error' });
  });
});
