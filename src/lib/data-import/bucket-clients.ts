import http from 'node:http';
import https from 'node:https';
import path from 'node:path/posix';
import { S3Client, ListObjectsV2Command, GetObjectCommand } from '@aws-sdk/client-s3';
import { AppError } from '../errors/app-error.ts';
import {
  checkTargetAddress,
  checkTargetUrl,
  publicLookup,
  resolvePublicHost,
  PRIVATE_TARGET_MESSAGE,
  PrivateTargetError,
  type TargetOptions,
} from '../net/outbound.ts';
import { connectSftp } from '../net/sftp.ts';
import { MAX_IMPORT_BYTES } from './file.ts';

/**
 * The two kinds of watched storage. Every connection goes through the outbound guard: the S3 endpoint
 * is checked (scheme, IP literal) and the SDK's sockets resolve names with `publicLookup()`, so the SDK
 * only ever connects to a checked public address; the SFTP host is resolved with `resolvePublicHost`
 * and the client connects to that checked address itself. ALLOW_PRIVATE_TARGETS=1 lifts the check
 * (local development, tests).
 */
export type BucketTarget =
  | {
      type: 's3';
      endpoint: string | null;
      region: string;
      bucket: string;
      prefix: string;
      accessKeyId: string;
      secret: string;
    }
  | {
      type: 'sftp';
      host: string;
      port: number;
      username: string;
      path: string;
      secret: string;
      /** The pinned host key fingerprint (`SHA256:…`); null = not pinned yet (trust on first use). */
      hostKeySha256: string | null;
    };

export type RemoteFile = { key: string; name: string; size: number; tag: string };

export type BucketConnection = {
  list(): Promise<RemoteFile[]>;
  read(file: RemoteFile): Promise<Uint8Array>;
  /** Marks a processed file at the source when the storage allows it (SFTP: moved into `processed/`). */
  markProcessed(file: RemoteFile): Promise<void>;
  close(): Promise<void>;
  /** SFTP: the fingerprint of the host key the server showed (checked against the pinned one). */
  fingerprint?: string;
};

const IMPORTABLE = /\.(csv|xlsx)$/i;
const TIMEOUT_MS = 15_000;

/** The S3 endpoint an administrator typed, checked (400 naming `endpoint`). */
export async function checkS3Endpoint(raw: string, options?: TargetOptions): Promise<URL> {
  return checkTargetAddress(raw, 'endpoint', ['https:', 'http:'], options);
}

/**
 * An SFTP host as typed (a name or an address, no scheme), normalised the way a URL host is (so
 * `2130706433` or `0x7f.1` are read as the addresses they are) and refused when private (400 naming `host`).
 */
export async function checkSftpHost(raw: string, options?: TargetOptions): Promise<string> {
  const text = raw.trim();
  if (!text || text.length > 253 || /[\s/@?#]/.test(text))
    throw new AppError('BAD_REQUEST', 'host must be a host name or an IP address', { field: 'host' });
  const literal = text.includes(':') && !text.startsWith('[') ? `[${text}]` : text;
  const url = await checkTargetAddress(`http://${literal}`, 'host', ['http:'], options);
  return url.hostname.replace(/^\[|\]$/g, '');
}

function s3Client(target: Extract<BucketTarget, { type: 's3' }>, options?: TargetOptions): S3Client {
  const lookup = publicLookup(options);
  return new S3Client({
    region: target.region || 'us-east-1',
    ...(target.endpoint ? { endpoint: target.endpoint, forcePathStyle: true } : {}),
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secret },
    requestHandler: {
      httpAgent: new http.Agent({ lookup }),
      httpsAgent: new https.Agent({ lookup }),
      connectionTimeout: TIMEOUT_MS,
      requestTimeout: TIMEOUT_MS,
    },
    maxAttempts: 2,
  });
}

async function readLimitedStream(body: AsyncIterable<Uint8Array>, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > max) throw new AppError('PAYLOAD_TOO_LARGE', 'The file is larger than the limit of 20 MB');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

async function openS3(
  target: Extract<BucketTarget, { type: 's3' }>,
  options?: TargetOptions,
): Promise<BucketConnection> {
  // Checked again at connection time: IP literals skip `lookup`, so the URL itself must be public.
  if (target.endpoint) checkTargetUrl(target.endpoint, 'endpoint', ['https:', 'http:'], options);
  const client = s3Client(target, options);
  const prefix = target.prefix;
  return {
    async list() {
      const files: RemoteFile[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: target.bucket, Prefix: prefix || undefined, ContinuationToken: token }),
        );
        for (const o of page.Contents ?? []) {
          if (!o.Key || !IMPORTABLE.test(o.Key) || o.Key.endsWith('/')) continue;
          files.push({ key: o.Key, name: path.basename(o.Key), size: Number(o.Size ?? 0), tag: o.ETag ?? '' });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token && files.length < 10_000);
      return files.sort((a, b) => a.key.localeCompare(b.key));
    },
    async read(file) {
      if (file.size > MAX_IMPORT_BYTES)
        throw new AppError('PAYLOAD_TOO_LARGE', 'The file is larger than the limit of 20 MB');
      const answer = await client.send(new GetObjectCommand({ Bucket: target.bucket, Key: file.key }));
      if (!answer.Body) return new Uint8Array();
      return readLimitedStream(answer.Body as AsyncIterable<Uint8Array>, MAX_IMPORT_BYTES);
    },
    // Objects stay where they are: processed ones are remembered by key and hash (import_bucket_files).
    async markProcessed() {},
    async close() {
      client.destroy();
    },
  };
}

function sftpCall<T>(fn: (cb: (error: Error | null | undefined, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((error, value) => (error ? reject(error) : resolve(value as T))));
}

async function openSftp(
  target: Extract<BucketTarget, { type: 'sftp' }>,
  options?: TargetOptions,
): Promise<BucketConnection> {
  let addresses;
  try {
    addresses = await resolvePublicHost(await checkSftpHost(target.host, options), options);
  } catch (error) {
    if (error instanceof PrivateTargetError)
      throw new AppError('BAD_REQUEST', `host ${PRIVATE_TARGET_MESSAGE}`, { field: 'host' });
    throw error;
  }
  // The host key is checked against the pinned one before the password is sent (src/lib/net/sftp.ts).
  const conn = await connectSftp(
    {
      host: addresses[0].address,
      port: target.port,
      username: target.username,
      password: target.secret,
      hostKeySha256: target.hostKeySha256,
    },
    { ...options, timeoutMs: TIMEOUT_MS },
  );
  const sftp = conn.sftp;
  const dir = target.path || '.';
  const processed = path.join(dir, 'processed');
  return {
    async list() {
      const entries = await sftpCall<
        { filename: string; attrs: { size: number; mtime: number; isFile?: () => boolean } }[]
      >((cb) => sftp.readdir(dir, cb as never));
      return entries
        .filter((e) => IMPORTABLE.test(e.filename) && (e.attrs.isFile ? e.attrs.isFile() : true))
        .map((e) => ({
          key: path.join(dir, e.filename),
          name: e.filename,
          size: e.attrs.size,
          tag: `${e.attrs.size}:${e.attrs.mtime}`,
        }))
        .sort((a, b) => a.key.localeCompare(b.key));
    },
    async read(file) {
      if (file.size > MAX_IMPORT_BYTES)
        throw new AppError('PAYLOAD_TOO_LARGE', 'The file is larger than the limit of 20 MB');
      return readLimitedStream(sftp.createReadStream(file.key), MAX_IMPORT_BYTES);
    },
    async markProcessed(file) {
      await sftpCall((cb) => sftp.mkdir(processed, (e) => cb(null, e))).catch(() => undefined);
      await sftpCall((cb) => sftp.rename(file.key, path.join(processed, file.name), cb));
    },
    async close() {
      conn.close();
    },
    fingerprint: conn.fingerprint,
  };
}

export async function openBucket(target: BucketTarget, options?: TargetOptions): Promise<BucketConnection> {
  return target.type === 's3' ? openS3(target, options) : openSftp(target, options);
}
