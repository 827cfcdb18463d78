// The few parts of smtp-server (a devDependency without bundled types) the test SMTP sink uses.
declare module 'smtp-server' {
  import type { Readable } from 'node:stream';
  export type SMTPServerOptions = {
    authOptional?: boolean;
    disabledCommands?: string[];
    logger?: boolean;
    onData?: (stream: Readable, session: unknown, callback: (error?: Error | null) => void) => void;
  };
  export class SMTPServer {
    constructor(options: SMTPServerOptions);
    listen(port: number, host: string, callback?: () => void): void;
    close(callback?: () => void): void;
    server: import('node:net').Server;
  }
}
