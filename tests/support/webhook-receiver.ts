import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP receiver for the webhook tests: records every request (headers and raw body) and
 * answers as scripted, one behaviour per request (then the default): a status (with headers), or
 * 'hang' (never answers until closed or released).
 */
export type Behaviour = number | { status: number; headers?: Record<string, string> } | 'hang';

export type Received = { headers: Record<string, string>; body: string; at: Date };

export type Receiver = {
  url: string;
  port: number;
  requests: Received[];
  script(...behaviours: Behaviour[]): void;
  setDefault(behaviour: Behaviour): void;
  /** Answers every request held by 'hang' with 200 and closes nothing. */
  releaseHung(status?: number): void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const requests: Received[] = [];
  let queue: Behaviour[] = [];
  let fallback: Behaviour = 200;
  const hung: http.ServerResponse[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      requests.push({ headers, body: Buffer.concat(chunks).toString('utf8'), at: new Date() });
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const behaviour = queue.shift() ?? fallback;
      if (behaviour === 'hang') {
        hung.push(res);
        return;
      }
      const { status, headers: extra } = typeof behaviour === 'number' ? { status: behaviour, headers: {} } : behaviour;
      res.writeHead(status, { 'content-type': 'text/plain', ...extra });
      res.end(`answer ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    script: (...behaviours) => {
      queue = behaviours;
    },
    setDefault: (behaviour) => {
      fallback = behaviour;
    },
    releaseHung(status = 200) {
      for (const res of hung.splice(0)) if (!res.writableEnded && !res.destroyed) res.writeHead(status).end('late');
    },
    waitFor(count, timeoutMs = 20_000) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver: ${requests.length} of ${count} requests`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async close() {
      for (const res of hung.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
