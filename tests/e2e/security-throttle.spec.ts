import { request, type APIRequestContext, type APIResponse } from '@playwright/test';
import { DEMO_PASSWORD, expect, test } from './support/fixtures.ts';
import { hotp, totpStep } from '#lib/auth/totp.ts';
import {
  accountFor,
  evaluationsOf,
  MAX_EVALUATIONS,
  PARALLEL_ATTEMPTS,
  rotatingIps,
  SPELLINGS,
  spoofedChains,
  WRONG_PASSWORDS,
} from './support/payloads-throttle.ts';

// [SECURITY] The throttle counts atomically with its check, so 50 parallel guesses
// get at most 10 evaluations (27 did before); the rest are refused with 429, Retry-After in seconds
// and the one error shape. Per account across IPs, per IP across accounts, TOTP codes alike.

async function api(baseURL: string): Promise<APIRequestContext> {
  return request.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
}

const signIn = (ctx: APIRequestContext, email: string, password: string, forwardedFor: string) =>
  ctx.post('/v1/auth/sign-in', { data: { email, password }, headers: { 'x-forwarded-for': forwardedFor } });

async function expectThrottled(response: APIResponse): Promise<void> {
  expect(response.status()).toBe(429);
  const retryAfter = response.headers()['retry-after'];
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThan(0);
  expect(Number(retryAfter)).toBeLessThanOrEqual(15 * 60);
  expect((await response.json()).error).toMatchObject({
    code: 'TOO_MANY_REQUESTS',
    message: expect.any(String),
    retry_after: expect.any(Number),
  });
}

async function tally(responses: APIResponse[]): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status()] = (counts[r.status()] ?? 0) + 1;
  for (const r of responses.filter((r) => r.status() === 429)) await expectThrottled(r);
  return counts;
}

test('[SECURITY]: 50 parallel wrong passwords on one account from rotating IPs: ≤ 10 evaluated, then 429 + Retry-After', async ({
  baseURL,
}) => {
  test.setTimeout(120_000);
  const ctx = await api(baseURL!);
  const email = accountFor('account');
  const ips = rotatingIps(PARALLEL_ATTEMPTS, 1);
  const responses = await Promise.all(
    ips.map((ip, i) => signIn(ctx, SPELLINGS(email)[i % 5], WRONG_PASSWORDS[i % WRONG_PASSWORDS.length], ip)),
  );
  const counts = await tally(responses);
  expect((counts[401] ?? 0) + (counts[400] ?? 0)).toBeLessThanOrEqual(MAX_EVALUATIONS);
  expect(counts[429]).toBeGreaterThanOrEqual(PARALLEL_ATTEMPTS - MAX_EVALUATIONS);
  expect(evaluationsOf(`account:${email}`)).toBeLessThanOrEqual(MAX_EVALUATIONS);
  expect(evaluationsOf(`account:${email}`)).toBeGreaterThan(0);
  // Still locked from a fresh address, and the login form answers the same way.
  await expectThrottled(await signIn(ctx, email, 'another', '198.18.9.9'));
  const page = await ctx.post('/user/login', {
    form: { email, password: 'again' },
    headers: { 'x-forwarded-for': '198.18.9.10' },
  });
  expect(page.status()).toBe(429);
  expect(page.headers()['retry-after']).toMatch(/^\d+$/);
  await ctx.dispose();
});

test('[SECURITY]: 50 parallel attempts from one IP across accounts: ≤ 10 evaluated; spoofed X-Forwarded-For resets nothing', async ({
  baseURL,
}) => {
  test.setTimeout(120_000);
  const ctx = await api(baseURL!);
  const ip = rotatingIps(1, 2)[0];
  const emails = Array.from({ length: PARALLEL_ATTEMPTS }, (_, i) => accountFor(`ip${i}`));
  const responses = await Promise.all(
    emails.map((email, i) => signIn(ctx, email, WRONG_PASSWORDS[i % WRONG_PASSWORDS.length], ip)),
  );
  const counts = await tally(responses);
  expect((counts[401] ?? 0) + (counts[400] ?? 0)).toBeLessThanOrEqual(MAX_EVALUATIONS);
  const evaluated = emails.reduce((n, email) => n + evaluationsOf(`account:${email}`), 0);
  expect(evaluated).toBeLessThanOrEqual(MAX_EVALUATIONS);
  // Writing other addresses to the left of the real hop changes nothing: still this IP, still locked.
  for (const chain of spoofedChains(ip)) await expectThrottled(await signIn(ctx, accountFor('spoof'), 'x', chain));
  await ctx.dispose();
});

test('[SECURITY]: 30 parallel wrong TOTP codes: ≤ 10 compared, then 429 + Retry-After', async ({ baseURL }) => {
  test.setTimeout(120_000);
  const ctx = await api(baseURL!);
  const email = 'e2e.throttle@demo.test';
  const home = rotatingIps(1, 3)[0];
  expect((await signIn(ctx, email, DEMO_PASSWORD, home)).status()).toBe(200);
  const begun = await ctx.post('/v1/auth/mfa/enrolment', { data: {}, headers: { 'x-forwarded-for': home } });
  expect(begun.status()).toBe(201);
  const { secret } = await begun.json();
  const now = totpStep(new Date());
  // Codes that are wrong for this secret (none of the steps the server accepts).
  const valid = new Set([-1, 0, 1].map((d) => hotp(secret, now + d)));
  const wrong = Array.from({ length: 200 }, (_, i) => String(100000 + i * 4099).slice(0, 6))
    .filter((c) => !valid.has(c))
    .slice(0, 30);
  const ips = rotatingIps(wrong.length, 4);
  const responses = await Promise.all(
    wrong.map((code, i) =>
      ctx.put('/v1/auth/mfa/enrolment', { data: { code }, headers: { 'x-forwarded-for': ips[i] } }),
    ),
  );
  const counts = await tally(responses);
  expect(counts[400] ?? 0).toBeLessThanOrEqual(MAX_EVALUATIONS);
  expect(counts[429]).toBeGreaterThanOrEqual(wrong.length - MAX_EVALUATIONS);
  const me = await (await ctx.get('/v1/users/me', { headers: { 'x-forwarded-for': home } })).json();
  expect(evaluationsOf(`totp:${me.tenant_id}:${me.id}`)).toBeLessThanOrEqual(MAX_EVALUATIONS);
  expect(evaluationsOf(`totp:${me.tenant_id}:${me.id}`)).toBeGreaterThan(0);
  // Locked: even the right code is refused now.
  await expectThrottled(
    await ctx.put('/v1/auth/mfa/enrolment', {
      data: { code: hotp(secret, totpStep(new Date())) },
      headers: { 'x-forwarded-for': '198.18.9.20' },
    }),
  );
  await ctx.dispose();
});
