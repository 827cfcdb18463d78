import { describe, expect, it } from 'vitest';
import { checkCsrf } from './csrf.ts';

const base = { requestOrigin: 'http://localhost:4321' };
const h = (o: Record<string, string>) => new Headers(o);

describe('checkCsrf', () => {
  it.each([
    [
      'GET from anywhere',
      {
        method: 'GET',
        path: '/v1/users/me',
        headers: h({ origin: 'https://evil.test', 'sec-fetch-site': 'cross-site' }),
      },
      true,
    ],
    [
      'same-origin JSON',
      {
        method: 'POST',
        path: '/v1/error-reports',
        headers: h({
          origin: 'http://localhost:4321',
          'sec-fetch-site': 'same-origin',
          'content-type': 'application/json',
          'content-length': '2',
        }),
      },
      true,
    ],
    [
      'foreign Origin',
      {
        method: 'POST',
        path: '/v1/error-reports',
        headers: h({ origin: 'https://evil.test', 'content-type': 'application/json', 'content-length': '2' }),
      },
      false,
    ],
    ['Origin null', { method: 'POST', path: '/loans/tasks/new', headers: h({ origin: 'null' }) }, false],
    [
      'cross-site fetch metadata',
      { method: 'DELETE', path: '/v1/x', headers: h({ 'sec-fetch-site': 'cross-site' }) },
      false,
    ],
    [
      'same-site (sibling subdomain)',
      { method: 'POST', path: '/v1/x', headers: h({ 'sec-fetch-site': 'same-site' }) },
      false,
    ],
    [
      'JSON sent as text/plain',
      {
        method: 'POST',
        path: '/v1/error-reports',
        headers: h({ origin: 'http://localhost:4321', 'content-type': 'text/plain', 'content-length': '9' }),
      },
      false,
    ],
    [
      'form post to the JSON API',
      {
        method: 'POST',
        path: '/v1/loans/1/repayments',
        headers: h({
          origin: 'http://localhost:4321',
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': '9',
        }),
      },
      false,
    ],
    [
      'same-origin form post to a page',
      {
        method: 'POST',
        path: '/loans/tasks/new',
        headers: h({
          origin: 'http://localhost:4321',
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': '9',
        }),
      },
      true,
    ],
    [
      'same-origin form sign-in',
      {
        method: 'POST',
        path: '/v1/auth/sign-in',
        headers: h({
          origin: 'http://localhost:4321',
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': '9',
        }),
      },
      true,
    ],
    [
      'cross-site form sign-in (login CSRF)',
      {
        method: 'POST',
        path: '/v1/auth/sign-in',
        headers: h({ origin: 'https://evil.test', 'content-type': 'application/x-www-form-urlencoded' }),
      },
      false,
    ],
    [
      'same-origin multipart upload',
      {
        method: 'POST',
        path: '/v1/customers/1/files',
        headers: h({
          origin: 'http://localhost:4321',
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': '9',
        }),
      },
      true,
    ],
    [
      'multipart without Origin',
      {
        method: 'POST',
        path: '/v1/customers/1/files',
        headers: h({ 'content-type': 'multipart/form-data; boundary=x', 'content-length': '9' }),
      },
      false,
    ],
    [
      'empty-body POST',
      { method: 'POST', path: '/v1/auth/sign-out', headers: h({ origin: 'http://localhost:4321' }) },
      true,
    ],
    [
      'bearer API client',
      {
        method: 'POST',
        path: '/v1/loans/1/repayments',
        headers: h({ authorization: 'Bearer abc', 'content-type': 'text/plain', 'content-length': '2' }),
      },
      true,
    ],
    [
      'no browser headers (curl) with JSON',
      { method: 'PATCH', path: '/v1/x', headers: h({ 'content-type': 'application/json', 'content-length': '2' }) },
      true,
    ],
  ])('%s', (_name, input, ok) => {
    expect(checkCsrf({ ...base, ...input }).ok).toBe(ok);
  });

  it('uses PUBLIC_URL as our origin behind a TLS proxy', () => {
    const headers = h({
      origin: 'https://lend.example.com',
      'content-type': 'application/json',
      'content-length': '2',
    });
    expect(
      checkCsrf({
        method: 'POST',
        path: '/v1/x',
        requestOrigin: 'http://127.0.0.1:4321',
        publicUrl: 'https://lend.example.com/',
        headers,
      }).ok,
    ).toBe(true);
    expect(checkCsrf({ method: 'POST', path: '/v1/x', requestOrigin: 'http://127.0.0.1:4321', headers }).ok).toBe(
      false,
    );
  });
});
