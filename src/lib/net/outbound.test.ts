import dns from 'node:dns';
import { describe, expect, it, vi } from 'vitest';
import {
  checkTargetAddress,
  checkTargetUrl,
  isPrivateAddress,
  resolvePublicHost,
  SAVE_LOOKUP_TIMEOUT_MS,
  sendHttp,
} from './outbound.ts';

const refused = [
  'http://127.0.0.1/',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0177.0.0.1/',
  'http://0.0.0.0/',
  'http://10.1.2.3/',
  'http://172.16.0.1/',
  'http://172.31.255.255/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]/',
  'http://[::]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:0:7f00:1]/',
  'http://[::ffff:0:169.254.169.254]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[0:0:0:0:0:ffff:10.0.0.1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://[2002:7f00:1::]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
  'http://[ff02::1]/',
  'http://localhost/',
  'http://localhost./',
  'http://LOCALHOST../',
  'http://api.localhost./',
  'http://api.localhost/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
];

describe('outbound targets', () => {
  it.each(refused)('refuses %s', (url) => {
    expect(() => checkTargetUrl(url, 'url', ['https:', 'http:'], { allowPrivate: false })).toThrow(/public address/);
  });

  it('accepts public addresses and names', () => {
    for (const url of [
      'https://8.8.8.8/x',
      'https://[2606:4700::1111]/',
      'https://hooks.example.com/in',
      'http://[::ffff:8.8.8.8]/',
    ])
      expect(checkTargetUrl(url, 'url', ['https:', 'http:'], { allowPrivate: false }).href).toBeTruthy();
  });

  it('refuses other schemes and credentials', () => {
    expect(() => checkTargetUrl('file:///etc/passwd', 'url')).toThrow(/must start with/);
    expect(() => checkTargetUrl('gopher://example.com/', 'url')).toThrow(/must start with/);
    expect(() => checkTargetUrl('https://user:pw@example.com/', 'url')).toThrow(/user name/);
    expect(() => checkTargetUrl('not a url', 'url')).toThrow(/full URL/);
  });

  it('classifies addresses', () => {
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('2a00:1450::1')).toBe(false);
    expect(isPrivateAddress('::ffff:8.8.8.8')).toBe(false);
    expect(isPrivateAddress('::ffff:192.168.0.1')).toBe(true);
    expect(isPrivateAddress('2001:db8::1')).toBe(true);
    expect(isPrivateAddress('nonsense')).toBe(true);
    // SIIT's IPv4-translated form (::ffff:0:0:0/96) and the rest of the reserved ::/8.
    expect(isPrivateAddress('::ffff:0:7f00:1')).toBe(true);
    expect(isPrivateAddress('::ffff:0:a00:1')).toBe(true);
    expect(isPrivateAddress('0:0:1::1')).toBe(true);
  });

  it('refuses a name that resolves to a private address, at connection time too', async () => {
    await expect(resolvePublicHost('localhost', { allowPrivate: false })).rejects.toThrow(/not a public address/);
    await expect(sendHttp('http://localhost:9/', { allowPrivate: false, timeoutMs: 2000 })).rejects.toThrow(
      /not a public address/,
    );
    await expect(sendHttp('http://[::ffff:7f00:1]:9/', { allowPrivate: false })).rejects.toThrow(
      /not a public address/,
    );
  });

  it('bounds the save-time lookup: a name whose DNS never answers does not hold the save', async () => {
    const spy = vi.spyOn(dns.promises, 'lookup').mockImplementation(() => new Promise(() => {}));
    const before = SAVE_LOOKUP_TIMEOUT_MS.value;
    SAVE_LOOKUP_TIMEOUT_MS.value = 200;
    try {
      const started = Date.now();
      const url = await checkTargetAddress('https://slow.example.com/hook', 'url', ['https:'], { allowPrivate: false });
      expect(url.hostname).toBe('slow.example.com');
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      SAVE_LOOKUP_TIMEOUT_MS.value = before;
      spy.mockRestore();
    }
  }, 5_000);
});
