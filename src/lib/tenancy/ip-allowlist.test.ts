import { describe, expect, it } from 'vitest';
import { canonicalClientIp, displayIp, parseNetwork } from './ip-allowlist.ts';

describe('IP allowlist parsing', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['::FFFF:10.0.0.1', '10.0.0.1'],
    ['::ffff:a00:1', '10.0.0.1'],
    ['0:0:0:0:0:ffff:0a00:0001', '10.0.0.1'],
    ['[::ffff:10.0.0.1]', '10.0.0.1'],
    ['2001:DB8::1', '2001:db8:0:0:0:0:0:1'],
    ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:1'],
    ['::1', '0:0:0:0:0:0:0:1'],
    ['not-an-ip', null],
    ['10.0.0.256', null],
  ])('%s → %s', (raw, expected) => {
    expect(canonicalClientIp(raw)).toBe(expected);
  });

  it('validates networks and names the field', () => {
    expect(parseNetwork('203.0.113.0/24')).toBe('203.0.113.0/24');
    expect(parseNetwork('203.0.113.7')).toBe('203.0.113.7/32');
    expect(parseNetwork('2001:db8::/32')).toBe('2001:db8:0:0:0:0:0:0/32');
    expect(parseNetwork('::ffff:10.0.0.0/8')).toBe('10.0.0.0/8');
    for (const bad of [
      '10.0.0.0/33',
      '10.0.0.0/-1',
      '10.0.0.0/8/1',
      'example.com',
      '',
      '10.0.0.0/x',
      '2001:db8::/129',
    ]) {
      expect(() => parseNetwork(bad), bad).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', field: 'network' }));
    }
  });
});

describe('displayIp', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::1', '::1'],
    ['2001:DB8:0:0:1:0:0:5', '2001:db8::1:0:0:5'],
    ['fe80::1%eth0', 'fe80::1'],
    ['unknown', 'unknown'],
  ])('%s → %s', (raw, expected) => {
    expect(displayIp(raw)).toBe(expected);
  });
});
