import { and, eq, lt, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sha256 } from '../auth/tokens.js';
import type { Database } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { idempotencyKeys } from './table.js';

const TTL_MS = 24 * 60 * 60 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { userId: number; key: string } | null;
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

    app.addHook('preHandler', async (req, reply) => {
      const key = req.headers['idempotency-key'];
      if (req.method !== 'POST' || typeof key !== 'string' || !req.principal) return;
      // Streamed bodies (CSV, multipart) are not in hand to fingerprint, so the key could not tell two uploads
      // apart: such requests are not keyed (docs/decisions.md).
      const type = req.headers['content-type'];
      if (type && !type.includes('json')) return;
      if (key.length < 1 || key.length > 255)
        throw new AppError('BadRequestError', 'Idempotency-Key must be 1 to 255 characters');
      const userId = req.principal.userId;
      const requestHash = sha256(
        JSON.stringify([req.method, req.url, req.headers['x-tenant-id'] ?? null, req.body ?? null]),
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
