import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.ts';
import { clientErrorOf, clientErrorPage } from './client-errors.ts';

describe('client errors of pages', () => {
  it('maps what loaders throw to the status and page the client sees', () => {
    expect(clientErrorOf(new AppError('NOT_FOUND', 'Offer not found', { field: 'offerId' }))).toEqual({
      status: 404,
      field: 'offerId',
      message: 'Offer not found',
    });
    expect(clientErrorOf(new AppError('FORBIDDEN', 'no'))?.status).toBe(403);
    expect(clientErrorOf(new AppError('BAD_REQUEST', 'bad', { field: 'q' }))?.status).toBe(400);
    expect(
      clientErrorOf(Object.assign(new Error('invalid input syntax for type uuid'), { code: '22P02' }))?.status,
    ).toBe(400);
  });

  it('leaves real failures to the 500 page', () => {
    for (const error of [
      new Error('boom'),
      new AppError('INTERNAL', 'x'),
      new AppError('UNAVAILABLE', 'x'),
      new AppError('CONFLICT', 'x'),
      undefined,
    ]) {
      expect(clientErrorOf(error)).toBeNull();
    }
  });

  it('renders the section’s own 403/404 page, and /400 for the rest', () => {
    expect(clientErrorPage('/loans/customer/profile/x/offers/y', 404)).toBe('/loans/404');
    expect(clientErrorPage('/admin/user/users', 403)).toBe('/admin/403');
    expect(clientErrorPage('/analytics/queries/1', 404)).toBe('/analytics/404');
    expect(clientErrorPage('/conversations', 404)).toBe('/404');
    expect(clientErrorPage('/loans/customers', 400)).toBe('/400');
  });
});
