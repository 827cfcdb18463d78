import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitBody, AUTH_BODY_LIMIT, bodyLimitFor, DEFAULT_BODY_LIMIT } from './body-limit.ts';

describe('bodyLimitFor', () => {
  it('gives uploads their kind’s documented limit, auth forms a small one, everything else the JSON default', () => {
    expect(bodyLimitFor('/v1/customers/c1/files?kind=document&name=a.pdf')).toBe(10 * 1024 * 1024);
    expect(bodyLimitFor('/v1/customers/c1/files?kind=bank_statement')).toBe(2 * 1024 * 1024);
    expect(bodyLimitFor('/v1/customers/c1/files?kind=nonsense')).toBe(10 * 1024 * 1024);
    expect(bodyLimitFor('/v1/customers/c1/bank-statements?name=s.csv')).toBe(2 * 1024 * 1024);
    expect(bodyLimitFor('/loans/customer/profile/c1/files')).toBe(10 * 1024 * 1024 + 64 * 1024);
    expect(bodyLimitFor('/admin/customer/profile/c1/bank-statements')).toBe(2 * 1024 * 1024 + 64 * 1024);
    expect(bodyLimitFor('/v1/auth/sign-in')).toBe(AUTH_BODY_LIMIT);
    expect(bodyLimitFor('/user/login?redirect=/x')).toBe(AUTH_BODY_LIMIT);
    expect(bodyLimitFor('/v1/loans/l1/repayments')).toBe(DEFAULT_BODY_LIMIT);
  });

  it('gives the admin platform uploads theirs: translation imports 1 MB, contract documents 10 MB', () => {
    expect(bodyLimitFor('/v1/translation-overrides/import')).toBe(1024 * 1024 + 64 * 1024);
    expect(bodyLimitFor('/admin/platform/translations?ns=nav')).toBe(1024 * 1024 + 64 * 1024);
    expect(bodyLimitFor('/v1/contracts/c1/document?name=a.pdf')).toBe(10 * 1024 * 1024 + 64 * 1024);
    expect(bodyLimitFor('/admin/plan-contracts/contracts?view=c1')).toBe(10 * 1024 * 1024 + 64 * 1024);
    expect(bodyLimitFor('/v1/translation-overrides/en/nav/admin.users')).toBe(DEFAULT_BODY_LIMIT);
    expect(bodyLimitFor('/v1/contracts')).toBe(DEFAULT_BODY_LIMIT);
  });
});

describe('admitBody on a real server', () => {
  let server: http.Server;
  let port: number;
  const limit = 1000;
  beforeAll(async () => {
    server = http.createServer(async (req, res) => {
      if (!(await admitBody(req, res, limit))) return;
      const buffered = (req as { body?: Buffer }).body;
      let size = buffered?.length ?? 0;
      if (!buffered) for await (const chunk of req) size += (chunk as Buffer).length;
      res.end(JSON.stringify({ size }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Sends raw bytes and resolves with the first response head line and body, ignoring resets after it. */
  const raw = (head: string, chunks: (string | Buffer)[]) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      socket.on('close', () => resolve(answer));
      socket.on('error', () => (answer ? resolve(answer) : reject(new Error('reset before an answer'))));
      socket.write(head);
      for (const chunk of chunks) if (!socket.destroyed) socket.write(chunk);
    });

  it('refuses a declared length over the limit before reading the body, in the one error shape', async () => {
    const answer = await raw(
      `POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n`,
      ['{"a":"'],
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The request body is larger than the limit of 1 KB.',
      max_bytes: 1000,
    });
  });

  it('counts a chunked body and refuses it the moment it passes the limit', async () => {
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    const answer = await raw(
      `POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n`,
      Array.from({ length: 50 }, () => chunk('x'.repeat(100))),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('admits bodies within the limit, chunked (buffered for the app) or declared', async () => {
    const chunked = await raw(
      `POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
      ['64\r\n' + 'y'.repeat(100) + '\r\n', '0\r\n\r\n'],
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 200 /);
    expect(chunked).toContain('{"size":100}');
    const declared = await fetch(`http://127.0.0.1:${port}/x`, { method: 'POST', body: 'z'.repeat(1000) });
    expect(await declared.json()).toEqual({ size: 1000 });
  });

  it('a Content-Length that lies low delivers only the declared bytes (the rest is a malformed next request)', async () => {
    const answer = await raw(`POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n`, ['q'.repeat(100_000)]);
    // Node's parser hands the app 10 bytes and refuses the remainder as a request line (400, closed).
    expect(answer).toMatch(/^HTTP\/1\.1 (200|400) /);
    if (answer.startsWith('HTTP/1.1 200')) expect(answer).toContain('{"size":10}');
  });
});
