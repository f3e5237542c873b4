import { Redis } from 'ioredis';

/**
 * The one way the service connects to Redis (REDIS_URL): rate limits and read-your-writes marks. Redis is an aid,
 * never a dependency of an answer: while it is down or slow, commands fail at once (no offline queue, a short
 * command timeout) and each caller falls back as documented (docs/scaling.md), instead of every request waiting for
 * a reconnect (measured at ~10 s a request by scripts/cluster/faults.ts before).
 */
export function openRedis(url: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: 500,
    connectTimeout: 2_000,
    lazyConnect: false,
  });
}
