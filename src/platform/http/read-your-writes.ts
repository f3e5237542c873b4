import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import type { Database } from '../db/client.js';
import { lsnValue, WRITE_MARK_MS, type WriteMarks, writerKey } from '../db/replica.js';
import { openRedis } from '../redis.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Read your writes with a read replica (db/replica.ts, docs/decisions.md): after a request of a signed-in user that
 * may have written (any method but GET, HEAD, OPTIONS; not refused, not a dry run), and before its answer leaves,
 * the user's write mark is set — the primary's WAL position, in this process and, with REDIS_URL, in Redis for
 * the other processes behind the same load balancer. The user's lagging reads then go to the primary until the
 * replica has replayed past it. Nothing without DATABASE_REPLICA_URL.
 */
export function installReadYourWrites(app: FastifyInstance, config: Config, db: Database) {
  const reads = db.replicaReads;
  if (!reads) return;
  if (config.REDIS_URL) {
    const redis = openRedis(config.REDIS_URL);
    redis.on('error', () => {}); // a lost Redis: the marks' calls fail, and the reads go to the primary
    reads.shared = redisWriteMarks(redis);
    app.addHook('onClose', async () => {
      if (reads.shared) reads.shared = undefined;
      await redis.quit().catch(() => {});
    });
  }
  app.addHook('onSend', async (req, reply) => {
    if (SAFE_METHODS.has(req.method) || !req.principal || reply.statusCode >= 400 || req.tenant?.dryRun)
      return;
    await reads.recordWrite(writerKey(req.principal.userId));
  });
}

/** Write marks in Redis (`crm:rw:<writer>` → the WAL position in hex), each kept WRITE_MARK_MS. */
function redisWriteMarks(redis: Redis): WriteMarks {
  const key = (writer: string) => `crm:rw:${writer}`;
  return {
    async get(writer) {
      const v = await redis.get(key(writer));
      return v ? lsnValue(v) : undefined;
    },
    async set(writer, lsn) {
      // Never lowered: a slower process's older mark does not overwrite a newer one (compared as numbers in Lua).
      await redis.eval(
        `local cur = redis.call('GET', KEYS[1])
         if cur then
           local function num(s) local h, l = s:match('^(%x+)/(%x+)$'); return tonumber(h, 16) * 4294967296 + tonumber(l, 16) end
           if num(cur) > num(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]); return 0 end
         end
         redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]); return 1`,
        1,
        key(writer),
        lsnText(lsn),
        String(WRITE_MARK_MS),
      );
    },
  };
}

const lsnText = (lsn: bigint) =>
  `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffff_ffffn).toString(16).toUpperCase()}`;
