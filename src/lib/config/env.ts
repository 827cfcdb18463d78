import path from 'node:path';

/**
 * Process configuration, read once from the environment. Every knob is documented in README.md.
 * Kept free of Astro so CLIs (schedule, seed, ledger:check) share it.
 */
export type Env = {
  port: number;
  host: string;
  /** Folder for the embedded database, the session secret, uploads and the mail outbox. */
  dataDir: string;
  /** When set, a real Postgres instead of the embedded PGlite. */
  databaseUrl: string | undefined;
  /** Sealing password for session cookies; generated into dataDir on first run when absent. */
  sessionSecret: string | undefined;
  /** Public origin, e.g. https://lend.example.com; used for links in mail and the OIDC callback. */
  publicUrl: string | undefined;
  smtpUrl: string | undefined;
  /** SMS provider endpoint (src/lib/conversations/sms.ts); without it SMS are written to DATA_DIR/outbox/sms. */
  smsProviderUrl: string | undefined;
  /** Bearer token sent to the SMS provider. */
  smsProviderToken: string | undefined;
  /** `whsec_…` secret of the Standard Webhooks signature on POST /v1/conversations/inbound (unset: every call is refused). */
  inboundWebhookSecret: string | undefined;
  /** Domain of the reply addresses `reply+<token>@…` of conversation e-mails (default: PUBLIC_URL's host, else localhost). */
  replyDomain: string | undefined;
  /**
   * ALLOW_PRIVATE_TARGETS=1: webhooks, event sinks, export targets and import buckets may reach
   * loopback and private addresses (local development and tests only; src/lib/net/outbound.ts).
   */
  allowPrivateTargets: boolean;
  /**
   * ALLOW_PRIVATE_TARGETS=127.0.0.1,::1 (addresses or CIDR ranges): only these private addresses may
   * be reached, every other private one stays refused (a local receiver, never the metadata service).
   */
  privateTargetAllowList: string[];
  seedDemo: boolean;
  demoPassword: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  isProduction: boolean;
};

/** The documented default password of the demo accounts (README). */
export const DEFAULT_DEMO_PASSWORD = 'Demo-Lender-2026!';

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

/** ALLOW_PRIVATE_TARGETS: a flag (1/0), or a comma-separated list of allowed private addresses. */
function privateTargets(value: string | undefined): Pick<Env, 'allowPrivateTargets' | 'privateTargetAllowList'> {
  const text = (value ?? '').trim();
  if (!/[.:/,]/.test(text)) return { allowPrivateTargets: flag(text, false), privateTargetAllowList: [] };
  const list = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return { allowPrivateTargets: false, privateTargetAllowList: list };
}

export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const level = (source.LOG_LEVEL ?? 'info').toLowerCase();
  return {
    port: Number(source.PORT ?? 4321),
    host: source.HOST ?? 'localhost',
    dataDir: path.resolve(source.DATA_DIR ?? './data'),
    databaseUrl: source.DATABASE_URL || undefined,
    sessionSecret: source.SESSION_SECRET || undefined,
    publicUrl: source.PUBLIC_URL || undefined,
    smtpUrl: source.SMTP_URL || undefined,
    smsProviderUrl: source.SMS_PROVIDER_URL || undefined,
    smsProviderToken: source.SMS_PROVIDER_TOKEN || undefined,
    inboundWebhookSecret: source.INBOUND_WEBHOOK_SECRET || undefined,
    replyDomain: source.REPLY_DOMAIN || undefined,
    ...privateTargets(source.ALLOW_PRIVATE_TARGETS),
    seedDemo: flag(source.SEED_DEMO, true),
    demoPassword: source.DEMO_PASSWORD || DEFAULT_DEMO_PASSWORD,
    logLevel: (['debug', 'info', 'warn', 'error'].includes(level) ? level : 'info') as Env['logLevel'],
    isProduction: source.NODE_ENV === 'production',
  };
}

let cached: Env | undefined;
export function env(): Env {
  cached ??= readEnv();
  return cached;
}
