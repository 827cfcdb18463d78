import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * Hostile request bodies for tests/e2e/security-bodies.spec.ts. Each is sent on a
 * raw socket so the test controls framing: a declared Content-Length, chunked with no length, a
 * Content-Length that lies, a slow drip. The server must answer 413 in the one error shape before it
 * buffers the body, and its memory must stay bounded.
 */
const KB = 1024;
const MB = 1024 * KB;

export type Framing =
  /** Content-Length: size, and the bytes really follow (until the server answers). */
  | 'declared'
  /** Transfer-Encoding: chunked, no length: only counting can stop it. */
  | 'chunked'
  /** Content-Length says `lie` bytes; `size` bytes follow (the rest must never become a body). */
  | 'lying'
  /** Chunked, small chunks with a pause between them: counting must still stop it at the limit. */
  | 'drip'
  /** Content-Length: size declared, then bytes dripped slowly: refused on the header alone. */
  | 'declared-drip';

export type BodyPayload = {
  name: string;
  method: 'POST' | 'PUT' | 'PATCH';
  /** Path; `{customer}` is replaced with a customer the test created. */
  path: string;
  contentType: string;
  framing: Framing;
  size: number;
  /** For 'lying': the length declared. */
  lie?: number;
  /** Whether the session cookie is sent (a signed-in endpoint). */
  isSignedIn: boolean;
};

const json = 'application/json';
const form = 'application/x-www-form-urlencoded';
const multipart = 'multipart/form-data; boundary=----e2e-boundary';

export const OVERSIZE_BODIES: BodyPayload[] = [
  // The public sign-in, the one reachable by anyone.
  {
    name: 'sign-in JSON, 200 MB declared',
    method: 'POST',
    path: '/v1/auth/sign-in',
    contentType: json,
    framing: 'declared',
    size: 200 * MB,
    isSignedIn: false,
  },
  {
    name: 'sign-in JSON, 200 MB chunked',
    method: 'POST',
    path: '/v1/auth/sign-in',
    contentType: json,
    framing: 'chunked',
    size: 200 * MB,
    isSignedIn: false,
  },
  {
    name: 'sign-in JSON, 64 KB chunked',
    method: 'POST',
    path: '/v1/auth/sign-in',
    contentType: json,
    framing: 'chunked',
    size: 64 * KB,
    isSignedIn: false,
  },
  {
    name: 'sign-in JSON, slow drip',
    method: 'POST',
    path: '/v1/auth/sign-in',
    contentType: json,
    framing: 'drip',
    size: 40 * KB,
    isSignedIn: false,
  },
  {
    name: 'sign-in JSON, 200 MB declared then dripped',
    method: 'POST',
    path: '/v1/auth/sign-in',
    contentType: json,
    framing: 'declared-drip',
    size: 200 * MB,
    isSignedIn: false,
  },
  {
    name: 'password reset JSON, 5 MB chunked',
    method: 'POST',
    path: '/v1/auth/password-reset',
    contentType: json,
    framing: 'chunked',
    size: 5 * MB,
    isSignedIn: false,
  },
  {
    name: 'login form post, 20 MB declared',
    method: 'POST',
    path: '/user/login',
    contentType: form,
    framing: 'declared',
    size: 20 * MB,
    isSignedIn: false,
  },
  {
    name: 'login form post, 20 MB chunked',
    method: 'POST',
    path: '/user/login',
    contentType: form,
    framing: 'chunked',
    size: 20 * MB,
    isSignedIn: false,
  },
  // Signed-in JSON endpoints.
  {
    name: 'create customer JSON, 50 MB declared',
    method: 'POST',
    path: '/v1/customers',
    contentType: json,
    framing: 'declared',
    size: 50 * MB,
    isSignedIn: true,
  },
  {
    name: 'create customer JSON, 50 MB chunked',
    method: 'POST',
    path: '/v1/customers',
    contentType: json,
    framing: 'chunked',
    size: 50 * MB,
    isSignedIn: true,
  },
  {
    name: 'error report JSON, 8 MB chunked',
    method: 'POST',
    path: '/v1/error-reports',
    contentType: json,
    framing: 'chunked',
    size: 8 * MB,
    isSignedIn: true,
  },
  {
    name: 'customer update JSON, slow drip',
    method: 'PATCH',
    path: '/v1/customers/{customer}',
    contentType: json,
    framing: 'drip',
    size: 300 * KB,
    isSignedIn: true,
  },
  {
    name: 'customer form post, 20 MB chunked',
    method: 'POST',
    path: '/loans/customer/profile/{customer}/resume',
    contentType: form,
    framing: 'chunked',
    size: 20 * MB,
    isSignedIn: true,
  },
  // Uploads: their documented limits (document 10 MB, bank statement 2 MB), raw and multipart.
  {
    name: 'document upload, 11 MB declared',
    method: 'POST',
    path: '/v1/customers/{customer}/files?kind=document&name=a.pdf',
    contentType: 'application/pdf',
    framing: 'declared',
    size: 11 * MB,
    isSignedIn: true,
  },
  {
    name: 'document upload, 30 MB chunked',
    method: 'POST',
    path: '/v1/customers/{customer}/files?kind=document&name=a.pdf',
    contentType: 'application/pdf',
    framing: 'chunked',
    size: 30 * MB,
    isSignedIn: true,
  },
  {
    name: 'bank statement upload, 3 MB declared',
    method: 'POST',
    path: '/v1/customers/{customer}/bank-statements?name=s.csv',
    contentType: 'text/csv',
    framing: 'declared',
    size: 3 * MB,
    isSignedIn: true,
  },
  {
    name: 'bank statement as a file kind, 3 MB chunked',
    method: 'POST',
    path: '/v1/customers/{customer}/files?kind=bank_statement&name=s.csv',
    contentType: 'text/csv',
    framing: 'chunked',
    size: 3 * MB,
    isSignedIn: true,
  },
  {
    name: 'multipart document upload, 12 MB declared',
    method: 'POST',
    path: '/loans/customer/profile/{customer}/files',
    contentType: multipart,
    framing: 'declared',
    size: 12 * MB,
    isSignedIn: true,
  },
  {
    name: 'multipart document upload, 40 MB chunked',
    method: 'POST',
    path: '/loans/customer/profile/{customer}/files',
    contentType: multipart,
    framing: 'chunked',
    size: 40 * MB,
    isSignedIn: true,
  },
  {
    name: 'multipart bank statement, 3 MB chunked',
    method: 'POST',
    path: '/admin/customer/profile/{customer}/bank-statements',
    contentType: multipart,
    framing: 'chunked',
    size: 3 * MB,
    isSignedIn: true,
  },
];

/** Content-Lengths that lie low: only the declared bytes may ever be read as a body. */
export const LYING_BODIES: BodyPayload[] = [
  {
    name: 'sign-in, says 20 bytes, sends 50 MB',
    method: 'POST',
    path: '/v1/auth/sign-in',
    contentType: json,
    framing: 'lying',
    lie: 20,
    size: 50 * MB,
    isSignedIn: false,
  },
  {
    name: 'customer, says 100 bytes, sends 50 MB',
    method: 'POST',
    path: '/v1/customers',
    contentType: json,
    framing: 'lying',
    lie: 100,
    size: 50 * MB,
    isSignedIn: true,
  },
];

/** The body bytes: JSON-looking, form-looking or multipart-looking filler, so no parser refuses early. */
export function fillerChunk(contentType: string, bytes: number): Buffer {
  const unit = contentType.startsWith('application/json')
    ? '{"email":"'
    : contentType.startsWith('multipart/')
      ? '------e2e-boundary\r\n'
      : 'email=aaaa&';
  return Buffer.from(unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes));
}

export type RawAnswer = { status: number | null; headers: string; body: string; sent: number };

/**
 * Sends one payload on a raw socket and resolves with the server's answer. Writing stops as soon as
 * the answer starts (the server refuses early and closes), after `size` bytes, or on a reset.
 */
export function sendRaw(port: number, payload: BodyPayload, extraHeaders: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let isDone = false;
    const finish = () => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      socket.destroy();
      const split = answer.indexOf('\r\n\r\n');
      const head = split >= 0 ? answer.slice(0, split) : answer;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      resolve({
        status: status ? Number(status) : null,
        headers: head,
        body: split >= 0 ? answer.slice(split + 4) : '',
        sent,
      });
    };
    const timer = setTimeout(finish, 30_000);
    socket.on('data', (d) => {
      answer += d.toString('latin1');
      const split = answer.indexOf('\r\n\r\n');
      const length = /content-length:\s*(\d+)/i.exec(answer)?.[1];
      if (split >= 0 && length !== undefined && answer.length >= split + 4 + Number(length)) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
    const isChunked = payload.framing === 'chunked' || payload.framing === 'drip';
    const declared = payload.framing === 'lying' ? payload.lie! : payload.size;
    const url = payload.path;
    const head = [
      `${payload.method} ${url} HTTP/1.1`,
      `Host: localhost:${port}`,
      `Content-Type: ${payload.contentType}`,
      isChunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${declared}`,
      ...Object.entries(extraHeaders).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n');
    socket.write(head);
    const slow = payload.framing === 'drip' || payload.framing === 'declared-drip';
    const chunkSize = slow ? 1 * KB : 64 * KB;
    const chunk = fillerChunk(payload.contentType, chunkSize);
    const frame = isChunked
      ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
      : chunk;
    const pump = async () => {
      while (!isDone && !answer && !socket.destroyed && sent < payload.size) {
        const isFlushed = socket.write(frame);
        sent += chunk.length;
        if (slow) await new Promise((r) => setTimeout(r, 25));
        else if (!isFlushed) {
          await new Promise<void>((resolve) => {
            const done = () => {
              socket.off('drain', done).off('close', done);
              resolve();
            };
            socket.on('drain', done).on('close', done);
          });
        } else await new Promise((r) => setImmediate(r));
        // A declared drip needs no more than a few seconds to prove it was refused on the header.
        if (payload.framing === 'declared-drip' && sent >= 64 * KB) break;
      }
      if (!isDone && !answer && !socket.destroyed && isChunked && sent >= payload.size) socket.write('0\r\n\r\n');
    };
    socket.once('connect', () => void pump());
  });
}

/** Resident memory of the e2e server (its pid is in the PGlite lock file of its data directory), in bytes. */
export function serverRss(): number {
  const pid = Number(fs.readFileSync(path.join(process.env.E2E_DATA_DIR ?? '', 'lending.lock'), 'utf8').trim());
  const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for the server process ${pid}`);
  return Number(kb) * KB;
}
