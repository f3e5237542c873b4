import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { and, eq, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { sha256 } from '../auth/tokens.js';
import { type Database, type Executor, queryRows } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { secretBox } from '../secrets/encryption.js';
import { openRecord, type PendingIdempotencyKey, sealRecord } from './commit.js';
import { idempotencyKeys } from './table.js';

export const TTL_MS = 24 * 60 * 60 * 1000;
const MAX_KEYED_STREAM_BYTES = 64 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route is never keyed (its response is never stored for replay). No route sets it today. */
    idempotency?: boolean;
  }
  interface FastifyRequest {
    idempotency: PendingIdempotencyKey | null;
    rawBodyHash: string | null;
  }
}

/**
 * `Idempotency-Key` on POST: the first response is stored per user and replayed for 24 h; the same key
 * with another request is a 422.
 *
 * A key whose first request is still running is a 409 with Retry-After. "Still running" is a lease
 * (`locked_until`) the owning process renews while the request runs, so a process killed mid-request does
 * not lock the key for 24 h: once its lease expires, a retry either replays what the dead request committed
 * (its tenant transaction marked the key committed with its result, atomically with the write:
 * commit.ts) or, when nothing committed, takes the key over and runs the request (once: the taken-over
 * attempt, if it was only slow, can no longer commit).
 *
 * Stored answers are sealed with the service's secret box (commit.ts: `sealRecord`): a response that shows a
 * secret once (an API token, a webhook subscription's secret…) replays the same secret, and is never in clear
 * in the database.
 */
export const idempotencyPlugin = fp(
  async (
    app: FastifyInstance,
    opts: { db: Database; leaseSeconds: number; config: Pick<Config, 'CRM_ENCRYPTION_KEY'> },
  ) => {
    const { db } = opts;
    const lease = sql`make_interval(secs => ${opts.leaseSeconds})`;
    app.decorateRequest('idempotency', null);
    app.decorateRequest('rawBodyHash', null);

    // Leases held by this process's running requests, renewed every third of the lease (expired keys are
    // pruned by the database maintenance: src/platform/db/maintenance.ts). unref'd: it never keeps a process alive.
    const inFlight = new Set<string>();
    let ticking = false;
    const tick = async () => {
      if (ticking) return;
      ticking = true;
      try {
        if (inFlight.size) {
          await db.system
            .update(idempotencyKeys)
            .set({ lockedUntil: sql`now() + ${lease}` })
            .where(
              and(inArray(idempotencyKeys.leaseToken, [...inFlight]), isNull(idempotencyKeys.statusCode)),
            );
        }
      } catch (err) {
        app.log.warn({ err }, 'idempotency: lease renewal failed');
      } finally {
        ticking = false;
      }
    };
    const heartbeat = setInterval(() => void tick(), Math.max(100, (opts.leaseSeconds * 1000) / 3));
    heartbeat.unref();
    app.addHook('onClose', async () => clearInterval(heartbeat));

    const hold = (req: FastifyRequest, pending: PendingIdempotencyKey) => {
      inFlight.add(pending.token);
      req.idempotency = pending;
      // Tenant transactions of this request mark the key before they commit (tenancy/context.ts).
      if (req.tenant) req.tenant.idempotency = pending;
    };
    const release = (req: FastifyRequest, pending: PendingIdempotencyKey) => {
      inFlight.delete(pending.token);
      req.idempotency = null;
      if (req.tenant) req.tenant.idempotency = null;
    };

    // Streamed text bodies (a CSV import) are parsed lazily by their route, so the fingerprint is taken here,
    // over the raw bytes, and the route gets the same bytes back. Only for keyed requests: others stream.
    app.addHook('preParsing', async (req, _reply, payload) => {
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || typeof req.headers['idempotency-key'] !== 'string' || req.dryRun)
        return payload;
      if (!type || type.includes('json') || type.includes('multipart/')) return payload;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of payload) {
        size += chunk.length;
        if (size > MAX_KEYED_STREAM_BYTES) {
          throw new AppError(
            'PayloadTooLargeError',
            'A body sent with an Idempotency-Key is limited to 64 MiB',
          );
        }
        chunks.push(chunk as Buffer);
      }
      const bytes = Buffer.concat(chunks);
      req.rawBodyHash = sha256(bytes.toString('binary'));
      const replay = Readable.from([bytes]) as Readable & { receivedEncodedLength?: number };
      replay.receivedEncodedLength = bytes.length;
      return replay;
    });

    app.addHook('preHandler', async (req, reply) => {
      const key = req.headers['idempotency-key'];
      if (req.method !== 'POST' || typeof key !== 'string' || !req.principal) return;
      // A dry run writes nothing, so it neither uses the key nor replays what the key stored (docs/dry-run.md).
      if (req.dryRun) return;
      if (req.routeOptions.config?.idempotency === false) return;
      // A multipart body is read by its route straight from the socket: not in hand to fingerprint, not keyed.
      const type = req.headers['content-type'] ?? '';
      if (type.includes('multipart/')) return;
      if (key.length < 1 || key.length > 255)
        throw new AppError('BadRequestError', 'Idempotency-Key must be 1 to 255 characters');
      const userId = req.principal.userId;
      const requestHash = keyedRequestHash(req);
      const mine = and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key));
      // Read or generated once per process (outside any transaction: on PGlite it uses the one connection).
      const box = await secretBox(opts.config, db);
      await db.system
        .delete(idempotencyKeys)
        .where(and(mine, lt(idempotencyKeys.createdAt, new Date(Date.now() - TTL_MS))));
      // Three rounds at most: each loses only to another request changing the row in between.
      for (let round = 0; round < 3; round++) {
        const token = randomUUID();
        const inserted = await db.system
          .insert(idempotencyKeys)
          .values({ userId, key, requestHash, leaseToken: token, lockedUntil: sql`now() + ${lease}` })
          .onConflictDoNothing()
          .returning({ key: idempotencyKeys.key });
        if (inserted.length) return hold(req, { userId, key, token, box });
        const prior = await readPriorAttempt(db, mine);
        if (!prior) continue; // expired and deleted meanwhile: the key is free again
        const replayed = answerFromPriorAttempt(req, reply, prior, { userId, key, box, requestHash });
        if (replayed) return replayed;
        // Its process died before anything committed: this request takes the key over and runs.
        const taken = await db.system
          .update(idempotencyKeys)
          .set({ leaseToken: token, lockedUntil: sql`now() + ${lease}` })
          .where(
            and(
              mine,
              isNull(idempotencyKeys.statusCode),
              eq(idempotencyKeys.committed, false),
              or(isNull(idempotencyKeys.lockedUntil), lt(idempotencyKeys.lockedUntil, sql`now()`)),
            ),
          )
          .returning({ key: idempotencyKeys.key });
        if (taken.length) return hold(req, { userId, key, token, box });
      }
      throw new AppError('ConflictError', 'A request with this Idempotency-Key is still in progress', {
        idempotencyKey: key,
        retryAfter: 1,
      });
    });

    app.addHook('onSend', async (req, reply, payload) => {
      const pending = req.idempotency;
      if (!pending) return payload;
      release(req, pending);
      // Only while this attempt still holds the key (a retry may have taken it over).
      const ours = and(
        eq(idempotencyKeys.userId, pending.userId),
        eq(idempotencyKeys.key, pending.key),
        eq(idempotencyKeys.leaseToken, pending.token),
      );
      const isJson = String(reply.getHeader('content-type') ?? '').includes('json');
      if (reply.statusCode >= 500 || !isJson || typeof payload !== 'string') {
        // Not replayable: let a retry run again. Unless the write committed: the retry then replays what it
        // produced (the lease is released so it need not wait for it).
        const deleted = await db.system
          .delete(idempotencyKeys)
          .where(and(ours, eq(idempotencyKeys.committed, false)))
          .returning({ key: idempotencyKeys.key });
        if (!deleted.length) await db.system.update(idempotencyKeys).set({ lockedUntil: null }).where(ours);
        return payload;
      }
      // The exact response wins over the provisional one; sealed, as it may show a secret once.
      const sealed = sealRecord(pending.box, pending.userId, pending.key, payload);
      await db.system
        .update(idempotencyKeys)
        .set({ statusCode: reply.statusCode, responseBody: sealed, lockedUntil: null })
        .where(ours);
      return payload;
    });

    // A request that ended without onSend (aborted) stops renewing its lease.
    app.addHook('onResponse', async (req) => {
      if (req.idempotency) release(req, req.idempotency);
    });
  },
  { name: 'idempotency', dependencies: ['auth'] },
);

/** What a keyed request is fingerprinted by: the same key sent with another fingerprint is a 422. */
function keyedRequestHash(req: FastifyRequest): string {
  const body = req.rawBodyHash ?? req.body ?? null;
  return sha256(JSON.stringify([req.method, req.url, req.headers['x-tenant-id'] ?? null, body]));
}

/** The key's row as an earlier attempt left it (none: expired and deleted meanwhile). */
async function readPriorAttempt(db: Database, mine: SQL | undefined) {
  const [prior] = await db.system
    .select({
      requestHash: idempotencyKeys.requestHash,
      statusCode: idempotencyKeys.statusCode,
      responseBody: idempotencyKeys.responseBody,
      committed: idempotencyKeys.committed,
      provisionalBody: idempotencyKeys.provisionalBody,
      leaseLeft: sql<number | null>`extract(epoch from ${idempotencyKeys.lockedUntil} - now())::float8`,
    })
    .from(idempotencyKeys)
    .where(mine);
  return prior;
}

/**
 * This request against the key's earlier attempt: a 422 when that attempt was another request, its answer
 * replayed when it has one, a 409 while its lease runs. Undefined when its process died before anything
 * committed: the key can be taken over.
 */
function answerFromPriorAttempt(
  req: FastifyRequest,
  reply: FastifyReply,
  prior: NonNullable<Awaited<ReturnType<typeof readPriorAttempt>>>,
  { userId, key, box, requestHash }: Omit<PendingIdempotencyKey, 'token'> & { requestHash: string },
): FastifyReply | undefined {
  if (prior.requestHash !== requestHash) {
    throw new AppError(
      'UnprocessableEntityError',
      'This Idempotency-Key was already used with a different request',
      { idempotencyKey: key },
    );
  }
  if (prior.statusCode !== null) {
    // The exact bytes first answered, unsealed (before the reply is set up: opening may refuse).
    const answer = openRecord(box, userId, key, prior.responseBody);
    reply.header('idempotent-replayed', 'true');
    return reply
      .code(prior.statusCode)
      .type('application/json')
      .serializer((s: unknown) => s as string)
      .send(answer);
  }
  if (prior.leaseLeft !== null && prior.leaseLeft > 0) {
    throw new AppError('ConflictError', 'A request with this Idempotency-Key is still in progress', {
      idempotencyKey: key,
      retryAfter: Math.max(1, Math.ceil(prior.leaseLeft)),
    });
  }
  if (prior.committed) {
    // Its process died after the write committed, before it answered: answer what the write produced,
    // as the route would have (its success status, through its own serializer).
    const answer = JSON.parse(openRecord(box, userId, key, prior.provisionalBody));
    reply.header('idempotent-replayed', 'true');
    return reply.code(successStatus(req)).send(answer);
  }
  return undefined;
}

/** The route's single declared 2xx status (what its handler answers on success); 200 if it declares none. */
function successStatus(req: FastifyRequest): number {
  const response = (req.routeOptions.schema?.response ?? {}) as Record<string, unknown>;
  const codes = Object.keys(response).filter((c) => /^2\d\d$/.test(c));
  return codes.length === 1 ? Number(codes[0]) : 200;
}

/** Expired keys (the maintenance): a key is only ever looked up by itself, so nothing else would delete them. */
export async function pruneIdempotencyKeys(ex: Executor): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    ex,
    sql`with gone as (delete from idempotency_keys where created_at < ${new Date(Date.now() - TTL_MS).toISOString()}::timestamptz returning 1)
        select count(*)::int as n from gone`,
  );
  return row.n;
}
