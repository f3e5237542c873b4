import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { sha256 } from '../auth/tokens.js';
import { AppError } from './errors.js';

export type Bucket = 'login' | 'token' | 'public' | 'dispatch';

/** Key: the bearer token (hashed) when there is one, else the client IP. */
function keyOf(req: FastifyRequest): string {
  const auth = req.headers.authorization;
  return auth ? `t:${sha256(auth).slice(0, 32)}` : `ip:${req.ip}`;
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
    errorResponseBuilder: (_req, ctx) =>
      new AppError('TooManyRequestsError', `Too many requests: try again in ${Math.ceil(ctx.ttl / 1000)} s`, {
        limit: ctx.max,
        retryAfter: Math.max(1, Math.ceil(ctx.ttl / 1000)),
      }),
  });
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
        `${bucket}:${bucket === 'login' || bucket === 'public' ? req.ip : keyOf(req)}`,
    },
  };
}
