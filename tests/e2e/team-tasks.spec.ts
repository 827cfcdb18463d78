import { randomUUID } from 'node:crypto';
import { expect, signIn, test } from './support/fixtures.ts';

// [TASKS] The officer creates a task for one of their loans and hands it to a colleague of the same
// branch (agent.fr@demo.test, PAR-01, French); the colleague finds it under "mine" and in the bell,
// follows the notification (marked read) and marks the task done, which moves it to "done". No
// assertion depends on the business date (another team-* spec moves it).

test('[TASKS] the officer assigns a task about a loan; the assignee sees it under "mine", in the bell, and marks it done', async ({
  browser,
  baseURL,
}) => {
  const title = `Call back about the next installment ${Date.now()}`;

  const officerContext = await browser.newContext({ baseURL, viewport: { width: 1366, height: 900 } });
  const officer = await officerContext.newPage();
  await signIn(officer, 'officer@demo.test');
  // Open one of the officer's loans from the loans list, then its "New task" link.
  await officer.goto('/loans/loans');
  await officer.locator('table.data-table tbody tr a').first().click();
  await expect(officer).toHaveURL(/\/loans\/customer\/profile\/[^/]+\/loans\/[^/]+$/);
  const loanId = officer.url().split('/').pop()!;
  await officer.locator('a[data-new-task]').click();
  await expect(officer).toHaveURL(new RegExp(`/loans/tasks/new\\?loan=${loanId}$`));
  await expect(officer.locator('[data-linked]')).toContainText('Loan');
  await officer.getByLabel('Title').fill(title);
  await officer.getByLabel('Assignee').selectOption({ label: 'Antoine Agent' });
  await officer.getByLabel('Priority').selectOption('high');
  await officer.getByRole('button', { name: 'Create task' }).click();
  await expect(officer).toHaveURL(/\/loans\/tasks\/edit\/[0-9a-f-]{36}\?done=created$/);
  await expect(officer.getByRole('status')).toContainText('Task created.');
  const taskId = new URL(officer.url()).pathname.split('/').pop()!;
  // The officer sees it in the team's tab (given to a colleague), not in their own.
  await officer.goto('/loans/tasks?tab=team');
  await expect(officer.locator(`tr[data-task="${taskId}"]`)).toContainText('Antoine Agent');
  await expect(officer.locator(`tr[data-task="${taskId}"] a[href*="/loans/"]`).first()).toBeVisible();
  await officer.goto('/loans/tasks?tab=mine');
  await expect(officer.locator(`tr[data-task="${taskId}"]`)).toHaveCount(0);
  await officerContext.close();

  // The assignee works in French, at 1024 px.
  const agentContext = await browser.newContext({ baseURL, viewport: { width: 1024, height: 800 } });
  const agent = await agentContext.newPage();
  await signIn(agent, 'agent.fr@demo.test');
  await agent.goto('/loans/tasks');
  await expect(agent.getByRole('heading', { level: 1, name: 'Tâches' })).toBeVisible();
  await expect(agent.locator('a[data-tab="mine"]')).toHaveAttribute('aria-current', 'page');
  await expect(agent.locator('a[data-tab="mine"]')).toContainText('Les miennes');
  await expect(agent.locator('a[data-tab="done"]')).toContainText('Terminées');
  const row = agent.locator(`tr[data-task="${taskId}"]`);
  await expect(row).toContainText(title);
  await expect(row).toContainText('Haute');
  await expect(row).toContainText('Manuelle');
  // No horizontal scroll of the page at 1024 px.
  expect(await agent.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
  // …and the table fits its column (the row actions are not cut off).
  expect(await agent.locator('.table-scroll').evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);

  // The bell: the assignment is there; following it marks it read and opens the task.
  const bell = agent.locator('[data-bell]');
  await expect(bell.locator('.shell-bell-count')).toBeVisible();
  await bell.locator('summary').click();
  const notification = bell.locator('a[data-notification]', { hasText: title });
  await expect(notification).toContainText('Tâche confiée');
  await notification.click();
  await expect(agent).toHaveURL(new RegExp(`/loans/tasks/edit/${taskId}$`));
  const inbox = await (await agent.request.get('/v1/notifications')).json();
  expect(inbox.items.map((n: { title: string }) => n.title)).not.toContain(title);

  // Marking it done moves it from "mine" to "done".
  await agent.goto('/loans/tasks?tab=mine');
  await agent.getByRole('button', { name: `Marquer terminée: ${title}` }).click();
  await expect(agent.getByRole('status')).toContainText('Tâche marquée terminée.');
  await expect(agent.locator(`tr[data-task="${taskId}"]`)).toHaveCount(0);
  await agent.locator('a[data-tab="done"]').click();
  await expect(agent.locator(`tr[data-task="${taskId}"]`)).toContainText('Terminée');
  await agentContext.close();
});

test('[TASKS] the analyst (no tasks permission) gets 403; an unknown task is 404; a stale edit is 409 keeping the input', async ({
  page,
  browser,
  baseURL,
}) => {
  await signIn(page, 'analyst@demo.test');
  expect((await page.goto('/loans/tasks'))!.status()).toBe(403);
  expect((await page.goto('/loans/tasks/new'))!.status()).toBe(403);
  expect((await page.request.get('/v1/tasks')).status()).toBe(403);

  const context = await browser.newContext({ baseURL });
  const officer = await context.newPage();
  await signIn(officer, 'officer@demo.test');
  expect((await officer.goto(`/loans/tasks/edit/${randomUUID()}`))!.status()).toBe(404);
  expect((await officer.request.get(`/v1/tasks/${randomUUID()}`)).status()).toBe(404);

  // Two tabs of the same task: the second save is refused (409) and keeps what was typed.
  const created = await officer.request.post('/v1/tasks', {
    data: { title: `Stale form ${Date.now()}` },
    headers: { origin: baseURL! },
  });
  expect(created.status()).toBe(201);
  const task = await created.json();
  await officer.goto(`/loans/tasks/edit/${task.id}`);
  const patched = await officer.request.patch(`/v1/tasks/${task.id}`, {
    data: { expectedRevision: 1, title: 'Changed elsewhere' },
    headers: { origin: baseURL! },
  });
  expect(patched.status()).toBe(200);
  await officer.getByLabel('Title').fill('My own wording');
  const [response] = await Promise.all([
    officer.waitForResponse((r) => r.request().method() === 'POST'),
    officer.getByRole('button', { name: 'Save' }).click(),
  ]);
  expect(response.status()).toBe(409);
  await expect(officer.getByRole('alert')).toBeVisible();
  await expect(officer.getByLabel('Title')).toHaveValue('My own wording');
  // An empty title is a 422 naming the field.
  const invalid = await officer.request.post('/v1/tasks', { data: { title: '' }, headers: { origin: baseURL! } });
  expect(invalid.status()).toBe(422);
  expect((await invalid.json()).error).toMatchObject({ field: 'title', message: 'Title is required.' });
  await context.close();
});
