import { beforeAll, describe, expect, it } from 'vitest';

// Production flags: the cookie module reads NODE_ENV through env() on first use.
process.env.NODE_ENV = 'production';
process.env.SESSION_SECRET = 'a-test-session-secret-that-is-long-enough-0123456789';

type Set = { name: string; value: string; options: Record<string, unknown> };
function fakeCookies() {
  const jar = new Map<string, string>();
  const sets: Set[] = [];
  return {
    jar,
    sets,
    get: (name: string) => (jar.has(name) ? { value: jar.get(name)! } : undefined),
    set: (name: string, value: string, options: Record<string, unknown>) => {
      jar.set(name, value);
      sets.push({ name, value, options });
    },
    delete: (name: string) => {
      jar.delete(name);
    },
  };
}

describe('session cookie (production)', () => {
  let session: typeof import('../../src/server/session.ts');
  beforeAll(async () => {
    session = await import('../../src/server/session.ts');
  });

  it('is __Host-session, Secure, HttpOnly, SameSite=Lax, Path=/, sealed, holding only the session and tenant ids', async () => {
    const cookies = fakeCookies();
    await session.writeSessionCookie(cookies as never, {
      sessionId: '7d9f3c1e-0000-4000-8000-000000000001',
      tenantId: 'demo-eu1',
    });
    expect(cookies.sets).toHaveLength(1);
    const [set] = cookies.sets;
    expect(set.name).toBe('__Host-session');
    expect(set.options).toEqual({ path: '/', httpOnly: true, sameSite: 'lax', secure: true });
    expect(set.value).not.toContain('demo-eu1');
    expect(await session.readSessionCookie(cookies as never)).toEqual({
      sessionId: '7d9f3c1e-0000-4000-8000-000000000001',
      tenantId: 'demo-eu1',
    });
  });

  it('refuses a tampered or foreign cookie', async () => {
    const cookies = fakeCookies();
    await session.writeSessionCookie(cookies as never, { sessionId: 'x', tenantId: 'demo-eu1' });
    const sealed = cookies.jar.get('__Host-session')!;
    cookies.jar.set('__Host-session', `${sealed.slice(0, -4)}AAAA`);
    expect(await session.readSessionCookie(cookies as never)).toBeNull();
    cookies.jar.set('__Host-session', 'not-a-sealed-value');
    expect(await session.readSessionCookie(cookies as never)).toBeNull();
  });
});

describe('client IP and language of a signed-out request', () => {
  it('trusts X-Forwarded-For only with TRUST_PROXY, counting hops from the right', async () => {
    const { clientIp, trustedProxyHops } = await import('#lib/auth/client-ip.ts');
    expect(clientIp('10.0.0.5', '1.2.3.4', 0)).toBe('10.0.0.5');
    expect(clientIp('::ffff:10.0.0.5', null, 0)).toBe('10.0.0.5');
    expect(clientIp('10.0.0.5', 'spoofed, 198.51.100.9', 1)).toBe('198.51.100.9');
    expect(clientIp('10.0.0.5', 'spoofed, 198.51.100.9, 10.0.0.2', 2)).toBe('198.51.100.9');
    expect(trustedProxyHops(undefined)).toBe(0);
    expect(trustedProxyHops('true')).toBe(1);
    expect(trustedProxyHops('2')).toBe(2);
    expect(trustedProxyHops('nonsense')).toBe(0);
  });
});
