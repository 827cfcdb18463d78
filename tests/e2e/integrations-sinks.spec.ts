import crypto from 'node:crypto';
import pg from 'pg';
import type { Page } from '@playwright/test';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';

// Issue 16, event sinks: an administrator adds a Postgres sink in the page, pointing at a second real
// database on 127.0.0.1 (the e2e server runs with ALLOW_PRIVATE_TARGETS=1, playwright.config.ts), sees
// it deliver (lag goes to "Up to date"), pauses it, replays it; the pages in French at 1024 px without
// horizontal scroll; a role without admin.events.view gets 403.

const SERVER = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function setLanguage(page: Page, language: 'en-US' | 'fr-FR'): Promise<void> {
  const response = await page.request.post('/admin/user/profile', {
    form: { display_name: 'Alice Admin', language },
    headers: { origin: appOrigin() },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(303);
}

async function noHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

test.describe('[SINKS]: event sinks', () => {
  const targetDb = `e2e_sink_${crypto.randomBytes(4).toString('hex')}`;
  const targetUrl = new URL(SERVER);
  targetUrl.pathname = `/${targetDb}`;

  test.beforeAll(async () => {
    await admin(`create database ${targetDb}`);
  });
  test.afterAll(async () => {
    await admin(`drop database if exists ${targetDb} with (force)`);
  });

  test('[SINKS]: an administrator adds a Postgres sink, sees it deliver, pauses and replays it; French at 1024 px', async ({
    page,
  }) => {
    test.setTimeout(300_000);
    await signIn(page, 'admin@demo.test');
    await page.setViewportSize({ width: 1024, height: 800 });

    const overview = await page.goto('/admin/notifications/events');
    expect(overview?.status()).toBe(200);
    await page.getByRole('link', { name: /PostgreSQL/ }).click();
    await expect(page).toHaveURL(/\/admin\/notifications\/events\/postgres$/);
    await page.getByRole('link', { name: 'Add a sink' }).click();

    // A private host typed without the scheme the form expects is refused, naming the field.
    await page.getByLabel('Name').fill('E2E warehouse');
    await page.getByLabel('Connection string').fill('mysql://127.0.0.1/db');
    await page.getByRole('button', { name: 'Add the sink' }).click();
    await expect(page.getByRole('alert')).toContainText('connectionString');

    await page.getByLabel('Connection string').fill(`${targetUrl.toString()}?sslmode=disable`);
    await page.getByLabel('Schema').fill('warehouse');
    await page.getByRole('button', { name: 'Add the sink' }).click();
    await expect(page).toHaveURL(/\/admin\/notifications\/events\/postgres\/[0-9a-f-]{36}\?done=added/);
    await expect(page.getByRole('status')).toContainText('The sink was added');
    const detailUrl = page.url().split('?')[0];
    // The connection string is never sent back: only the masked summary.
    expect(await page.content()).not.toContain('sslmode=disable');
    await expect(page.locator('#sink-edit-connectionString')).toHaveValue('');

    // It delivers: the lag goes to "Up to date" and the target holds the events.
    await expect(async () => {
      await page.goto(detailUrl);
      await expect(page.getByTestId('sink-lag')).toHaveText('Up to date');
      await expect(page.getByTestId('sink-delivered')).not.toHaveText('0');
      await expect(page.getByText('Initial copy in progress')).toHaveCount(0);
    }).toPass({ timeout: 240_000, intervals: [2_000, 5_000] });
    const target = new pg.Client({ connectionString: targetUrl.toString() });
    await target.connect();
    try {
      const { rows } = await target.query<{ events: number; loans: number }>(
        `select (select count(*)::int from warehouse.events) as events, (select count(*)::int from warehouse.loans) as loans`,
      );
      expect(rows[0].events).toBeGreaterThan(0);
      expect(rows[0].loans).toBeGreaterThan(0);
    } finally {
      await target.end();
    }

    // Test connection, pause, replay.
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByTestId('sink-last-test')).toContainText('Succeeded');
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect(page.getByTestId('sink-status')).toHaveText('Paused');
    await page.getByLabel('Replay from (UTC)').fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Replay' }).click();
    await expect(page.getByRole('status')).toContainText('Replay started');
    await expect(page.getByTestId('sink-status')).toHaveText('Active');
    await expect(async () => {
      await page.goto(detailUrl);
      await expect(page.getByTestId('sink-lag')).toHaveText('Up to date');
    }).toPass({ timeout: 240_000, intervals: [2_000, 5_000] });
    await noHorizontalScroll(page);

    // French, 1024 px, no horizontal scroll.
    await setLanguage(page, 'fr-FR');
    try {
      await page.goto(detailUrl);
      await expect(page.getByRole('heading', { name: 'Livraison' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Mettre en pause' })).toBeVisible();
      await expect(page.getByTestId('sink-lag')).toHaveText('À jour');
      await noHorizontalScroll(page);
      await page.goto('/admin/notifications/events/postgres');
      await expect(page.getByRole('link', { name: 'Ajouter une destination' })).toBeVisible();
      await noHorizontalScroll(page);
      await page.goto('/admin/notifications/events/bigquery/add');
      await expect(page.getByLabel('Clé du compte de service (JSON)')).toBeVisible();
      await noHorizontalScroll(page);
      await page.goto('/admin/notifications/events/fineract/add');
      await expect(page.getByLabel('Adresse de Fineract')).toBeVisible();
      await noHorizontalScroll(page);
      const unknown = await page.goto('/admin/notifications/events/mysql');
      expect(unknown?.status()).toBe(404);
    } finally {
      await setLanguage(page, 'en-US');
    }

    // Delete (what was written stays in the target).
    await page.goto(detailUrl);
    await page.getByRole('button', { name: 'Delete the sink' }).click();
    await expect(page).toHaveURL(/\/admin\/notifications\/events\/postgres\?done=deleted/);
    expect((await page.goto(detailUrl))?.status()).toBe(404);
  });

  test('[SINKS]: a role without admin.events.view gets 403 on the pages and the API', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    for (const path of [
      '/admin/notifications/events',
      '/admin/notifications/events/postgres',
      '/admin/notifications/events/postgres/add',
    ])
      expect((await page.goto(path))?.status()).toBe(403);
    expect((await page.request.get('/v1/event-sinks')).status()).toBe(403);
    const post = await page.request.post('/v1/event-sinks', {
      data: { type: 'postgres', name: 'x', connectionString: 'postgres://u@203.0.113.5/db' },
      headers: { origin: appOrigin() },
    });
    expect(post.status()).toBe(403);
  });

  test('[SINKS]: the API: secrets never answered, 400 naming the field, 409 on a stale revision, pause/resume/replay/test', async ({
    page,
  }) => {
    await signIn(page, 'admin@demo.test');
    const headers = { origin: appOrigin(), 'content-type': 'application/json' };
    const connectionString = `${targetUrl.toString()}?sslmode=disable`;
    // (This server allows private targets for its local test databases: the SSRF refusals are in
    // tests/integration/sinks-ssrf.test.ts.) A malformed setting is a 400 naming the field.
    const refused = await page.request.post('/v1/event-sinks', {
      data: { type: 'postgres', name: 'x', connectionString: 'mysql://db.example.com/x' },
      headers,
    });
    expect(refused.status()).toBe(400);
    expect((await refused.json()).error.field).toBe('connectionString');
    const created = await page.request.post('/v1/event-sinks', {
      data: { type: 'postgres', name: 'API <b>sink</b>', connectionString, schema: 'api_copy', events: ['loan.*'] },
      headers,
    });
    expect(created.status()).toBe(201);
    const sink = await created.json();
    expect(JSON.stringify(sink)).not.toContain('sslmode');
    expect(sink.events).toEqual(['loan.*']);
    // Hostile text in a name is shown as text.
    await page.goto(`/admin/notifications/events/postgres/${sink.id}`);
    await expect(page.getByRole('heading', { level: 1 })).toContainText('API <b>sink</b>');
    const listed = await page.request.get('/v1/event-sinks?type=postgres');
    expect(JSON.stringify(await listed.json())).not.toContain('sslmode');
    const stale = await page.request.patch(`/v1/event-sinks/${sink.id}`, {
      data: { name: 'renamed', expectedRevision: sink.revision + 5 },
      headers,
    });
    expect(stale.status()).toBe(409);
    const renamed = await page.request.patch(`/v1/event-sinks/${sink.id}`, {
      data: { name: 'API renamed', expectedRevision: sink.revision },
      headers,
    });
    expect(renamed.status()).toBe(200);
    expect((await page.request.post(`/v1/event-sinks/${sink.id}/pause`, { headers })).status()).toBe(200);
    expect((await (await page.request.get(`/v1/event-sinks/${sink.id}`)).json()).status).toBe('paused');
    const badReplay = await page.request.post(`/v1/event-sinks/${sink.id}/replay`, {
      data: { since: 'yesterday' },
      headers,
    });
    expect(badReplay.status()).toBe(400);
    expect((await badReplay.json()).error.field).toBe('since');
    const replay = await page.request.post(`/v1/event-sinks/${sink.id}/replay`, {
      data: { since: '2020-01-01T00:00:00Z' },
      headers,
    });
    expect(replay.status()).toBe(200);
    expect((await replay.json()).sink.status).toBe('active');
    const tested = await page.request.post(`/v1/event-sinks/${sink.id}/test`, { headers });
    expect(tested.status()).toBe(200);
    expect((await tested.json()).ok).toBe(true);
    await page.goto(`/admin/notifications/events/postgres/${sink.id}`);
    await expect(page.getByRole('heading', { level: 1 })).toContainText('API renamed');
    expect(
      (await page.request.delete(`/v1/event-sinks/${sink.id}`, { headers: { origin: appOrigin() } })).status(),
    ).toBe(200);
    expect((await page.request.get(`/v1/event-sinks/${sink.id}`)).status()).toBe(404);
  });
});
