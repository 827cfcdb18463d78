import { describe, expect, it } from 'vitest';
// Astro's own renderer of the CSP header (what it writes for every page rendered on demand).
import { renderCspContent } from 'astro/runtime/server/render/csp.js';
import config from '../../../astro.config.mjs';
import { CSP_DIRECTIVES, CSP_SCRIPT_RESOURCES, CSP_STYLE_RESOURCES } from './csp-policy.ts';
import { applyHtmlHeaders, fallbackContentSecurityPolicy, htmlContentSecurityPolicy } from './security-headers.ts';

const REQUIRED = [
  "default-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
];

/** The header Astro writes for a page whose inline scripts and styles hash to these values. */
function renderedByAstro(scriptHashes: string[], styleHashes: string[]): string {
  const csp = config.security!.csp as {
    directives: string[];
    scriptDirective: { resources: string[] };
    styleDirective: { resources: string[] };
  };
  return renderCspContent({
    directives: [...csp.directives],
    scriptDirective: { resources: [...csp.scriptDirective.resources], hashes: scriptHashes, strictDynamic: false },
    styleDirective: { resources: [...csp.styleDirective.resources], hashes: styleHashes },
    _metadata: { extraScriptHashes: [], extraStyleHashes: [] },
  } as never);
}

function directive(policy: string, name: string): string | undefined {
  return policy
    .split(';')
    .map((d) => d.trim())
    .find((d) => d === name || d.startsWith(`${name} `));
}

describe('content security policy', () => {
  it('is configured in Astro from the one policy module', () => {
    const csp = config.security!.csp as Record<string, unknown>;
    expect(csp.directives).toEqual(CSP_DIRECTIVES);
    expect(csp.scriptDirective).toEqual({ resources: CSP_SCRIPT_RESOURCES });
    expect(csp.styleDirective).toEqual({ resources: CSP_STYLE_RESOURCES });
  });

  it('renders page policies that allow only our origin and the hashed inline scripts, never inline code', () => {
    const policy = htmlContentSecurityPolicy(renderedByAstro(['sha256-AAA='], ['sha256-BBB=']), false);
    for (const d of REQUIRED) expect(directive(policy, d.split(' ')[0])).toBe(d);
    expect(directive(policy, 'script-src')).toBe("script-src 'self' 'sha256-AAA='");
    // 'unsafe-inline' for Emotion's run-time <style> elements: Astro leaves the hashes off so it holds.
    expect(directive(policy, 'style-src')).toBe("style-src 'self' 'unsafe-inline'");
    expect(policy).not.toMatch(/nonce-|unsafe-eval|script-src[^;]*unsafe-inline/);
    expect(policy).not.toContain('upgrade-insecure-requests');
  });

  it('adds upgrade-insecure-requests in production, once', () => {
    const policy = htmlContentSecurityPolicy(renderedByAstro(['sha256-AAA='], []), true);
    expect(policy.match(/upgrade-insecure-requests/g)).toHaveLength(1);
    expect(htmlContentSecurityPolicy(policy, true)).toBe(policy);
    expect(directive(policy, 'script-src')).toBe("script-src 'self' 'sha256-AAA='");
  });

  it('gives HTML that no page rendered a policy that runs no script', () => {
    for (const policy of [
      htmlContentSecurityPolicy(null, false),
      htmlContentSecurityPolicy('', true),
      fallbackContentSecurityPolicy(false),
    ]) {
      expect(directive(policy, 'script-src')).toBe("script-src 'none'");
      for (const d of REQUIRED) expect(directive(policy, d.split(' ')[0])).toBe(d);
    }
    expect(fallbackContentSecurityPolicy(true)).toContain('upgrade-insecure-requests');
  });
});

describe('security headers', () => {
  it('sets HSTS only in production, no-store on signed-in pages, and keeps the rendered CSP', () => {
    const dev = new Headers({ 'content-security-policy': renderedByAstro(['sha256-AAA='], []) });
    applyHtmlHeaders(dev, { isProduction: false, isSignedIn: true });
    expect(dev.get('strict-transport-security')).toBeNull();
    expect(dev.get('cache-control')).toBe('no-store');
    expect(dev.get('x-content-type-options')).toBe('nosniff');
    expect(dev.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(directive(dev.get('content-security-policy')!, 'script-src')).toBe("script-src 'self' 'sha256-AAA='");
    const prod = new Headers();
    applyHtmlHeaders(prod, { isProduction: true, isSignedIn: false });
    expect(prod.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains');
    expect(prod.get('cache-control')).toBe('no-cache');
    expect(directive(prod.get('content-security-policy')!, 'script-src')).toBe("script-src 'none'");
  });
});
