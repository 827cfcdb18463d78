import crypto from 'node:crypto';
import { Client, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { resolvePublicHost, type TargetOptions } from './outbound.ts';

/**
 * The one SFTP connection helper (scheduled exports and import buckets): the host a user typed is
 * resolved through the outbound guard (`resolvePublicHost`: every address public, the socket goes to
 * the checked address), and the server's host key is checked against the pinned fingerprint BEFORE
 * any password or key is sent (ssh2's `hostVerifier` runs during the key exchange). A server showing
 * another key is refused with `HostKeyMismatchError`; with no pinned key, any key is accepted and its
 * fingerprint is answered so the caller can pin it.
 */

/** OpenSSH's fingerprint of a host key: `SHA256:` and the unpadded base64 of its SHA-256. */
export function fingerprintOf(key: Buffer): string {
  return `SHA256:${crypto.createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

export class HostKeyMismatchError extends Error {
  readonly expected: string;
  readonly seen: string;
  constructor(expected: string, seen: string) {
    super(`the server's host key changed: pinned ${expected}, the server showed ${seen}`);
    this.name = 'HostKeyMismatchError';
    this.expected = expected;
    this.seen = seen;
  }
}

export type SftpServer = {
  /** The host as typed and checked when saved; resolved (and checked) again here. */
  host: string;
  port: number;
  username: string;
  password?: string | null;
  privateKey?: string | null;
  /** The pinned host key fingerprint (`SHA256:…`); null = not pinned (any key accepted and answered). */
  hostKeySha256: string | null;
};

export type SftpConnection = {
  sftp: SFTPWrapper;
  /** The fingerprint of the host key the server showed. */
  fingerprint: string;
  close(): void;
};

/**
 * Connects and opens SFTP. Rejects with `HostKeyMismatchError` when the server's key is not the pinned
 * one (no credentials sent), `PrivateTargetError` when the name resolves to a private address, or
 * ssh2's error (carrying `fingerprint` when a key was seen) otherwise.
 */
export async function connectSftp(
  server: SftpServer,
  options: TargetOptions & { timeoutMs?: number } = {},
): Promise<SftpConnection> {
  const [address] = await resolvePublicHost(server.host, options);
  const client = new Client();
  let seen: string | null = null;
  const config: ConnectConfig = {
    host: address!.address,
    port: server.port,
    username: server.username,
    readyTimeout: options.timeoutMs ?? 20_000,
    hostVerifier: (key: Buffer) => {
      seen = fingerprintOf(key);
      return server.hostKeySha256 === null || server.hostKeySha256 === seen;
    },
    ...(server.privateKey ? { privateKey: server.privateKey } : { password: server.password ?? '' }),
  };
  return new Promise((resolve, reject) => {
    let isSettled = false;
    const settle = (fn: () => void) => {
      if (isSettled) return;
      isSettled = true;
      fn();
    };
    client.on('error', (error: Error) => {
      const mismatch = seen !== null && server.hostKeySha256 !== null && seen !== server.hostKeySha256;
      client.end();
      settle(() =>
        reject(
          mismatch
            ? new HostKeyMismatchError(server.hostKeySha256!, seen!)
            : Object.assign(error, { fingerprint: seen }),
        ),
      );
    });
    client.on('ready', () => {
      client.sftp((error, sftp) => {
        if (error) {
          client.end();
          return settle(() => reject(error));
        }
        settle(() => resolve({ sftp, fingerprint: seen ?? '', close: () => client.end() }));
      });
    });
    try {
      client.connect(config);
    } catch (error) {
      client.end();
      settle(() => reject(error));
    }
  });
}

/** Connects, runs `work` on the SFTP session and always closes the connection. */
export async function withSftp<T>(
  server: SftpServer,
  options: TargetOptions & { timeoutMs?: number },
  work: (sftp: SFTPWrapper, fingerprint: string) => Promise<T>,
): Promise<{ fingerprint: string; result: T }> {
  const conn = await connectSftp(server, options);
  try {
    return { fingerprint: conn.fingerprint, result: await work(conn.sftp, conn.fingerprint) };
  } finally {
    conn.close();
  }
}
