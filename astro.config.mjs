// @ts-check
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import react from '@astrojs/react';

// Every route is rendered on demand: pages depend on the signed-in user and the tenant.
// The adapter runs in standalone mode but is started by scripts/server.mjs, which adds
// boot (lock, migrations, seed), compression and structured logging around it.
export default defineConfig({
  output: 'server',
  // A backstop behind scripts/server.mjs, which refuses bodies over their route's limit
  // (src/lib/http/body-limit.ts) first: the adapter's default would buffer up to 1 GB.
  adapter: node({ mode: 'standalone', bodySizeLimit: 11 * 1024 * 1024 }),
  integrations: [react()],
  // Astro's own origin check only covers form posts; src/lib/http/csrf.ts covers every mutating request.
  security: { checkOrigin: false },
  server: { port: Number(process.env.PORT ?? 4321), host: process.env.HOST ?? 'localhost' },
  vite: {
    ssr: { external: ['@electric-sql/pglite', 'pg', '@node-rs/argon2', 'nodemailer', 'exceljs'] },
  },
});
