import { request } from '@playwright/test';
import { DEMO_PASSWORD, expect, test } from './support/fixtures.ts';
import { LYING_BODIES, OVERSIZE_BODIES, sendRaw, serverRss, type BodyPayload } from './support/payloads-bodies.ts';

// [SECURITY] Every request body has a limit (small for JSON and forms, the
// documented one for uploads), refused with 413 in the one error shape before it is buffered, with or
// without a Content-Length, and the server's memory stays bounded however much is sent.

const MB = 1024 * 1024;

test('[SECURITY]: oversize bodies get 413 before buffering, public and signed-in, and the server stays small', async ({
  baseURL,
}) => {
  test.setTimeout(180_000);
  const port = Number(new URL(baseURL!).port);
  const origin = baseURL!;
  const api = await request.newContext({ baseURL, extraHTTPHeaders: { origin, 'x-forwarded-for': '198.51.100.40' } });
  const signedIn = await api.post('/v1/auth/sign-in', { data: { email: 'admin@demo.test', password: DEMO_PASSWORD } });
  expect(signedIn.status()).toBe(200);
  const cookie = (await api.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const customer = await api.post('/v1/customers', {
    data: { firstName: 'Body', lastName: `Limit ${Date.now() % 100000}` },
  });
  expect(customer.status()).toBe(201);
  const customerId = (await customer.json()).id as string;

  const headersFor = (payload: BodyPayload) => ({
    Origin: origin,
    'Sec-Fetch-Site': 'same-origin',
    'X-Forwarded-For': '198.51.100.41',
    ...(payload.isSignedIn ? { Cookie: cookie } : {}),
  });
  const withCustomer = (payload: BodyPayload): BodyPayload => ({
    ...payload,
    path: payload.path.replace('{customer}', customerId),
  });

  const before = serverRss();
  let peak = before;
  // The issue's own measure first: three 200 MB bodies to the public sign-in, at once.
  const big = OVERSIZE_BODIES.filter((p) => p.size === 200 * MB && p.framing !== 'declared-drip');
  for (let round = 0; round < 2; round++) {
    const answers = await Promise.all([...big, big[0]].map((p) => sendRaw(port, p, headersFor(p))));
    for (const answer of answers) expect(answer.status).toBe(413);
    peak = Math.max(peak, serverRss());
  }

  for (const raw of OVERSIZE_BODIES) {
    const payload = withCustomer(raw);
    const answer = await sendRaw(port, payload, headersFor(payload));
    expect(answer.status, `${payload.name}: ${answer.headers.split('\r\n')[0]}`).toBe(413);
    expect(answer.headers, payload.name).toMatch(/content-type: application\/json/i);
    const error = JSON.parse(answer.body).error;
    expect(error, payload.name).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringMatching(/larger than the limit/),
      max_bytes: expect.any(Number),
    });
    // Refused at the limit: never much more than the limit was accepted from the wire.
    expect(answer.sent, payload.name).toBeLessThan(Math.min(payload.size, error.max_bytes + 16 * MB) + 1);
    peak = Math.max(peak, serverRss());
  }

  for (const raw of LYING_BODIES) {
    const payload = withCustomer(raw);
    const answer = await sendRaw(port, payload, headersFor(payload));
    // Only the declared bytes are a body (here invalid JSON: 400); the rest is refused as a request.
    // Whether the client reads that 400 or sees the connection closed first depends on how much it was
    // still sending when the server closed: both are refusals. Never a success, never a 5xx.
    if (answer.status !== null) {
      expect(answer.status, payload.name).toBeLessThan(500);
      expect(answer.status, payload.name).not.toBe(200);
    }
    expect((await api.get('/healthz')).status(), payload.name).toBe(200);
    peak = Math.max(peak, serverRss());
  }

  // Bodies within their limits still work: the sign-in with a long (refused) field, an upload.
  const padded = await api.post('/v1/auth/sign-in', {
    data: { email: 'nobody@nowhere.test', password: 'x', redirect: '/'.padEnd(12_000, 'a') },
  });
  expect(padded.status()).toBe(400);
  const upload = await api.post(`/loans/customer/profile/${customerId}/files`, {
    multipart: { file: { name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.alloc(3 * MB, 'n') } },
    maxRedirects: 0,
  });
  expect(upload.status(), await upload.text()).toBe(303);
  expect(upload.headers().location).toMatch(/done=uploaded/);
  expect((await api.get('/healthz')).status()).toBe(200);

  // 3 × 200 MB once took the server from 0.8 to 2.1 GB; refused before buffering, it barely moves.
  const growth = peak - before;
  expect(growth, `RSS ${Math.round(before / MB)} MB → peak ${Math.round(peak / MB)} MB`).toBeLessThan(150 * MB);
  await api.dispose();
});
