import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openBucket } from './bucket-clients.ts';

/**
 * The S3 SDK's sockets go through the outbound guard's lookup: a name that passes the save-time
 * check (not an IP literal, not localhost) but resolves to a private address at connection time
 * (DNS rebinding) never reaches the address.
 */
describe('S3 bucket client: names resolved through the outbound guard', () => {
  afterEach(() => vi.restoreAllMocks());

  it('refuses a name that resolves to loopback when connecting, and never opens the socket', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const real = dns.promises.lookup.bind(dns.promises);
    vi.spyOn(dns.promises, 'lookup').mockImplementation(((host: string, options: unknown) =>
      host === 'rebound.example.com'
        ? Promise.resolve([{ address: '127.0.0.1', family: 4 }])
        : real(host, options as dns.LookupAllOptions)) as typeof dns.promises.lookup);
    const target = {
      type: 's3' as const,
      endpoint: `http://rebound.example.com:${port}`,
      region: 'us-east-1',
      bucket: 'imports',
      prefix: '',
      accessKeyId: 'AKIA',
      secret: 's',
    };
    try {
      const refused = await openBucket(target, { allowPrivate: false });
      await expect(refused.list()).rejects.toThrow(/not a public address/);
      await refused.close();
      expect(hits).toBe(0);
      // The same name with the operator's opt-out reaches the stand-in: the refusal above was the guard's.
      const allowed = await openBucket(target, { allowPrivate: true });
      expect(await allowed.list()).toEqual([]);
      await allowed.close();
      expect(hits).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
