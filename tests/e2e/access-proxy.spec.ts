import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';

// The app behind a TLS-terminating proxy (PUBLIC_URL=https://…): HSTS on, and the CSRF check takes
// PUBLIC_URL as our origin, so the browser's https Origin passes (no false 403) while the plain
// origin the server itself sees is foreign. Runs its own server process on another port.
const PORT = Number(process.env.E2E_PROXY_PORT ?? 4431);
const PUBLIC_URL = 'https://lend.example.test';
const BASE = `http://localhost:${PORT}`;

let server: ChildProcess | undefined;
let dataDir: string;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lending-proxy-e2e-'));
  server = spawn(process.execPath, ['scripts/server.mjs'], {
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: 'localhost',
      DATA_DIR: dataDir,
      PUBLIC_URL,
      LOG_LEVEL: 'error',
      SEED_DEMO: '0',
      E2E: '1',
    },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 110_000;
  for (;;) {
    try {
      if ((await fetch(`${BASE}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the proxy-mode server did not start');
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
});

test.afterAll(async () => {
  if (server?.pid) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server!.once('exit', resolve));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test.describe('[ACCESS]: behind a TLS proxy (PUBLIC_URL https)', () => {
  test('HTML carries HSTS and an upgrade-insecure-requests CSP', async ({ request }) => {
    const response = await request.get(`${BASE}/user/login`);
    expect(response.status()).toBe(200);
    expect(response.headers()['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
    expect(response.headers()['content-security-policy']).toContain('upgrade-insecure-requests');
  });

  test('the public https origin passes CSRF; the internal http origin is foreign', async ({ request }) => {
    const json = { 'content-type': 'application/json' };
    const viaProxy = await request.post(`${BASE}/v1/error-reports`, {
      headers: { ...json, origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin' },
      data: { message: 'x' },
    });
    expect(viaProxy.status()).toBe(401); // through CSRF, stopped by the guard: signed out
    const internal = await request.post(`${BASE}/v1/error-reports`, {
      headers: { ...json, origin: BASE },
      data: { message: 'x' },
    });
    expect(internal.status()).toBe(403);
  });
});
