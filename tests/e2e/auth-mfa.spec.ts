import { expect, signInThroughForm, test } from './support/fixtures.ts';
import { hotp, totpStep } from '#lib/auth/totp.ts';

test('[AUTH]: TOTP enrolment, then sign-in asks for the code and refuses a reused one', async ({ page, context }) => {
  await signInThroughForm(page, 'e2e.mfa@demo.test');
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await page.goto('/user/mfa');
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await expect(page.getByTestId('totp-uri')).toHaveAttribute('href', new RegExp(`^otpauth://totp/.*secret=${secret}`));
  const enrolCode = hotp(secret, totpStep(new Date()));
  await page.getByLabel('Verification code').fill(enrolCode);
  await page.getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByRole('status')).toContainText('Multi-factor authentication is now on');

  await context.clearCookies();
  await signInThroughForm(page, 'e2e.mfa@demo.test');
  await expect(page).toHaveURL(/\/user\/mfa/);
  // Nothing is reachable with only the password.
  expect((await page.request.get('/v1/users/me')).status()).toBe(401);
  // The enrolment code was used: refused even inside its time window.
  await page.getByLabel('Verification code').fill(enrolCode);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText(/already used|not valid/);
  // The next step's code is within the accepted drift window and unused.
  await page.getByLabel('Verification code').fill(hotp(secret, totpStep(new Date()) + 1));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  expect((await page.request.get('/v1/users/me')).status()).toBe(200);
});
