import { expect, test } from '@playwright/test';

test('[PLATFORM]: health reports a reachable database', async ({ request }) => {
  const response = await request.get('/healthz');
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({ status: 'ok', database: { reachable: true } });
});
