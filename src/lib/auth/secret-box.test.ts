import { describe, expect, it } from 'vitest';
import { isSealed, openSecret, sealSecret } from './secret-box.ts';

const KEY = 'a-test-session-secret-that-is-long-enough-0123456789';
const OTHER = 'another-session-secret-that-is-long-enough-9876543210';

describe('secret box (SSO client secret at rest)', () => {
  it('round-trips, with a fresh IV each time and no plain text in the stored value', () => {
    const a = sealSecret('e2e-client-secret-0123456789abcdef', KEY);
    const b = sealSecret('e2e-client-secret-0123456789abcdef', KEY);
    expect(a).toMatch(/^enc:v1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('e2e-client-secret');
    expect(isSealed(a)).toBe(true);
    expect(openSecret(a, KEY)).toBe('e2e-client-secret-0123456789abcdef');
    expect(openSecret(sealSecret('', KEY), KEY)).toBe('');
    expect(openSecret(sealSecret('ünïcödé ✓', KEY), KEY)).toBe('ünïcödé ✓');
  });

  it('detects tampering and a wrong key', () => {
    const sealed = sealSecret('s3cret-value', KEY);
    const [, , iv, tag, data] = sealed.split(':');
    const flipped = Buffer.from(data, 'base64url');
    flipped[0] ^= 1;
    expect(() => openSecret(`enc:v1:${iv}:${tag}:${flipped.toString('base64url')}`, KEY)).toThrow();
    const badTag = Buffer.from(tag, 'base64url');
    badTag[3] ^= 1;
    expect(() => openSecret(`enc:v1:${iv}:${badTag.toString('base64url')}:${data}`, KEY)).toThrow();
    expect(() => openSecret(`enc:v1:${iv}:${tag}`, KEY)).toThrow(/malformed/);
    expect(() => openSecret(sealed, OTHER)).toThrow();
  });

  it('reads a plain value written before encryption as it is', () => {
    expect(isSealed('plain-old-secret')).toBe(false);
    expect(openSecret('plain-old-secret', KEY)).toBe('plain-old-secret');
  });

  it('refuses to work without a proper SESSION_SECRET', () => {
    expect(() => sealSecret('x', 'short')).toThrow(/SESSION_SECRET/);
  });
});
