import { expect, signInThroughForm, test } from './support/fixtures.ts';
import { latestMailTo } from './support/mail.ts';

test('[AUTH]: reset the password through the emailed link (outbox), once', async ({ page }) => {
  const since = Date.now() - 1000;
  await page.goto('/user/login');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByLabel('Email').fill('e2e.reset@demo.test');
  await page.getByRole('button', { name: 'Send the link' }).click();
  await expect(page.getByRole('status')).toContainText('If an account exists for this address');

  const mail = await latestMailTo('e2e.reset@demo.test', since);
  const link = mail.match(/https?:\/\/\S+\/user\/reset-password\?\S+/)?.[0];
  expect(link).toBeTruthy();
  const url = new URL(link!);
  await page.goto(`${url.pathname}${url.search}`);
  await page.getByLabel('New password', { exact: true }).fill('Reset through the outbox 9');
  await page.getByLabel('Confirm the new password').fill('Reset through the outbox 9');
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await expect(page).toHaveURL(/\/user\/login/);
  await expect(page.getByRole('status')).toHaveText('Your password has been changed. Sign in with the new one.');

  // The link worked once.
  await page.goto(`${url.pathname}${url.search}`);
  await expect(page.getByRole('alert')).toHaveText('This reset link is invalid or has expired. Ask for a new one.');

  await signInThroughForm(page, 'e2e.reset@demo.test', 'Reset through the outbox 9');
  await expect(page).toHaveURL((u) => u.pathname === '/');
});
