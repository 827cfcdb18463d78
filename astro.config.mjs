// @ts-check
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import react from '@astrojs/react';
import { precompressAssets } from './scripts/precompress-assets.mjs';
import { CSP_DIRECTIVES, CSP_SCRIPT_RESOURCES, CSP_STYLE_RESOURCES } from './src/lib/http/csp-policy.ts';

// Every route is rendered on demand: pages depend on the signed-in user and the tenant.
// The adapter runs in standalone mode but is started by scripts/server.mjs, which adds
// boot (lock, migrations, seed), compression and structured logging around it.
export default defineConfig({
  output: 'server',
  // A backstop behind scripts/server.mjs, which refuses bodies over their route's limit
  // (src/lib/http/body-limit.ts) first: the adapter's default would buffer up to 1 GB.
  adapter: node({ mode: 'standalone', bodySizeLimit: 11 * 1024 * 1024 }),
  // precompressAssets: the client bundles compressed once at build time (scripts/server.mjs serves them).
  integrations: [react(), precompressAssets()],
  // Astro's own origin check only covers form posts; src/lib/http/csrf.ts covers every mutating request.
  security: {
    checkOrigin: false,
    // The renderer writes the CSP header of every page it renders, with the hashes of the inline
    // scripts it emits (island hydration); bundled scripts come from 'self'. Nothing rewrites HTML.
    // src/lib/http/security-headers.ts holds the directives, shared with answers made outside the renderer.
    csp: {
      algorithm: 'SHA-256',
      directives: CSP_DIRECTIVES,
      scriptDirective: { resources: CSP_SCRIPT_RESOURCES },
      styleDirective: { resources: CSP_STYLE_RESOURCES },
    },
  },
  // No Markdown pages; Shiki's inline styles would not fit the CSP anyway.
  markdown: { syntaxHighlight: false },
  server: { port: Number(process.env.PORT ?? 4321), host: process.env.HOST ?? 'localhost' },
  vite: {
    // BUILD_SOURCEMAP=1 npm run build writes source maps beside the client chunks, to see which modules
    // weigh in each (bench/README.md, JavaScript size); never on by default, the maps would be served.
    build: { sourcemap: process.env.BUILD_SOURCEMAP === '1' },
    ssr: {
      external: ['@electric-sql/pglite', 'pg', '@node-rs/argon2', 'nodemailer', 'exceljs', '@gorules/zen-engine'],
    },
  },
});
