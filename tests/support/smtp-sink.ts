import fs from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

/**
 * A local SMTP server for tests: accepts every message on 127.0.0.1 (no TLS, no auth), keeps it in
 * `messages` and, when `dir` is given, writes it to `<dir>/<time>-<n>.eml`. Used by the browser tests
 * (scripts/test-e2e.ts starts one before Playwright) and by integration tests of mail delivery.
 */
export type SmtpSink = { url: string; port: number; messages: string[]; stop(): Promise<void> };

export async function startSmtpSink(dir?: string): Promise<SmtpSink> {
  const messages: string[] = [];
  let n = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        messages.push(text);
        if (dir) {
          fs.mkdirSync(dir, { recursive: true });
          n += 1;
          fs.writeFileSync(path.join(dir, `${Date.now()}-${String(n).padStart(4, '0')}.eml`), text);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
