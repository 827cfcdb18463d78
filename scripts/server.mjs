// The production server: boots the domain (lock, migrations, demo seed), then serves the built
// Astro app behind compression and a structured access log. `npm start` runs this after a build.
import crypto from 'node:crypto';
import http from 'node:http';
import compression from 'compression';

process.env.ASTRO_NODE_AUTOSTART = 'disabled';
process.env.ASTRO_TELEMETRY_DISABLED = '1';

const { boot } = await import('../src/lib/platform/boot.ts');
const { env } = await import('../src/lib/config/env.ts');
const { logger } = await import('../src/lib/observability/log.ts');
const { admitBody } = await import('../src/lib/http/body-limit.ts');

const started = Date.now();
let db;
try {
  db = await boot();
} catch (error) {
  logger.error('startup failed', { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
const { handler } = await import('../dist/server/entry.mjs');

// Brotli when the client accepts it, gzip otherwise; small bodies are not worth it.
const compress = compression({ threshold: 1024, brotli: { params: {} } });
const config = env();

const server = http.createServer((req, res) => {
  const requestId = /^[\w-]{8,64}$/.test(String(req.headers['x-request-id'] ?? '')) ? String(req.headers['x-request-id']) : crypto.randomUUID();
  req.headers['x-request-id'] = requestId;
  res.setHeader('x-request-id', requestId);
  const t0 = process.hrtime.bigint();
  res.on('finish', () => {
    const path = (req.url ?? '/').split('?')[0];
    if (path.startsWith('/_astro/') && res.statusCode < 400) return;
    logger.info('request', {
      request_id: requestId,
      method: req.method,
      path,
      status: res.statusCode,
      ms: Number((process.hrtime.bigint() - t0) / 1000n) / 1000,
    });
  });
  // Bodies over their route's limit are refused (413) here, before the app buffers a byte of them.
  admitBody(req, res).then((isAdmitted) => {
    if (isAdmitted) compress(req, res, () => handler(req, res));
  });
});
server.keepAliveTimeout = 65_000;
server.listen(config.port, config.host, () => {
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  logger.info('listening', { url, startup_ms: Date.now() - started });
  process.stdout.write(`\n  Lending back office is ready: ${url}/user/login\n`);
  if (config.seedDemo) process.stdout.write(`  Demo accounts (see README): admin@demo.test, officer@demo.test … password: ${config.demoPassword === process.env.DEMO_PASSWORD ? '(DEMO_PASSWORD)' : config.demoPassword}\n\n`);
});

let stopping = false;
async function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down', { signal });
  server.close();
  const timer = setTimeout(() => process.exit(0), 10_000);
  timer.unref();
  try {
    await db.close();
  } finally {
    process.exit(0);
  }
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
