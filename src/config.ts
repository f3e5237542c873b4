import { z } from 'zod';

const plans = ['free', 'pro', 'business'] as const;

const envObject = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(1337),
  HOST: z.string().default('127.0.0.1'),
  PUBLIC_URL: z.string().url().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL (unset: the embedded database)')
    .optional(),
  /**
   * The PostgreSQL server itself when DATABASE_URL goes through a transaction pooler (PgBouncer): for the
   * connections that need a session (LISTEN, session advisory locks; docs/postgresql.md). Default: DATABASE_URL.
   */
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL (unset: DATABASE_URL)')
    .optional(),
  /**
   * A streaming hot standby of DATABASE_URL's server: the reads that may lag (board report, statistics, exports)
   * go there while it is within CRM_REPLICA_MAX_LAG_MS (docs/postgresql.md#a-read-replica). Never written to.
   */
  DATABASE_REPLICA_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL (unset: no replica)')
    .optional(),
  /** Past this replay lag (milliseconds) the replica is not read: the primary answers. */
  CRM_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).default(1000),
  /** Named prepared statements for the hot queries; `false` behind a transaction pooler that cannot keep them. */
  DATABASE_PREPARED_STATEMENTS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  CRM_DATA_DIR: z.string().default('data'),
  CRM_JWT_SECRET: z.string().min(32).optional(),
  CRM_DEFAULT_PLAN: z.enum(plans).default('business'),
  CRM_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: human-readable (pino-pretty) when stdout is a terminal, JSON lines otherwise. */
  CRM_LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /**
   * Prometheus metrics (`GET /metrics`, docs/metrics.md): when set, scrapes need `Authorization: Bearer <it>`;
   * unset (and no CRM_METRICS_PORT), anyone reaching the API port may read them.
   */
  CRM_METRICS_TOKEN: z
    .string()
    .regex(/^\S{16,}$/, 'at least 16 characters, no spaces (openssl rand -hex 24)')
    .optional(),
  /**
   * `GET /metrics` on this port of its own (on HOST) instead of the API port, also in `crm worker` processes;
   * API processes of CRM_PROCESSES > 1 take this port plus their index (0, 1, …).
   */
  CRM_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * Browser origins allowed to call the API (comma-separated, e.g. `https://app.example.com`), or `*`.
   * Unset: no CORS headers at all, so browsers keep other sites' scripts out (the API needs none: it is
   * called with bearer tokens, not cookies).
   */
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((o) => o.trim().replace(/\/+$/, ''))
        .filter(Boolean),
    ),
  /** Access-Control-Allow-Credentials (cookies, TLS client certificates); never with `*`. */
  CORS_CREDENTIALS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  CRM_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(10),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(600),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  RATE_LIMIT_LOGIN_MAX: z.coerce.number().int().positive().default(10),
  RATE_LIMIT_TOKEN_MAX: z.coerce.number().int().positive().default(10),
  RATE_LIMIT_PUBLIC_MAX: z.coerce.number().int().positive().default(30),
  RATE_LIMIT_DISPATCH_MAX: z.coerce.number().int().positive().default(10),
  /**
   * Failed authentications per IP and window, in three buckets of their own: bearers that do not verify,
   * requests without credentials, wrong passwords. Beyond it the failing requests get 429; a valid bearer from
   * the same IP still passes (platform/http/rate-limit.ts).
   */
  RATE_LIMIT_AUTH_FAILURES_MAX: z.coerce.number().int().positive().default(60),
  /** Wrong passwords for one account (its identifier), from any IP, per window; beyond it, its sign-in is 429. */
  RATE_LIMIT_ACCOUNT_FAILURES_MAX: z.coerce.number().int().positive().default(10),
  /** API processes `crm serve` runs, sharing the port (node:cluster); more than one needs PostgreSQL. */
  CRM_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  /** Background jobs: `inline` runs workers inside `crm serve`; `external` leaves them to `crm worker`. */
  CRM_WORKERS: z.enum(['inline', 'external']).default('inline'),
  CRM_JOBS_POLL_SECONDS: z.coerce.number().min(0.5).default(2),
  /**
   * Prefix of every job queue: processes with different namespaces on one database never take each other's
   * jobs (the test suite gives each worker process its own; deployments leave it empty).
   */
  CRM_JOBS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_]*$/, 'letters, digits and underscores only')
    .default(''),
  CRM_JOBS_MAINTENANCE_SECONDS: z.coerce.number().int().min(1).default(60),
  /** An active job older than this (its worker died) is failed and retried, unless its queue says otherwise. */
  CRM_JOBS_EXPIRE_SECONDS: z.coerce.number().int().min(1).default(300),
  /**
   * How often the processes running the workers fold the card-count deltas, prune expired idempotency keys
   * and (when nothing else does) VACUUM those bookkeeping tables (src/platform/db/maintenance.ts).
   */
  CRM_DB_MAINTENANCE_SECONDS: z.coerce.number().int().min(1).default(30),
  /**
   * How long a keyed POST holds its Idempotency-Key without a sign of life from its process (renewed every
   * third of it while the request runs): a retry after it expired takes the key over (the process died).
   */
  CRM_IDEMPOTENCY_LEASE_SECONDS: z.coerce.number().min(0.3).default(30),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  /** WhatsApp Cloud API base (Graph-style `/{version}/{phone-number-id}/messages`); tests point it at a local peer. */
  CRM_WHATSAPP_API_URL: z.string().url().default('https://graph.facebook.com'),
  CRM_WHATSAPP_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/)
    .default('v21.0'),
  /**
   * WhatsApp's own limits (docs/messaging.md, "WhatsApp limits"): messages per second through one business number
   * when its channel sets no `settings.ratePerSecond`, and the least time between two messages to the same person
   * from one number (later ones wait for it).
   */
  CRM_WHATSAPP_RATE_PER_SECOND: z.coerce.number().int().min(1).max(1000).default(80),
  CRM_WHATSAPP_PAIR_INTERVAL_MS: z.coerce.number().int().min(0).default(6000),
  /** Conversions API base (Meta shape: `POST /{version}/{pixelId}/events`); tests point it at a local peer. */
  CRM_CONVERSIONS_API_URL: z.string().url().default('https://graph.facebook.com'),
  CRM_CONVERSIONS_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/)
    .default('v21.0'),
  /** SMS provider base speaking the Twilio Messages API shape. */
  CRM_SMS_API_URL: z.string().url().default('https://api.twilio.com'),
  /** Lead ads: Graph-style API (OAuth token exchange, pages, leadgen forms, subscriptions, leads); tests point it at a local peer. */
  CRM_LEAD_ADS_API_URL: z.string().url().default('https://graph.facebook.com'),
  CRM_LEAD_ADS_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/)
    .default('v21.0'),
  /** The OAuth 2 authorization dialog people are sent to (client_id, redirect_uri, state, scope, PKCE). */
  CRM_LEAD_ADS_OAUTH_URL: z.string().url().default('https://www.facebook.com/v21.0/dialog/oauth'),
  /** The app's credentials; unset: the lead ads routes answer 503 saying so. */
  CRM_LEAD_ADS_APP_ID: z.string().optional(),
  CRM_LEAD_ADS_APP_SECRET: z.string().optional(),
  /** The `hub.verify_token` of the leadgen webhook handshake (GET /webhooks/lead-ads). */
  CRM_LEAD_ADS_VERIFY_TOKEN: z.string().optional(),
  /** Lead fetch jobs: retries after the first failure, and the first retry's delay (doubling). */
  CRM_LEAD_ADS_RETRY_LIMIT: z.coerce.number().int().min(0).default(5),
  CRM_LEAD_ADS_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).default(30),
  /** Timeout of each provider request (WhatsApp, SMS, SMTP), in milliseconds. */
  CRM_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * Hosts (names or IP addresses, comma-separated) that outbound calls to user-given URLs may reach even though
   * they are loopback or private (DESIGN.md §11): e.g. an intranet CalDAV server; tests set `127.0.0.1`.
   */
  CRM_OUTBOUND_ALLOWLIST: z.string().optional(),
  /** A PEM file of extra certificate authorities outbound HTTPS calls trust (beside the system's), e.g. an internal CA. */
  CRM_OUTBOUND_CA_FILE: z.string().optional(),
  /**
   * The agent servers (RFC 8707 resource indicators) OAuth access tokens may be issued for: comma list of
   * absolute URLs such as https://mcp.example.com/mcp. Unset: only agent servers on loopback addresses.
   */
  CRM_OAUTH_RESOURCES: z
    .string()
    .refine(
      (v) => v.split(',').every((r) => !r.trim() || /^https?:\/\/[^#]+$/.test(r.trim())),
      'must be a comma list of http(s) URLs without fragments (the agent servers, e.g. https://mcp.example.com/mcp)',
    )
    .optional(),
  /**
   * Key of the AES-256-GCM encryption of stored credentials (calendar passwords, provider tokens): 32 bytes as
   * base64 or hex. Unset: a key generated once and kept in the database (instance_secrets) — set it in
   * production so that a copy of the database alone does not reveal the credentials.
   */
  CRM_ENCRYPTION_KEY: z
    .string()
    .refine(
      (k) => (/^[0-9a-f]{64}$/i.test(k) ? 32 : Buffer.from(k, 'base64').length) === 32,
      'must be 32 bytes, as base64 or 64 hex digits (openssl rand -base64 32)',
    )
    .optional(),
  MAIL_FROM: z.string().default('CRM <no-reply@crm.localhost>'),
  /** Bytes of uploaded files one organization may keep (counted from card_files rows); 413 beyond. */
  CRM_ORG_STORAGE_QUOTA_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(1024 ** 3),
  /** How often the upload sweep runs, and how old an unreferenced file must be before it removes it. */
  CRM_UPLOAD_SWEEP_SECONDS: z.coerce.number().int().min(1).default(900),
  CRM_UPLOAD_GRACE_SECONDS: z.coerce.number().int().min(0).default(3600),
  CRM_TASK_REMINDER_LEAD_MINUTES: z.coerce.number().int().min(0).default(60),
  /** How often the retention rules and due organization deletions run (docs/lgpd.md). */
  CRM_LGPD_SWEEP_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** Days between an owner scheduling its organization's deletion and the deletion (cancellable until then). */
  CRM_ORG_DELETION_GRACE_DAYS: z.coerce.number().min(0).max(365).default(30),
  /** Hours an organization export's download link stays valid (downloadable once). */
  CRM_ORG_EXPORT_TTL_HOURS: z.coerce.number().int().min(1).max(720).default(72),
  /**
   * At SIGTERM: seconds `/api/ready` answers 503 while the process still serves (for a load balancer to notice),
   * then the longest wait for requests in flight before their connections are closed.
   */
  CRM_SHUTDOWN_DELAY_SECONDS: z.coerce.number().min(0).max(300).default(0),
  CRM_SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).max(3600).default(10),
  /**
   * Scheduled backups of the embedded database, taken by the serving process (docs/backups.md): an interval
   * such as `6h`, `30m`, `1d` or seconds (`900`); unset, `0` or `off`: none.
   */
  CRM_BACKUP_INTERVAL: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const m = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(v ?? '');
      if (v === undefined || /^\s*(off|0+[smhd]?)?\s*$/i.test(v)) return undefined;
      if (!m) {
        ctx.addIssue({
          code: 'custom',
          message: 'an interval such as 6h, 30m, 1d or a number of seconds, or off',
        });
        return z.NEVER;
      }
      const seconds = Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2]!.toLowerCase() as 's']!;
      // A timer's delay is at most 2^31 - 1 ms; beyond, Node fires it at once.
      if (seconds > 2_147_483) ctx.addIssue({ code: 'custom', message: 'at most 24 days' });
      return seconds;
    }),
  /** How many scheduled backups are kept (the newest); older ones are removed after each new one. */
  CRM_BACKUP_KEEP: z.coerce.number().int().min(1).default(7),
  /** Where scheduled backups go; default `<CRM_DATA_DIR>/backups`. */
  CRM_BACKUP_DIR: z.string().optional(),
  RATE_LIMIT_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
});

type EnvValues = z.infer<typeof envObject>;

/**
 * The rules that join several variables. They run on every variable that parsed, also when others did not, so that
 * `crm config check` lists every error at once (a schema-level refinement would be skipped after any field error).
 */
function crossFieldIssues(c: Partial<EnvValues>): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  if (c.DATABASE_DIRECT_URL && !c.DATABASE_URL)
    issues.push({ path: 'DATABASE_DIRECT_URL', message: 'needs DATABASE_URL' });
  if (c.DATABASE_REPLICA_URL && !c.DATABASE_URL)
    issues.push({ path: 'DATABASE_REPLICA_URL', message: 'needs DATABASE_URL' });
  if (c.CRM_METRICS_PORT !== undefined && c.PORT !== undefined && c.CRM_METRICS_PORT === c.PORT)
    issues.push({ path: 'CRM_METRICS_PORT', message: 'must differ from PORT' });
  // Browsers refuse a wildcard with credentials; reflecting every origin instead would hand any site the session.
  if (c.CORS_CREDENTIALS && c.CORS_ORIGINS?.includes('*'))
    issues.push({
      path: 'CORS_ORIGINS',
      message: '`*` is not allowed with CORS_CREDENTIALS=true: list the origins',
    });
  return issues;
}

/** Each variable parsed on its own: the values of those that are valid. */
function validFields(raw: Record<string, unknown>): Partial<EnvValues> {
  const values: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(envObject.shape)) {
    const r = (schema as z.ZodType).safeParse(raw[key]);
    if (r.success) values[key] = r.data;
  }
  return values as Partial<EnvValues>;
}

export type Config = EnvValues;
export type Plan = (typeof plans)[number];
export const PLANS = plans;

/** The base URL people reach the service at (links in e-mail): PUBLIC_URL, else the listening address. */
export function publicBaseUrl(
  config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>,
  port: number = config.PORT,
): string {
  const url = config.PUBLIC_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`;
  return url.replace(/\/+$/, '');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  // A variable set to the empty string counts as unset (`DATABASE_URL= crm serve` uses the embedded database).
  const raw = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = envObject.safeParse(raw);
  const issues = [
    ...(parsed.success
      ? []
      : parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))),
    ...crossFieldIssues(parsed.success ? parsed.data : validFields(raw)),
  ];
  if (!parsed.success || issues.length) {
    const lines = issues.map((i) => `  ${i.path}: ${i.message}`).join('\n');
    const n = issues.length;
    throw new Error(`Invalid configuration (${n} error${n === 1 ? '' : 's'}):\n${lines}`);
  }
  return { ...parsed.data, ...overrides };
}

/** Where the database is: PostgreSQL when DATABASE_URL is set, else the embedded one in the data dir. */
export function databaseOptions(config: Config) {
  return {
    databaseUrl: config.DATABASE_URL,
    dataDir: `${config.CRM_DATA_DIR}/db`,
    poolSize: config.DATABASE_POOL_SIZE,
    namespace: config.CRM_JOBS_NAMESPACE,
    directUrl: config.DATABASE_DIRECT_URL,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    replicaUrl: config.DATABASE_REPLICA_URL,
    replicaMaxLagMs: config.CRM_REPLICA_MAX_LAG_MS,
  };
}
