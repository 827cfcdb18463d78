import net from 'node:net';

/**
 * One request written by hand on a socket, for what an HTTP client refuses to send: TRACE, TRACK,
 * CONNECT, made-up method tokens. Answers the status and the headers (lower-cased names).
 */
export function rawRequest(
  baseURL: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const url = new URL(baseURL);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let data = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error(`${method} ${path}: timed out`)));
    socket.on('connect', () => {
      const lines = [
        `${method} ${path} HTTP/1.1`,
        `Host: ${url.host}`,
        'Connection: close',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const status = Number(statusLine.split(' ')[1]);
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(':');
        if (i > 0) parsed[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers: parsed, body: rest.join('\r\n\r\n') });
    });
  });
}
