import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
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
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: false })
    : undefined;
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
  if (config.RATE_LIMIT_ENABLED) registerFailedAuthLimit(app, config, redis);
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
  increment(key: string): Promise<void>;
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
    async increment(key) {
      const w = live(key);
      if (w) w.count++;
      else {
        // Bounded: an attacker rotating addresses cannot grow the map without limit.
        if (windows.size >= 100_000) for (const k of windows.keys()) if (!live(k)) windows.delete(k);
        if (windows.size >= 100_000) windows.delete(windows.keys().next().value as string);
        windows.set(key, { count: 1, resetAt: Date.now() + windowMs });
      }
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
    async increment(key) {
      await redis.multi().incr(key).pexpire(key, windowMs, 'NX').exec();
    },
  };
}

/**
 * Failed authentications are counted per IP before anything else runs: every 401 (an unknown or expired token, a
 * wrong password) adds one, and an IP over the limit gets 429 on any request that carries credentials or logs in,
 * without a database lookup. Correct credentials from other addresses are unaffected.
 */
function registerFailedAuthLimit(app: FastifyInstance, config: Config, redis: Redis | undefined) {
  const windowMs = config.RATE_LIMIT_WINDOW_MS;
  const max = config.RATE_LIMIT_AUTH_FAILURES_MAX;
  const memory = memoryCounter(windowMs);
  const counter = redis ? redisCounter(redis, windowMs) : memory;
  const keyFor = (req: FastifyRequest) => `crm-rl:auth-fail:${req.ip}`;
  // Redis down: fall back to this process's own count rather than to no limit at all.
  const safely = async <T>(fn: (c: WindowCounter) => Promise<T>) => {
    try {
      return await fn(counter);
    } catch {
      return fn(memory);
    }
  };
  const authenticates = (req: FastifyRequest) =>
    req.headers.authorization !== undefined || req.routeOptions.url?.startsWith('/api/auth/local') === true;

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    if (!authenticates(req)) return;
    const { count, ttlMs } = await safely((c) => c.get(keyFor(req)));
    if (count < max) return;
    reply.header(
      'ratelimit-policy',
      `${max};w=${Math.ceil(windowMs / 1000)};comment="failed authentications"`,
    );
    throw tooMany(max, ttlMs);
  });
  // A wrong password is a 400 (Strapi's answer to a failed login), a bad bearer a 401.
  const failed = (req: FastifyRequest, status: number) =>
    status === 401 || (status === 400 && req.routeOptions.url === '/api/auth/local');
  app.addHook('onResponse', async (req, reply) => {
    if (failed(req, reply.statusCode)) await safely((c) => c.increment(keyFor(req)));
  });
}
