// The production server: boots the domain (lock, migrations, demo seed), then serves the built
// Astro app behind compression and a structured access log. `npm start` runs this after a build.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import compression from 'compression';

process.env.ASTRO_NODE_AUTOSTART = 'disabled';
process.env.ASTRO_TELEMETRY_DISABLED = '1';

const { boot } = await import('#lib/platform/boot.ts');
const { env } = await import('#lib/config/env.ts');
const { logger } = await import('#lib/observability/log.ts');
const { checkQueryString } = await import('#lib/http/query-params.ts');
const { admitBody } = await import('#lib/http/body-limit.ts');

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

// The client bundles' brotli copies written at build time (scripts/precompress-assets.mjs), sent
// instead of compressing the bundle on the fly when the browser accepts brotli; read once, kept in
// memory (they never change while the server runs). The file names carry a content hash.
const ASSETS = new URL('../dist/client/_astro/', import.meta.url);
const ASSET_TYPES = {
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};
const precompressed = new Map();

function acceptsBrotli(header) {
  return String(header ?? '')
    .split(',')
    .some((part) => {
      const [coding, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return coding.trim().toLowerCase() === 'br' && (q === undefined || Number(q.slice(2)) > 0);
    });
}

/** Answers GET/HEAD of a client bundle with its build-time brotli copy; false when there is none. */
function servePrecompressed(req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const match = /^\/_astro\/([\w.-]+\.(js|mjs|css|svg))$/.exec(req.url ?? '');
  if (!match || !acceptsBrotli(req.headers['accept-encoding'])) return false;
  let asset = precompressed.get(match[1]);
  if (asset === undefined) {
    try {
      const body = fs.readFileSync(new URL(`${match[1]}.br`, ASSETS));
      asset = { body, etag: `"br-${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    } catch {
      asset = null;
    }
    precompressed.set(match[1], asset);
  }
  if (!asset) return false;
  const headers = {
    'content-type': ASSET_TYPES[match[2]],
    'content-encoding': 'br',
    vary: 'Accept-Encoding',
    etag: asset.etag,
    'cache-control': 'public, max-age=0',
  };
  if (req.headers['if-none-match'] === asset.etag) {
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  res.writeHead(200, { ...headers, 'content-length': String(asset.body.length) });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
  return true;
}

// Methods the app answers at all (pages: GET/HEAD/POST; /v1: per route, with 405 and Allow from the
// guard). Anything else — TRACE, TRACK, CONNECT, WebDAV verbs, made-up tokens — is a 405 here: TRACE,
// TRACK and CONNECT cannot even be turned into a fetch Request, which made the adapter answer 500.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const ALLOW = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

const isApiUrl = (url) => /^\/v1(\/|\?|$)/i.test(url ?? '');

/**
 * An answer given before the app (so without its middleware): the product's JSON error for /v1, a
 * minimal page otherwise, with the headers the security-headers step would have set.
 */
function plainAnswer(url, error, title, text, extraHeaders = {}) {
  const isApi = isApiUrl(url);
  const body = isApi
    ? JSON.stringify({ error })
    : `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p><p><a href="/">Home</a></p></html>`;
  return {
    body,
    headers: {
      'content-type': isApi ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
      'content-length': String(Buffer.byteLength(body)),
      ...extraHeaders,
    },
  };
}

function methodNotAllowed(method, url) {
  const error = {
    code: 'METHOD_NOT_ALLOWED',
    message: `${
      String(method)
        .replace(/[^A-Za-z-]/g, '')
        .slice(0, 20) || 'This method'
    } is not allowed here.`,
  };
  return plainAnswer(url, error, 'Method Not Allowed', 'This page cannot be opened this way.', { allow: ALLOW });
}

/**
 * A URL that is not valid percent-encoded UTF-8 (`%FF`, overlong `%C0%AF`, a lone surrogate
 * `%ED%A0%80`): the adapter would refuse it with a bare "Bad request."; answer the product's 400 naming
 * the parameter (the middleware's client-errors step does the same for URLs that do decode).
 */
function malformedUrl(url) {
  try {
    decodeURI(url ?? '/');
    return null;
  } catch {
    const q = url.indexOf('?');
    const issue = q >= 0 ? checkQueryString(url.slice(q)) : null;
    const error = issue
      ? { code: 'BAD_REQUEST', message: `${issue.param}: ${issue.message}`, field: issue.param }
      : { code: 'BAD_REQUEST', message: 'The path is not valid percent-encoded UTF-8.' };
    return plainAnswer(
      url,
      error,
      'Bad Request',
      'Something in the address of this page is not valid. Check the link, or open the page from the menu.',
    );
  }
}

function rawResponse(socket, status, reason, { body, headers }) {
  if (!socket.writable) return socket.destroy();
  const lines = Object.entries({ ...headers, connection: 'close' }).map(([k, v]) => `${k}: ${v}`);
  socket.end(`HTTP/1.1 ${status} ${reason}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
}

const server = http.createServer((req, res) => {
  if (!METHODS.has(req.method)) {
    const { body, headers } = methodNotAllowed(req.method, req.url);
    res.writeHead(405, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  const malformed = malformedUrl(req.url);
  if (malformed) {
    res.writeHead(400, malformed.headers);
    res.end(req.method === 'HEAD' ? undefined : malformed.body);
    return;
  }
  const requestId = /^[\w-]{8,64}$/.test(String(req.headers['x-request-id'] ?? ''))
    ? String(req.headers['x-request-id'])
    : crypto.randomUUID();
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
  if (servePrecompressed(req, res)) return;
  // Bodies over their route's limit are refused (413) here, before the app buffers a byte of them.
  admitBody(req, res).then((isAdmitted) => {
    if (isAdmitted) compress(req, res, () => handler(req, res));
  });
});
server.keepAliveTimeout = 65_000;
// CONNECT never reaches the request handler, and a method token Node does not know fails parsing:
// both get the same 405 instead of a dropped connection or a bare 400.
server.on('connect', (req, socket) =>
  rawResponse(socket, 405, 'Method Not Allowed', methodNotAllowed(req.method, req.url)),
);
server.on('clientError', (error, socket) => {
  if (error.code === 'HPE_INVALID_METHOD')
    return rawResponse(socket, 405, 'Method Not Allowed', methodNotAllowed('', ''));
  if (error.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
  rawResponse(socket, 400, 'Bad Request', { body: '', headers: { 'content-length': '0' } });
});
server.listen(config.port, config.host, () => {
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  logger.info('listening', { url, startup_ms: Date.now() - started });
  process.stdout.write(`\n  Lending back office is ready: ${url}/user/login\n`);
  if (config.seedDemo)
    process.stdout.write(
      `  Demo accounts (see README): admin@demo.test, officer@demo.test … password: ${config.demoPassword === process.env.DEMO_PASSWORD ? '(DEMO_PASSWORD)' : config.demoPassword}\n\n`,
    );
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
