import { describe, expect, it } from 'vitest';
import { clientHash, clientNetwork } from './abuse.ts';

describe('clientNetwork', () => {
  it('keeps IPv4 per address', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientHash('203.0.113.7')).not.toBe(clientHash('203.0.113.8'));
  });

  it('reads IPv4-mapped IPv6 as IPv4', () => {
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::FFFF:cb00:7107')).toBe('203.0.113.7');
    expect(clientHash('::ffff:203.0.113.7')).toBe(clientHash('203.0.113.7'));
  });

  it('counts IPv6 on its /64', () => {
    expect(clientNetwork('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('[2001:db8::1]')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientHash('2001:db8:1:2::1')).toBe(clientHash('2001:db8:1:2:ffff:ffff:ffff:fffe'));
    expect(clientHash('2001:db8:1:2::1')).not.toBe(clientHash('2001:db8:1:3::1'));
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
  });

  it('keeps a malformed address as it is', () => {
    expect(clientNetwork('not:an:address:zz')).toBe('not:an:address:zz');
    expect(clientNetwork('unknown')).toBe('unknown');
  });
});
