import { describe, expect, it } from 'vitest';
import { applyHtmlHeaders, contentSecurityPolicy, stampScriptNonces } from './security-headers.ts';

describe('security headers', () => {
  it('builds a nonce CSP with the required directives', () => {
    const csp = contentSecurityPolicy('abc', false);
    for (const d of ["script-src 'nonce-abc' 'strict-dynamic' 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) expect(csp).toContain(d);
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(contentSecurityPolicy('abc', true)).toContain('upgrade-insecure-requests');
  });

  it('sets HSTS only in production and no-store on signed-in pages', () => {
    const dev = new Headers();
    applyHtmlHeaders(dev, { nonce: 'n', isProduction: false, isSignedIn: true });
    expect(dev.get('strict-transport-security')).toBeNull();
    expect(dev.get('cache-control')).toBe('no-store');
    expect(dev.get('x-content-type-options')).toBe('nosniff');
    expect(dev.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    const prod = new Headers();
    applyHtmlHeaders(prod, { nonce: 'n', isProduction: true, isSignedIn: false });
    expect(prod.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains');
    expect(prod.get('cache-control')).toBe('no-cache');
  });

  it('stamps the nonce on scripts that lack one', () => {
    expect(stampScriptNonces('<script>a()</script><SCRIPT type="module" src="/_astro/x.js"></SCRIPT><script nonce="k">b()</script>', 'N')).toBe(
      '<script nonce="N">a()</script><SCRIPT nonce="N" type="module" src="/_astro/x.js"></SCRIPT><script nonce="k">b()</script>',
    );
  });
});
