import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

const port = Number(process.env.E2E_PORT ?? 4399);
// A throwaway data directory per run: the browser tests start from a freshly seeded demo.
// Set once in the runner's process and inherited by the workers, so tests can read the server's outbox.
const dataDir = (process.env.E2E_DATA_DIR ??= path.join(os.tmpdir(), `lending-e2e-${process.pid}`));
// The OpenID provider the single sign-on test starts (tests/e2e/auth-sso.spec.ts); the server only
// contacts it when that test signs in. TRUST_PROXY lets the throttling test stand for distinct
// client IPs through X-Forwarded-For instead of locking out 127.0.0.1 for every other test.
const E2E_OIDC_PORT = Number(process.env.E2E_OIDC_PORT ?? 4398);

/** The Standard Webhooks secret of the inbound conversations webhook in the browser tests. */
export const E2E_INBOUND_WEBHOOK_SECRET =
  'whsec_' + Buffer.from('e2e-inbound-webhook-secret-0123456789').toString('base64');

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 60_000,
  fullyParallel: false,
  workers: 1,
  reporter: process.env.CI ? 'line' : 'list',
  use: {
    baseURL: `http://localhost:${port}`,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    trace: 'retain-on-failure',
  },
  webServer: {
    command: 'node scripts/server.mjs',
    url: `http://localhost:${port}/healthz`,
    // First start seeds the demo tenants with five months of history through the engine (each month
    // end also writes the analytics rollups): about a minute on a quiet 2-core machine, several under load.
    timeout: 360_000,
    reuseExistingServer: false,
    env: {
      PORT: String(port),
      HOST: 'localhost',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ASTRO_TELEMETRY_DISABLED: '1',
      E2E: '1',
      E2E_OIDC_ISSUER: `http://localhost:${E2E_OIDC_PORT}`,
      TRUST_PROXY: '1',
      // Issue 14: mail goes to the test SMTP server scripts/test-e2e.ts starts (outbox when run without it),
      // and the conversations spec signs inbound replies with this secret.
      ...(process.env.E2E_SMTP_URL ? { SMTP_URL: process.env.E2E_SMTP_URL } : {}),
      INBOUND_WEBHOOK_SECRET: E2E_INBOUND_WEBHOOK_SECRET,
      // Issue 16: webhook, sink and export targets in the tests are local servers and databases on
      // loopback; only loopback is let through, every other private address (the metadata service…)
      // stays refused, as the specs that check refusals expect.
      ALLOW_PRIVATE_TARGETS: '127.0.0.1,::1',
    },
  },
});
