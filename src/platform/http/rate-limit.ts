import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { openRedis } from '../redis.js';
import { AppError } from './errors.js';

export type Bucket = 'login' | 'token' | 'public' | 'dispatch';

/**
 * Key: the resolved identity (the user behind the session or token, set by the auth hook, which runs before the
 * route-level limit hook), else the client IP. Never the raw header: its case and spacing are the caller's to vary.
 */
function keyOf(req: FastifyRequest): string {
  return req.principal ? `u:${req.principal.userId}` : `ip:${req.ip}`;
}

export async function registerRateLimit(app: FastifyInstance, config: Config) {
  const redis = config.REDIS_URL ? openRedis(config.REDIS_URL) : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit()));
  await app.register(rateLimit, {
    global: config.RATE_LIMIT_ENABLED,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    keyGenerator: keyOf,
    redis,
    nameSpace: 'crm-rl:',
    enableDraftSpec: true,
    skipOnError: true,
    errorResponseBuilder: (_req, ctx) => tooMany(ctx.max, ctx.ttl),
  });
  return config.RATE_LIMIT_ENABLED ? registerFailedAuthLimit(app, config, redis) : undefined;
}

function tooMany(limit: number, ttlMs: number) {
  return new AppError(
    'TooManyRequestsError',
    `Too many requests: try again in ${Math.ceil(ttlMs / 1000)} s`,
    {
      limit,
      retryAfter: Math.max(1, Math.ceil(ttlMs / 1000)),
    },
  );
}

/** Route config for the stricter buckets (login, token generation, public form, campaign dispatch). */
export function strictBucket(config: Config, bucket: Bucket) {
  if (!config.RATE_LIMIT_ENABLED) return {};
  const max = {
    login: config.RATE_LIMIT_LOGIN_MAX,
    token: config.RATE_LIMIT_TOKEN_MAX,
    public: config.RATE_LIMIT_PUBLIC_MAX,
    dispatch: config.RATE_LIMIT_DISPATCH_MAX,
  }[bucket];
  return {
    rateLimit: {
      max,
      timeWindow: config.RATE_LIMIT_WINDOW_MS,
      // Login and the public form are anonymous: keyed by IP (and bucket), never by the header.
      keyGenerator: (req: FastifyRequest) =>
        `${bucket}:${bucket === 'login' || bucket === 'public' ? `ip:${req.ip}` : keyOf(req)}`,
    },
  };
}

/** A fixed-window counter per key: in process, or in Redis when several processes share the limits. */
interface WindowCounter {
  get(key: string): Promise<{ count: number; ttlMs: number }>;
  /** Counts one more and answers the count (this one included) and the time left in the window. */
  hit(key: string): Promise<{ count: number; ttlMs: number }>;
}

function memoryCounter(windowMs: number): WindowCounter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const live = (key: string) => {
    const w = windows.get(key);
    if (w && w.resetAt > Date.now()) return w;
    windows.delete(key);
    return undefined;
  };
  return {
    async get(key) {
      const w = live(key);
      return w ? { count: w.count, ttlMs: w.resetAt - Date.now() } : { count: 0, ttlMs: 0 };
    },
    async hit(key) {
      let w = live(key);
      if (w) w.count++;
      else {
        // Bounded: an attacker rotating addresses cannot grow the map without limit.
        if (windows.size >= 100_000) for (const k of windows.keys()) if (!live(k)) windows.delete(k);
        if (windows.size >= 100_000) windows.delete(windows.keys().next().value as string);
        w = { count: 1, resetAt: Date.now() + windowMs };
        windows.set(key, w);
      }
      return { count: w.count, ttlMs: w.resetAt - Date.now() };
    },
  };
}

function redisCounter(redis: Redis, windowMs: number): WindowCounter {
  return {
    async get(key) {
      const [[, count], [, ttl]] = (await redis.multi().get(key).pttl(key).exec()) as [
        [unknown, string | null],
        [unknown, number],
      ];
      return { count: Number(count ?? 0), ttlMs: Math.max(0, ttl) };
    },
    async hit(key) {
      const [[, count], , [, ttl]] = (await redis
        .multi()
        .incr(key)
        .pexpire(key, windowMs, 'NX')
        .pttl(key)
        .exec()) as [[unknown, number], unknown, [unknown, number]];
      return { count: Number(count), ttlMs: Math.max(0, ttl) };
    },
  };
}

/** What failed to authenticate: a request without any credentials, or one whose bearer did not verify. */
export type AuthFailureKind = 'anonymous' | 'credential';

/** Handed to the auth hook (app.ts): it reports each failure here before answering 401. */
export interface AuthFailureGate {
  /**
   * Counts the failure in its address's bucket of its kind; past the limit, throws the 429 (Retry-After: the
   * rest of the window) that the failing request then gets instead of its 401.
   */
  failed(req: FastifyRequest, reply: FastifyReply, kind: AuthFailureKind): Promise<void>;
}

/**
 * Failed authentications are slowed per address without ever refusing good credentials:
 * - a bearer is always verified (an indexed read of its hash, or a session JWT's HMAC): a valid one passes,
 *   whatever its address did before; a failing one counts in the address's `credential` bucket and, past
 *   RATE_LIMIT_AUTH_FAILURES_MAX a window, gets 429 instead of 401;
 * - a request with no credentials at all counts in the address's `anonymous` bucket (and past the same limit
 *   gets 429 instead of 401): strangers knocking cannot touch the buckets of the office behind the same NAT;
 * - password sign-in (`/auth/local`) keeps its limits before the password is hashed (that hash is the costly
 *   part): wrong passwords per address (RATE_LIMIT_AUTH_FAILURES_MAX) and per account, from any address
 *   (RATE_LIMIT_ACCOUNT_FAILURES_MAX); beyond either, 429 for the rest of the window.
 */
function registerFailedAuthLimit(
  app: FastifyInstance,
  config: Config,
  redis: Redis | undefined,
): AuthFailureGate {
  const windowMs = config.RATE_LIMIT_WINDOW_MS;
  const max = config.RATE_LIMIT_AUTH_FAILURES_MAX;
  const accountMax = config.RATE_LIMIT_ACCOUNT_FAILURES_MAX;
  const memory = memoryCounter(windowMs);
  const counter = redis ? redisCounter(redis, windowMs) : memory;
  const key = (bucket: string, id: string) => `crm-rl:auth-fail:${bucket}:${id}`;
  // Redis down: fall back to this process's own count rather than to no limit at all.
  const safely = async <T>(fn: (c: WindowCounter) => Promise<T>) => {
    try {
      return await fn(counter);
    } catch {
      return fn(memory);
    }
  };
  const refuse = (reply: FastifyReply, limit: number, ttlMs: number, what: string) => {
    reply.header('ratelimit-policy', `${limit};w=${Math.ceil(windowMs / 1000)};comment="${what}"`);
    return tooMany(limit, ttlMs);
  };

  const signIn = (req: FastifyRequest) => req.routeOptions.url?.startsWith('/api/auth/local') === true;
  // The account a sign-in names, hashed: Redis keys never hold an e-mail address.
  const accountOf = (req: FastifyRequest) => {
    const identifier = (req.body as { identifier?: unknown } | undefined)?.identifier;
    return typeof identifier === 'string' && req.routeOptions.url === '/api/auth/local'
      ? createHash('sha256').update(identifier.trim().toLowerCase()).digest('base64url')
      : undefined;
  };

  // After the body is read (the account is in it), before the route hashes a password.
  app.addHook('preValidation', async (req, reply) => {
    if (!signIn(req)) return;
    const byAddress = await safely((c) => c.get(key('sign-in', req.ip)));
    if (byAddress.count >= max)
      throw refuse(reply, max, byAddress.ttlMs, 'failed sign-ins from this address');
    const account = accountOf(req);
    if (!account) return;
    const byAccount = await safely((c) => c.get(key('account', account)));
    if (byAccount.count >= accountMax)
      throw refuse(reply, accountMax, byAccount.ttlMs, 'failed sign-ins of this account');
  });
  // A wrong password is a 400 (Strapi's answer to a failed login).
  app.addHook('onResponse', async (req, reply) => {
    if (reply.statusCode !== 400 || req.routeOptions.url !== '/api/auth/local') return;
    await safely((c) => c.hit(key('sign-in', req.ip)));
    const account = accountOf(req);
    if (account) await safely((c) => c.hit(key('account', account)));
  });

  return {
    async failed(req, reply, kind) {
      const bucket = kind === 'anonymous' ? 'anonymous' : 'credential';
      const { count, ttlMs } = await safely((c) => c.hit(key(bucket, req.ip)));
      if (count > max)
        throw refuse(
          reply,
          max,
          ttlMs,
          kind === 'anonymous' ? 'requests without credentials' : 'failed authentications',
        );
    },
  };
}
