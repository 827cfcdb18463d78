import type { AddressInfo } from 'node:net';
import ssh2 from 'ssh2';
import type { Connection, SFTPWrapper } from 'ssh2';

/**
 * An SFTP server on 127.0.0.1 for the tests (ssh2's server side): password sign-in for one user,
 * and the few SFTP requests an upload makes (open, write, close, remove, rename), with the files kept
 * in memory. `files` maps a remote path to its bytes.
 */
export type SftpStandIn = {
  port: number;
  files: Map<string, Buffer>;
  /** Sign-ins seen (user names), accepted or not. */
  logins: string[];
  close(): Promise<void>;
};

const { Server, utils } = ssh2;
const { OPEN_MODE, STATUS_CODE } = utils.sftp;

export async function startSftpStandIn(credentials: { username: string; password: string }): Promise<SftpStandIn> {
  const hostKey = utils.generateKeyPairSync('ed25519').private;
  const files = new Map<string, Buffer>();
  const logins: string[] = [];
  const connections = new Set<Connection>();
  const server = new Server({ hostKeys: [hostKey] }, (client) => {
    connections.add(client);
    client.on('close', () => connections.delete(client));
    client.on('error', () => {});
    client.on('authentication', (ctx) => {
      logins.push(ctx.username);
      if (ctx.method === 'password' && ctx.username === credentials.username && ctx.password === credentials.password)
        return ctx.accept();
      return ctx.reject(['password']);
    });
    client.on('ready', () => {
      client.on('session', (accept) => {
        const session = accept();
        session.on('sftp', (acceptSftp) => serveSftp(acceptSftp(), files));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    files,
    logins,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.end();
        server.close(() => resolve());
      }),
  };
}

function serveSftp(sftp: SFTPWrapper, files: Map<string, Buffer>): void {
  const open = new Map<number, { path: string; chunks: Buffer }>();
  let next = 0;
  const handleOf = (buffer: Buffer) => (buffer.length === 4 ? buffer.readUInt32BE(0) : -1);
  sftp.on('OPEN', (reqid, filename, flags) => {
    if (!(flags & OPEN_MODE.WRITE)) return sftp.status(reqid, STATUS_CODE.OP_UNSUPPORTED);
    const id = next++;
    open.set(id, { path: filename, chunks: Buffer.alloc(0) });
    const handle = Buffer.alloc(4);
    handle.writeUInt32BE(id, 0);
    sftp.handle(reqid, handle);
  });
  sftp.on('WRITE', (reqid, handle, offset, data) => {
    const file = open.get(handleOf(handle));
    if (!file) return sftp.status(reqid, STATUS_CODE.FAILURE);
    const end = offset + data.length;
    const grown =
      file.chunks.length < end ? Buffer.concat([file.chunks, Buffer.alloc(end - file.chunks.length)]) : file.chunks;
    data.copy(grown, offset);
    file.chunks = grown;
    sftp.status(reqid, STATUS_CODE.OK);
  });
  sftp.on('CLOSE', (reqid, handle) => {
    const id = handleOf(handle);
    const file = open.get(id);
    if (!file) return sftp.status(reqid, STATUS_CODE.FAILURE);
    open.delete(id);
    files.set(file.path, file.chunks);
    sftp.status(reqid, STATUS_CODE.OK);
  });
  sftp.on('REMOVE', (reqid, path) => {
    sftp.status(reqid, files.delete(path) ? STATUS_CODE.OK : STATUS_CODE.NO_SUCH_FILE);
  });
  sftp.on('RENAME', (reqid, from, to) => {
    const content = files.get(from);
    if (!content || files.has(to)) return sftp.status(reqid, STATUS_CODE.FAILURE);
    files.delete(from);
    files.set(to, content);
    sftp.status(reqid, STATUS_CODE.OK);
  });
}
