import { expect, signIn, signInThroughForm, test } from './support/fixtures.ts';
import { latestMailTo } from './support/mail.ts';

// Issue 11's first acceptance line, end to end through the pages a lender's administrator uses: a
// role with only Loans › Customers › View (roles editor), an invitation with that role scoped to one
// branch (users form), the e-mailed link (outbox), the first password, the invitee's sign-in, what
// they see (that branch's customers, 403 on loans, pages and API), then the administrator disables
// them and their open session is refused on its very next request. Everything it creates is its own.

const PASSWORD = 'Marble-Otter-Compass-73!';
const BRANCH = { code: 'LYO-01', name: 'Lyon Part-Dieu' };

type ListAnswer = { rows: { values: Record<string, unknown> }[]; next_cursor: string | null };

test('[ADMIN]: a new role, an invitation scoped to one branch, the invitee signs in and sees only that branch; disabled, refused', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const suffix = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
  const roleName = `Customer viewer ${suffix}`;
  const email = `e2e.viewer.${suffix}@demo.test`;
  const since = Date.now() - 1000;
  await signIn(page, 'admin@demo.test');

  // 1. The role, through the grouped editor.
  await page.goto('/admin/user/roles/add');
  await page.getByLabel('Name', { exact: true }).fill(roleName);
  await page.getByRole('checkbox', { name: 'Loans › Customers › View', exact: true }).check();
  await page.getByRole('button', { name: 'Create role' }).click();
  await expect(page.getByRole('status')).toHaveText(`The role ${roleName} was created.`);

  // 2. The invitation, with that role, scoped to the Lyon branch.
  await page.goto('/admin/user/users/add');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Name').fill('Vera Viewer');
  await page.getByLabel('Language').selectOption('en-US');
  await page.getByRole('checkbox', { name: roleName, exact: true }).check();
  await page.getByRole('checkbox', { name: new RegExp(`^${BRANCH.name} ${BRANCH.code}`) }).check();
  await page.getByRole('button', { name: 'Send the invitation' }).click();
  await expect(page).toHaveURL(/\/admin\/user\/users\/edit\/[0-9a-f-]{36}\?done=invited$/);
  const editUrl = new URL(page.url()).pathname;

  // 3. The invitee follows the e-mailed link in their own browser, sets a password and signs in.
  const mail = await latestMailTo(email, since);
  const link = mail.match(/https?:\/\/\S+\/user\/reset-password\?\S+/)?.[0];
  expect(link, mail).toBeTruthy();
  const context = await browser.newContext({ baseURL });
  const invitee = await context.newPage();
  try {
    const url = new URL(link!);
    await invitee.goto(`${url.pathname}${url.search}`);
    await invitee.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await invitee.getByLabel('Confirm the new password').fill(PASSWORD);
    await invitee.getByRole('button', { name: 'Set my password' }).click();
    await expect(invitee).toHaveURL(/\/user\/login/);
    await signInThroughForm(invitee, email, PASSWORD);
    await expect(invitee).not.toHaveURL(/\/user\/login/);

    // 4. That branch's customers only: the page opens, and every customer the list API gives is in Lyon.
    const customersPage = await invitee.goto('/loans/customers');
    expect(customersPage?.status()).toBe(200);
    await expect(invitee.locator('table tbody tr').first()).toContainText(BRANCH.name);
    const branches = new Set<unknown>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const answer = await invitee.request.get(`/v1/lists/customers?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(answer.status(), await answer.text()).toBe(200);
      const body = (await answer.json()) as ListAnswer;
      for (const row of body.rows) branches.add(row.values.branch);
      cursor = body.next_cursor;
    } while (cursor && ++pages < 20);
    expect([...branches]).toEqual([BRANCH.name]);

    // …and 403 on loans, on the page and on the API.
    expect((await invitee.goto('/loans/loans'))?.status()).toBe(403);
    expect((await invitee.request.get('/v1/loans')).status()).toBe(403);

    // 5. The administrator disables them: the invitee's open session is refused on its next request.
    await page.goto(editUrl);
    await page.getByText('Disable the user').click();
    await page.getByRole('button', { name: 'Yes, disable Vera Viewer' }).click();
    await expect(page.locator('[data-status]')).toHaveText('Disabled');
    expect((await invitee.request.get('/v1/users/me')).status()).toBe(401);
    await invitee.goto('/loans/customers');
    await expect(invitee).toHaveURL(/\/user\/login/);
  } finally {
    await context.close();
  }
});
