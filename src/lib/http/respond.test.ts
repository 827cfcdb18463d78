import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.ts';
import { errorResponse } from './respond.ts';

describe('errorResponse', () => {
  it('answers a throttled request 429 with Retry-After in seconds and the one error shape', async () => {
    const response = errorResponse(
      new AppError('TOO_MANY_REQUESTS', 'Too many failed attempts.', { details: { retry_after: 61.2 } }),
    );
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('62');
    expect(await response.json()).toEqual({
      error: { code: 'TOO_MANY_REQUESTS', message: 'Too many failed attempts.', retry_after: 61.2 },
    });
  });

  it('sends no Retry-After when the error names no wait', () => {
    expect(errorResponse(new AppError('CONFLICT', 'Busy')).headers.has('retry-after')).toBe(false);
  });
});
