import net from 'node:net';
import { AppError } from '../errors/app-error.ts';
import {
  checkResolvesPublic,
  checkTargetUrl,
  HttpTimeoutError,
  PrivateTargetError,
  sendHttp,
  type TargetOptions,
} from '../net/outbound.ts';
import { HostKeyMismatchError, withSftp } from '../net/sftp.ts';

export { fingerprintOf, HostKeyMismatchError } from '../net/sftp.ts';

/**
 * Delivery of an export's file to an SFTP server or an HTTP endpoint a user typed. Both go through
 * src/lib/net/outbound.ts: the address is checked when saved (`checkSftpHost`, `checkTargetUrl`) and
 * again when connecting (the name is resolved once, every address must be public, and the socket
 * goes to the checked address); HTTP redirects are answers, never followed. Each delivery answers
 * an outcome; `isTransient` says whether a later attempt could succeed (network, 5xx, 429).
 */

export type DeliveryOutcome = {
  status: 'ok' | 'failed';
  isTransient: boolean;
  error: string | null;
  /** What the target answered (HTTP status, remote path, fingerprint…), for the history. */
  detail: string | null;
  at: string;
};

export const ok = (detail: string | null): DeliveryOutcome => ({
  status: 'ok',
  isTransient: false,
  error: null,
  detail,
  at: new Date().toISOString(),
});
export const failed = (error: string, isTransient: boolean, detail: string | null = null): DeliveryOutcome => ({
  status: 'failed',
  isTransient,
  error: error.slice(0, 500),
  detail,
  at: new Date().toISOString(),
});

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/**
 * An SFTP host as typed (a name, an IPv4 address in any spelling, an IPv6 address with or without
 * brackets), normalised the way a URL parser reads it (127.1 and 2130706433 are 127.0.0.1), and
 * refused (400 naming `field`) when it is not a public address. Answers the normalised host.
 */
export function checkSftpHost(raw: string, field: string, options?: TargetOptions): string {
  const typed = raw.trim();
  if (!typed) throw new AppError('BAD_REQUEST', `${field}: a host name or address is required`, { field });
  if (typed.length > 255) throw new AppError('BAD_REQUEST', `${field}: at most 255 characters`, { field });
  const bare = typed.replace(/^\[|\]$/g, '');
  const isV6 = net.isIPv6(bare);
  if (!isV6 && !HOST_NAME.test(bare))
    throw new AppError('BAD_REQUEST', `${field}: a host name such as sftp.example.com or an IP address is expected`, {
      field,
    });
  const url = checkTargetUrl(`http://${isV6 ? `[${bare}]` : bare}/`, field, ['http:'], options);
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** The same check with the name resolved now: a name pointing at a private address is refused when saved. */
export async function checkSftpAddress(raw: string, field: string, options?: TargetOptions): Promise<string> {
  const host = checkSftpHost(raw, field, options);
  // A name that does not resolve (yet, or in time) is accepted: every connection checks again.
  await checkResolvesPublic(host, field, options);
  return host;
}

export type SftpTarget = {
  host: string;
  port: number;
  username: string;
  password: string | null;
  privateKey: string | null;
  directory: string;
  /** The pinned host key; null = not pinned (any key accepted, and reported). */
  hostKeySha256: string | null;
};

/** The remote path of a file in a directory (POSIX separators, no doubled slash). */
export function remotePath(directory: string, fileName: string): string {
  const dir = directory.trim() || '.';
  return `${dir.replace(/\/+$/, '') || ''}/${fileName}`.replace(/^\/\//, '/');
}

function isAuthFailure(error: unknown): boolean {
  return error instanceof Error && /authentication methods failed|auth/i.test(error.message);
}

/** Connects, opens SFTP and answers the host key's fingerprint ("test connection"). */
export async function testSftp(
  target: SftpTarget,
  options: TargetOptions & { timeoutMs?: number } = {},
): Promise<{ fingerprint: string }> {
  const { fingerprint } = await withSftp(target, options, async () => undefined);
  return { fingerprint };
}

/** Uploads the file as `<name>.part` and renames it, so a reader never picks up half a file. */
export async function deliverSftp(
  target: SftpTarget,
  fileName: string,
  content: Buffer,
  options: TargetOptions = {},
): Promise<DeliveryOutcome> {
  const finalPath = remotePath(target.directory, fileName);
  const partPath = `${finalPath}.part`;
  try {
    const { fingerprint } = await withSftp(target, options, async (sftp) => {
      await new Promise<void>((resolve, reject) =>
        sftp.writeFile(partPath, content, (e) => (e ? reject(e) : resolve())),
      );
      // Some servers refuse to rename over an existing file: remove it first (a missing one is fine).
      await new Promise<void>((resolve) => sftp.unlink(finalPath, () => resolve()));
      await new Promise<void>((resolve, reject) =>
        sftp.rename(partPath, finalPath, (e) => (e ? reject(e) : resolve())),
      );
    });
    return ok(`${finalPath} (${fingerprint})`);
  } catch (error) {
    if (error instanceof HostKeyMismatchError || error instanceof PrivateTargetError)
      return failed(error.message, false);
    if (isAuthFailure(error)) return failed(`sign-in refused: ${(error as Error).message}`, false);
    return failed(error instanceof Error ? error.message : String(error), true);
  }
}

export type HttpTarget = {
  url: string;
  method: 'PUT' | 'POST';
  headerName: string | null;
  headerValue: string | null;
};

/** PUT or POST of the file; 2xx is delivered, a redirect is a failure (not followed), 5xx/429/408 may pass later. */
export async function deliverHttp(
  target: HttpTarget,
  file: { name: string; content: Buffer; contentType: string },
  options: TargetOptions = {},
): Promise<DeliveryOutcome> {
  const headers: Record<string, string> = {
    'content-type': file.contentType,
    'content-length': String(file.content.length),
    'content-disposition': `attachment; filename="${file.name.replace(/["\\\r\n]/g, '_')}"`,
  };
  if (target.headerName && target.headerValue) headers[target.headerName] = target.headerValue;
  try {
    const answer = await sendHttp(target.url, {
      method: target.method,
      headers,
      body: file.content,
      timeoutMs: 60_000,
      maxResponseBytes: 2_000,
      ...options,
    });
    const detail = `HTTP ${answer.status} in ${answer.durationMs} ms`;
    if (answer.status >= 200 && answer.status < 300) return ok(detail);
    if (answer.status >= 300 && answer.status < 400)
      return failed(`the target answered a redirect (${answer.status}), which is not followed`, false, detail);
    const isTransient = answer.status >= 500 || answer.status === 429 || answer.status === 408;
    return failed(`the target answered ${answer.status}`, isTransient, detail);
  } catch (error) {
    if (error instanceof PrivateTargetError) return failed(error.message, false);
    if (error instanceof HttpTimeoutError) return failed(error.message, true);
    return failed(error instanceof Error ? error.message : String(error), true);
  }
}
