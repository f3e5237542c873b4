import { Readable } from 'node:stream';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sha256 } from '../auth/tokens.js';
import { type Database, type Executor, queryRows } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { idempotencyKeys } from './table.js';

export const TTL_MS = 24 * 60 * 60 * 1000;
const MAX_KEYED_STREAM_BYTES = 64 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { userId: number; key: string } | null;
    rawBodyHash: string | null;
  }
}

/**
 * `Idempotency-Key` on POST: the first response is stored per user and replayed for 24 h; the same key
 * with another request is a 422; a key whose first request is still running is a 409.
 */
export const idempotencyPlugin = fp(
  async (app: FastifyInstance, opts: { db: Database }) => {
    const { db } = opts;
    app.decorateRequest('idempotency', null);
    app.decorateRequest('rawBodyHash', null);

    // Streamed text bodies (a CSV import) are parsed lazily by their route, so the fingerprint is taken here,
    // over the raw bytes, and the route gets the same bytes back. Only for keyed requests: others stream.
    app.addHook('preParsing', async (req, _reply, payload) => {
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || typeof req.headers['idempotency-key'] !== 'string') return payload;
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
      // A multipart body is read by its route straight from the socket: not in hand to fingerprint, not keyed.
      const type = req.headers['content-type'] ?? '';
      if (type.includes('multipart/')) return;
      if (key.length < 1 || key.length > 255)
        throw new AppError('BadRequestError', 'Idempotency-Key must be 1 to 255 characters');
      const userId = req.principal.userId;
      const body = req.rawBodyHash ?? req.body ?? null;
      const requestHash = sha256(
        JSON.stringify([req.method, req.url, req.headers['x-tenant-id'] ?? null, body]),
      );
      await db.system
        .delete(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.userId, userId),
            eq(idempotencyKeys.key, key),
            lt(idempotencyKeys.createdAt, new Date(Date.now() - TTL_MS)),
          ),
        );
      const inserted = await db.system
        .insert(idempotencyKeys)
        .values({ userId, key, requestHash })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (inserted.length) {
        req.idempotency = { userId, key };
        return;
      }
      const [prior] = await db.system
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)));
      if (!prior) return;
      if (prior.requestHash !== requestHash) {
        throw new AppError(
          'UnprocessableEntityError',
          'This Idempotency-Key was already used with a different request',
          {
            idempotencyKey: key,
          },
        );
      }
      if (prior.statusCode === null) {
        throw new AppError('ConflictError', 'A request with this Idempotency-Key is still in progress', {
          idempotencyKey: key,
        });
      }
      reply.header('idempotent-replayed', 'true');
      return reply
        .code(prior.statusCode)
        .type('application/json')
        .serializer(JSON.stringify)
        .send(prior.responseBody);
    });

    app.addHook('onSend', async (req, reply, payload) => {
      const pending = req.idempotency;
      if (!pending) return payload;
      req.idempotency = null;
      const where = and(eq(idempotencyKeys.userId, pending.userId), eq(idempotencyKeys.key, pending.key));
      const isJson = String(reply.getHeader('content-type') ?? '').includes('json');
      if (reply.statusCode >= 500 || !isJson || typeof payload !== 'string') {
        await db.system.delete(idempotencyKeys).where(where); // not replayable: let a retry run again
        return payload;
      }
      await db.system
        .update(idempotencyKeys)
        .set({ statusCode: reply.statusCode, responseBody: sql`${payload}::jsonb` })
        .where(where);
      return payload;
    });
  },
  { name: 'idempotency', dependencies: ['auth'] },
);

/** Expired keys (the maintenance): a key is only ever looked up by itself, so nothing else would delete them. */
export async function pruneIdempotencyKeys(ex: Executor): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    ex,
    sql`with gone as (delete from idempotency_keys where created_at < ${new Date(Date.now() - TTL_MS).toISOString()}::timestamptz returning 1)
        select count(*)::int as n from gone`,
  );
  return row.n;
}
