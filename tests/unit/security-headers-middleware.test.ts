import { describe, expect, it } from 'vitest';
import { securityHeaders } from '../../src/server/middleware/security-headers.ts';

// The step only sets headers: an HTML body leaves byte for byte as the renderer wrote it (the old step
// rewrote it to stamp nonces on every `<script`, attribute values included, which let typed text run).
const HOSTILE = '<input value="<script x><script>__xss(1)</script>"><script type="module" src="/_astro/a.js"></script>';

async function run(response: Response, isSignedIn = false): Promise<Response> {
  const context = {
    request: new Request('http://localhost/loans/customers'),
    locals: { principal: isSignedIn ? { userId: 'u' } : undefined },
  };
  return (await securityHeaders(context as never, (async () => response) as never)) as Response;
}

describe('securityHeaders step', () => {
  it("passes the HTML body through untouched and keeps the renderer's CSP", async () => {
    const rendered = "default-src 'self'; script-src 'self' 'sha256-AAA='; style-src 'self' 'unsafe-inline'";
    const response = await run(
      new Response(HOSTILE, { headers: { 'content-type': 'text/html', 'content-security-policy': rendered } }),
      true,
    );
    expect(await response.text()).toBe(HOSTILE);
    expect(response.headers.get('content-security-policy')).toBe(rendered);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('streams: the body is not read before the answer leaves', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled += 1;
          controller.enqueue(new TextEncoder().encode(HOSTILE));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const response = await run(new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } }));
    expect(pulled).toBe(0);
    expect(await response.text()).toBe(HOSTILE);
  });

  it('gives HTML made outside the renderer a policy that runs no script', async () => {
    const response = await run(
      new Response('<p>made in middleware</p>', { status: 403, headers: { 'content-type': 'text/html' } }),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'none'");
    expect(response.headers.get('content-security-policy')).toContain("object-src 'none'");
  });
});
