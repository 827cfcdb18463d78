import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import ssh2, { type ParsedKey } from 'ssh2';
import { fingerprintOf } from '#lib/net/sftp.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db, type Tx } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { AppError } from '#lib/errors/app-error.ts';
import {
  addBucket,
  checkBucket,
  forgetHostKey,
  getBucket,
  testBucket,
  updateBucket,
  watchBuckets,
  watchSlot,
} from '#lib/data-import/buckets.ts';
import { schedulerTick } from '#lib/jobs/scheduler.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';
import * as bucketsApi from '../../src/pages/v1/import-buckets/index.ts';

process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';

const { Server, utils } = ssh2;
const { STATUS_CODE } = utils.sftp;

/** An in-memory SFTP server on 127.0.0.1: password u/p, files by path ('in/a.csv'), rename and mkdir supported. */
async function startSftp(files: Map<string, Buffer>, listenPort = 0) {
  // ssh2's ed25519 generator now and then writes a key its own parser refuses: take one it reads.
  let hostKey = utils.generateKeyPairSync('ed25519').private;
  while (utils.parseKey(hostKey) instanceof Error) hostKey = utils.generateKeyPairSync('ed25519').private;
  const parsed = utils.parseKey(hostKey) as ParsedKey;
  let connections = 0;
  let signIns = 0;
  const server = new Server({ hostKeys: [hostKey] }, (client) => {
    connections++;
    // A client refusing the host key drops the connection during the key exchange.
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      signIns++;
      if (ctx.method === 'password' && ctx.username === 'u' && ctx.password === 'p') ctx.accept();
      else ctx.reject(['password']);
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('sftp', (acceptSftp) => {
          const sftp = acceptSftp();
          const handles = new Map<number, { path: string; isDir: boolean; listed: boolean }>();
          let next = 0;
          const handleOf = (buf: Buffer) => handles.get(buf.readUInt32BE(0));
          const newHandle = (path: string, isDir: boolean) => {
            const n = next++;
            handles.set(n, { path, isDir, listed: false });
            const b = Buffer.alloc(4);
            b.writeUInt32BE(n);
            return b;
          };
          const attrs = (size: number, isDir = false) => ({
            mode: isDir ? 0o40755 : 0o100644,
            uid: 0,
            gid: 0,
            size,
            atime: 1_700_000_000,
            mtime: 1_700_000_000,
          });
          const clean = (p: string) => p.replace(/^\.\//, '').replace(/\/$/, '');
          sftp.on('OPEN', (reqid, filename) => {
            const content = files.get(clean(filename));
            if (!content) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
            sftp.handle(reqid, newHandle(clean(filename), false));
          });
          sftp.on('READ', (reqid, handle, offset, length) => {
            const h = handleOf(handle);
            const content = h && files.get(h.path);
            if (!content) return sftp.status(reqid, STATUS_CODE.FAILURE);
            if (offset >= content.length) return sftp.status(reqid, STATUS_CODE.EOF);
            sftp.data(reqid, content.subarray(offset, offset + length));
          });
          sftp.on('FSTAT', (reqid, handle) => {
            const h = handleOf(handle);
            sftp.attrs(reqid, attrs(h ? (files.get(h.path)?.length ?? 0) : 0, h?.isDir));
          });
          sftp.on('CLOSE', (reqid, handle) => {
            handles.delete(handle.readUInt32BE(0));
            sftp.status(reqid, STATUS_CODE.OK);
          });
          sftp.on('OPENDIR', (reqid, path) => sftp.handle(reqid, newHandle(clean(path), true)));
          sftp.on('READDIR', (reqid, handle) => {
            const h = handleOf(handle);
            if (!h || h.listed) return sftp.status(reqid, STATUS_CODE.EOF);
            h.listed = true;
            const prefix = h.path === '.' || h.path === '' ? '' : `${h.path}/`;
            const names = [...files.keys()]
              .filter((k) => k.startsWith(prefix) && !k.slice(prefix.length).includes('/'))
              .map((k) => {
                const filename = k.slice(prefix.length);
                return { filename, longname: filename, attrs: attrs(files.get(k)!.length) };
              });
            if (!names.length) return sftp.status(reqid, STATUS_CODE.EOF);
            sftp.name(reqid, names);
          });
          sftp.on('STAT', (reqid, path) => {
            const content = files.get(clean(path));
            if (content) sftp.attrs(reqid, attrs(content.length));
            else sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
          });
          sftp.on('MKDIR', (reqid) => sftp.status(reqid, STATUS_CODE.OK));
          sftp.on('RENAME', (reqid, from, to) => {
            const content = files.get(clean(from));
            if (!content) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
            files.delete(clean(from));
            files.set(clean(to), content);
            sftp.status(reqid, STATUS_CODE.OK);
          });
          sftp.on('REALPATH', (reqid, path) =>
            sftp.name(reqid, [{ filename: path, longname: path, attrs: attrs(0, true) }]),
          );
        });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** The fingerprint a client sees (OpenSSH's SHA256 form of the public host key). */
    fingerprint: fingerprintOf(parsed.getPublicSSH()),
    connections: () => connections,
    /** Sign-in attempts (a password is only sent after the host key was accepted). */
    signIns: () => signIns,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A small S3 stand-in: path-style ListObjectsV2 and GetObject, checking the SDK's signature header. */
async function startS3(bucket: string, objects: Map<string, Buffer>) {
  const seen: { method: string; url: string; authorization: string }[] = [];
  const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: String(req.headers.authorization ?? '') });
    const [, name, ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    if (name !== bucket) {
      res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchBucket</Code></Error>');
      return;
    }
    if (!key && url.searchParams.get('list-type') === '2') {
      const prefix = url.searchParams.get('prefix') ?? '';
      const keys = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
      const body =
        `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
        `<Name>${bucket}</Name><Prefix>${xml(prefix)}</Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>` +
        keys
          .map(
            (k) =>
              `<Contents><Key>${xml(k)}</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>"${k.length}"</ETag><Size>${objects.get(k)!.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
          )
          .join('') +
        `</ListBucketResult>`;
      res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
      return;
    }
    const content = objects.get(key);
    if (!content || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/csv', 'content-length': content.length, etag: `"${key.length}"` })
      .end(content);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const csv = (rows: string[]) => Buffer.from(['external_id;first_name;last_name', ...rows].join('\n') + '\n');

describe.each(testDbKinds())('import buckets on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const local = { allowPrivate: true };
  const customers = async (like: string) =>
    (
      await t((tx) =>
        tx.query<{ n: number }>(`select count(*)::int as n from customers where external_id like $1`, [like]),
      )
    )[0].n;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    f = await createLendingFixture(db, { businessDate: '2026-06-15' });
  });
  afterAll(async () => drop());

  test('SFTP: the watcher imports each file once, moves it to processed/, and a second run imports nothing', async () => {
    const files = new Map<string, Buffer>([
      ['in/one.csv', csv(['S-1;Sam;One', 'S-2;Sam;Two'])],
      ['in/same-content.csv', csv(['S-1;Sam;One', 'S-2;Sam;Two'])],
      ['in/bad.csv', csv(['S-9;;Nine'])],
      ['in/notes.txt', Buffer.from('not an import')],
    ]);
    const sftp = await startSftp(files);
    try {
      const bucket = await t((tx) =>
        addBucket(
          tx,
          f.admin,
          {
            name: 'Core SFTP',
            type: 'sftp',
            kind: 'customers',
            host: '127.0.0.1',
            port: sftp.port,
            username: 'u',
            path: 'in',
            secret: 'p',
          },
          local,
        ),
      );
      expect(bucket).not.toHaveProperty('secret_sealed');
      expect(await testBucket(db, f.tenantId, bucket.id, local)).toEqual({
        ok: true,
        files: 3,
        error: null,
        fingerprint: sftp.fingerprint,
      });
      const first = await checkBucket(db, f.tenantId, bucket.id, 'manual', local);
      expect(first).toMatchObject({
        status: 'failed',
        files_seen: 3,
        files_imported: 1,
        files_skipped: 1,
        files_failed: 1,
      });
      const byFile = Object.fromEntries(first.details.map((d) => [d.file, d]));
      expect(byFile['in/bad.csv']).toMatchObject({ outcome: 'failed', reason: expect.stringContaining('row 2') });
      expect(byFile['in/one.csv'].outcome).toBe('imported');
      expect(byFile['in/same-content.csv'].outcome).toBe('duplicate');
      expect(await customers('S-%')).toBe(2);
      expect([...files.keys()].sort()).toEqual([
        'in/bad.csv',
        'in/notes.txt',
        'in/processed/one.csv',
        'in/processed/same-content.csv',
      ]);

      const second = await checkBucket(db, f.tenantId, bucket.id, 'schedule', local);
      expect(second).toMatchObject({ status: 'ok', files_seen: 1, files_imported: 0, files_skipped: 1 });
      expect(await customers('S-%')).toBe(2);
      // The failed file, fixed in place, is imported on the next run.
      files.set('in/bad.csv', csv(['S-9;Sid;Nine']));
      const third = await checkBucket(db, f.tenantId, bucket.id, 'schedule', local);
      expect(third).toMatchObject({ status: 'ok', files_imported: 1 });
      expect(await customers('S-%')).toBe(3);
      const history = await t((tx) =>
        tx.query<{ source: string; status: string; created_by: string }>(
          `select source, status, created_by from data_imports where bucket_id = $1 order by created_at`,
          [bucket.id],
        ),
      );
      expect(history.map((h) => h.status)).toEqual(['refused', 'imported', 'imported']);
      expect(history.every((h) => h.source === 'bucket' && h.created_by === 'system:import-bucket')).toBe(true);
    } finally {
      await sftp.close();
    }
  });

  test('SFTP host key: pinned on first use, a server showing another key is refused before sign-in, forget then re-pin', async () => {
    const files = new Map<string, Buffer>([['in/p1.csv', csv(['P-1;Pat;One'])]]);
    const genuine = await startSftp(files);
    let impostor: Awaited<ReturnType<typeof startSftp>> | null = null;
    try {
      const bucket = await t((tx) =>
        addBucket(
          tx,
          f.admin,
          {
            name: 'Pinned SFTP',
            type: 'sftp',
            kind: 'customers',
            host: '127.0.0.1',
            port: genuine.port,
            username: 'u',
            path: 'in',
            secret: 'p',
          },
          local,
        ),
      );
      const pinnedKey = async () => (await t((tx) => getBucket(tx, bucket.id))).host_key_sha256;
      expect(await pinnedKey()).toBeNull();
      // Test connection: the key seen is answered and pinned (trust on first use).
      expect(await testBucket(db, f.tenantId, bucket.id, local)).toMatchObject({
        ok: true,
        fingerprint: genuine.fingerprint,
      });
      expect(await pinnedKey()).toBe(genuine.fingerprint);
      // The pinned key is accepted: the run imports.
      const first = await checkBucket(db, f.tenantId, bucket.id, 'manual', local);
      expect(first).toMatchObject({ status: 'ok', files_imported: 1, error: null });
      expect(await customers('P-%')).toBe(1);

      // Another server takes the same address (a man in the middle) with its own host key.
      const port = genuine.port;
      await genuine.close();
      files.set('in/p2.csv', csv(['P-2;Pat;Two']));
      impostor = await startSftp(files, port);
      expect(impostor.fingerprint).not.toBe(genuine.fingerprint);
      const refused = await checkBucket(db, f.tenantId, bucket.id, 'schedule', local);
      expect(refused).toMatchObject({ status: 'failed', files_seen: 0, files_imported: 0 });
      expect(refused.error).toContain('host key changed');
      expect(refused.error).toContain(genuine.fingerprint);
      expect(refused.error).toContain(impostor.fingerprint);
      expect(impostor.connections()).toBe(1);
      expect(impostor.signIns()).toBe(0); // refused during the key exchange: no password sent
      expect(await customers('P-%')).toBe(1);
      expect(files.has('in/p2.csv')).toBe(true);
      const tested = await testBucket(db, f.tenantId, bucket.id, local);
      expect(tested).toMatchObject({ ok: false, error: expect.stringContaining('host key changed') });
      expect(await pinnedKey()).toBe(genuine.fingerprint);
      expect(impostor.signIns()).toBe(0);

      // An administrator who knows the key really changed forgets it; the next test pins the new one.
      await t((tx) => forgetHostKey(tx, f.admin, bucket.id));
      expect(await pinnedKey()).toBeNull();
      const [forgot] = await t((tx) =>
        tx.query<{ action: string }>(
          `select action from audit_log where object_id = $1 and action = 'import_bucket.forget_host_key'`,
          [bucket.id],
        ),
      );
      expect(forgot).toBeDefined();
      expect(await testBucket(db, f.tenantId, bucket.id, local)).toMatchObject({
        ok: true,
        fingerprint: impostor.fingerprint,
      });
      expect(await pinnedKey()).toBe(impostor.fingerprint);
      const after = await checkBucket(db, f.tenantId, bucket.id, 'manual', local);
      expect(after).toMatchObject({ status: 'ok', files_imported: 1 });
      expect(await customers('P-%')).toBe(2);

      // Another port is another server: the pin is dropped with it (and the next connection pins again).
      const moved = await t((tx) =>
        updateBucket(
          tx,
          f.admin,
          bucket.id,
          {
            name: 'Pinned SFTP',
            type: 'sftp',
            kind: 'customers',
            host: '127.0.0.1',
            port: port + 1,
            username: 'u',
            path: 'in',
            secret: 'p',
          },
          undefined,
          local,
        ),
      );
      expect(moved.host_key_sha256).toBeNull();
    } finally {
      if (impostor) await impostor.close();
      else await genuine.close();
    }
  });

  test('S3: ListObjectsV2 and GetObject as the SDK sends them; each file imported once, a second run imports nothing', async () => {
    const objects = new Map<string, Buffer>([
      ['drop/a.csv', csv(['K-1;Kim;One'])],
      ['drop/b.csv', csv(['K-2;Kim;Two', 'K-3;Kim;Three'])],
      ['other/c.csv', csv(['K-4;Kim;Four'])],
    ]);
    const s3 = await startS3('imports', objects);
    try {
      const bucket = await t((tx) =>
        addBucket(
          tx,
          f.admin,
          {
            name: 'Warehouse S3',
            type: 's3',
            kind: 'customers',
            endpoint: s3.url,
            region: 'eu-west-3',
            bucket: 'imports',
            prefix: 'drop/',
            accessKeyId: 'AKIATEST',
            secret: 'shh',
            mapping: { external_id: 'external_id' },
          },
          local,
        ),
      );
      const first = await checkBucket(db, f.tenantId, bucket.id, 'manual', local);
      expect(first).toMatchObject({ status: 'ok', files_seen: 2, files_imported: 2, files_failed: 0 });
      expect(await customers('K-%')).toBe(3);
      expect(s3.seen.some((r) => r.url.includes('list-type=2') && r.url.includes('prefix=drop%2F'))).toBe(true);
      expect(
        s3.seen.every(
          (r) => r.authorization.includes('Credential=AKIATEST/') && r.authorization.includes('eu-west-3/s3'),
        ),
      ).toBe(true);
      const gets = s3.seen.filter((r) => r.url.startsWith('/imports/drop/')).length;
      expect(gets).toBe(2);
      const second = await checkBucket(db, f.tenantId, bucket.id, 'schedule', local);
      expect(second).toMatchObject({ status: 'ok', files_seen: 2, files_imported: 0, files_skipped: 2 });
      expect(s3.seen.filter((r) => r.url.startsWith('/imports/drop/')).length).toBe(gets);
      expect(await customers('K-%')).toBe(3);
    } finally {
      await s3.close();
    }
  });

  test('SSRF: private endpoints and SFTP hosts are refused with 400 naming the field, when saved and when connecting', async () => {
    const s3 = (endpoint: string) => ({
      name: `s3 ${endpoint}`.slice(0, 90),
      type: 's3',
      kind: 'customers',
      endpoint,
      bucket: 'imports',
      accessKeyId: 'AKIA',
      secret: 's',
    });
    const sftp = (host: string) => ({
      name: `sftp ${host}`,
      type: 'sftp',
      kind: 'customers',
      host,
      username: 'u',
      secret: 'p',
    });
    const endpoints = [
      'http://127.0.0.1:9000',
      'http://localhost:9000',
      'http://sub.localhost',
      'http://[::1]:9000',
      'http://169.254.169.254/latest',
      'http://[::ffff:127.0.0.1]',
      'http://[::ffff:7f00:1]',
      'http://2130706433',
      'http://0x7f.0.0.1',
      'http://017700000001',
      'http://10.0.0.5',
      'http://172.16.3.4',
      'http://192.168.1.1',
      'http://100.64.0.1',
      'http://0.0.0.0',
      'http://[fd00::1]',
      'http://[fe80::1]',
      'http://[64:ff9b::7f00:1]',
      'ftp://example.com',
      'http://user:pass@example.com',
    ];
    for (const endpoint of endpoints) {
      const error = await t((tx) => addBucket(tx, f.admin, s3(endpoint))).catch((e: unknown) => e);
      expect(error, endpoint).toBeInstanceOf(AppError);
      expect({ endpoint, status: (error as AppError).status, field: (error as AppError).field }).toEqual({
        endpoint,
        status: 400,
        field: 'endpoint',
      });
    }
    const hosts = [
      '127.0.0.1',
      'localhost',
      '::1',
      '[::1]',
      '169.254.169.254',
      '::ffff:10.0.0.1',
      '2130706433',
      '0x7f000001',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.0.10',
      'fd12::1',
      '0.0.0.0',
      'a b',
      'user@example.com',
    ];
    for (const host of hosts) {
      const error = await t((tx) => addBucket(tx, f.admin, sftp(host))).catch((e: unknown) => e);
      expect({ host, status: (error as AppError).status, field: (error as AppError).field }).toEqual({
        host,
        status: 400,
        field: 'host',
      });
    }
    // Through the API: 400 with the field named.
    const admin = {
      tenantId: f.tenantId,
      userId: f.admin.userId,
      isAdmin: true,
      authorities: [],
      dataPermissions: [],
      language: 'en',
      via: 'session',
    } as unknown as Principal;
    for (const body of [s3('http://[::ffff:169.254.169.254]'), sftp('127.0.0.1')]) {
      const response = await bucketsApi.POST({
        request: new Request('http://localhost/v1/import-buckets', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
        params: {},
        locals: { principal: admin, requestId: 'r', language: 'en' },
      } as never);
      expect(response.status).toBe(400);
      expect((await response.json()).error.field).toBe(body.type === 's3' ? 'endpoint' : 'host');
    }
    // An edit is checked the same way.
    const saved = await t((tx) => addBucket(tx, f.admin, sftp('127.0.0.1'), local));
    const current = await t((tx) => getBucket(tx, saved.id));
    const refused = await t((tx) => updateBucket(tx, f.admin, saved.id, sftp('10.9.9.9'), current.version)).catch(
      (e) => e,
    );
    expect((refused as AppError).field).toBe('host');
    // A bucket saved while private targets were allowed is still refused when connecting without the opt-out.
    const server = await startSftp(new Map([['x.csv', csv(['Z-1;Z;Z'])]]));
    try {
      await t((tx) =>
        updateBucket(
          tx,
          f.admin,
          saved.id,
          { ...sftp('127.0.0.1'), port: server.port, secret: 'p' },
          current.version,
          local,
        ),
      );
      const run = await checkBucket(db, f.tenantId, saved.id, 'manual');
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/host must be a public address/);
      expect(server.connections()).toBe(0);
      expect(await testBucket(db, f.tenantId, saved.id)).toMatchObject({ ok: false });
    } finally {
      await server.close();
    }
    const s3Saved = await t((tx) => addBucket(tx, f.admin, s3('http://127.0.0.1:1'), local));
    const s3Run = await checkBucket(db, f.tenantId, s3Saved.id, 'manual');
    expect(s3Run).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/endpoint must be a public address/),
    });
  });

  test('a stored secret is only used again with the server it was typed for: a new host needs it typed again', async () => {
    const sftp = (host: string, extra: Record<string, unknown> = {}) => ({
      name: 'secret keeper',
      type: 'sftp',
      kind: 'customers',
      host,
      username: 'u',
      secret: '',
      ...extra,
    });
    const saved = await t((tx) => addBucket(tx, f.admin, sftp('93.184.216.34', { secret: 'stored-pw' }), local));
    // Same server, secret left empty: kept (a rename, a new mapping).
    const renamed = await t((tx) =>
      updateBucket(tx, f.admin, saved.id, { ...sftp('93.184.216.34'), name: 'secret keeper 2' }, saved.version, local),
    );
    // Another host, port, user name or type without the secret: refused, naming secret.
    for (const values of [
      sftp('93.184.216.99', { name: 'secret keeper 2' }),
      sftp('93.184.216.34', { name: 'secret keeper 2', port: 2222 }),
      sftp('93.184.216.34', { name: 'secret keeper 2', username: 'other' }),
      { name: 'secret keeper 2', type: 's3', kind: 'customers', bucket: 'imports', accessKeyId: 'AKIA', secret: '' },
    ]) {
      const refused = await t((tx) => updateBucket(tx, f.admin, saved.id, values, renamed.version, local)).catch(
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).field).toBe('secret');
    }
    // Typed again: accepted.
    const moved = await t((tx) =>
      updateBucket(
        tx,
        f.admin,
        saved.id,
        sftp('93.184.216.99', { name: 'secret keeper 2', secret: 'new' }),
        renamed.version,
        local,
      ),
    );
    expect(moved.host).toBe('93.184.216.99');
  });

  test('the scheduler queues the watcher once per 5 minutes; the watcher queues each enabled bucket once per slot', async () => {
    const now = new Date('2026-11-26T10:07:30Z');
    expect(watchSlot(now)).toBe('2026-11-26T10:05');
    const ticks = await Promise.all([schedulerTick(db, now), schedulerTick(db, now)]);
    expect(ticks.flatMap((r) => r.enqueued).filter((k) => k.startsWith('import_buckets.watch'))).toEqual([
      'import_buckets.watch:2026-11-26T10:05',
    ]);
    const enabled = await t((tx) =>
      tx.query<{ n: number }>(`select count(*)::int as n from import_buckets where is_enabled`),
    );
    expect(await watchBuckets(db, '2026-11-26T10:05')).toBe(enabled[0].n);
    expect(await watchBuckets(db, '2026-11-26T10:05')).toBe(0);
    const jobs = await db.system((tx) =>
      tx.query<{ n: number }>(
        `select count(*)::int as n from jobs where name = 'import_buckets.check' and dedupe_key like '%:2026-11-26T10:05'`,
      ),
    );
    expect(jobs[0].n).toBe(enabled[0].n);
  });
});
