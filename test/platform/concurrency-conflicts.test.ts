import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Database, queryRows, type Tx } from '../../src/platform/db/client.js';
import { installErrorHandling } from '../../src/platform/http/errors.js';
import {
  makeTenantContext,
  retryOnConflict,
  type TenantContext,
} from '../../src/platform/tenancy/context.js';
import { getApp, newTenant, type Tenant } from '../helpers/app.js';

// Issue 30 item 6: a deadlock or serialization failure runs a retryable tenant transaction again, and what is
// left of it answers 409 with Retry-After, never 500.

const deadlock = () => Object.assign(new Error('Failed query'), { cause: { code: '40P01' } });

beforeAll(async () => {
  await getApp();
});

describe('retryOnConflict', () => {
  test('runs again on 40P01 and 40001, a bounded number of times, and never on other errors', async () => {
    let calls = 0;
    expect(
      await retryOnConflict(async () => {
        calls++;
        if (calls === 1) throw deadlock();
        if (calls === 2) throw Object.assign(new Error('serialization'), { code: '40001' });
        return 'done';
      }),
    ).toBe('done');
    expect(calls).toBe(3);

    calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls++;
        throw deadlock();
      }),
    ).rejects.toMatchObject({ cause: { code: '40P01' } });
    expect(calls).toBe(4); // the first attempt and CONFLICT_RETRIES more

    calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls++;
        throw Object.assign(new Error('unique'), { code: '23505' });
      }),
    ).rejects.toThrow('unique');
    expect(calls).toBe(1);
  });
});

describe('a conflict left over answers 409 with Retry-After', () => {
  test('deadlock and serialization failure, in the envelope', async () => {
    const app = Fastify();
    installErrorHandling(app);
    app.get('/deadlock', async () => {
      throw deadlock();
    });
    app.get('/serialization', async () => {
      throw Object.assign(new Error('could not serialize access'), { code: '40001' });
    });
    for (const [url, reason] of [
      ['/deadlock', 'deadlock'],
      ['/serialization', 'serialization_failure'],
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(409);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual({
        data: null,
        error: {
          status: 409,
          name: 'ConflictError',
          message: expect.stringContaining('retry'),
          details: { retryAfter: 1, reason },
        },
      });
    }
    await app.close();
  });
});

async function ownerContext(db: Database, t: Tenant): Promise<TenantContext> {
  const [m] = await queryRows<{ id: number; document_id: string; organization_id: number }>(
    db.system,
    sql`select m.id, m.document_id, m.organization_id from memberships m
        join organizations o on o.id = m.organization_id
        where o.slug = ${t.slug} and m.user_id = ${t.user.id}`,
  );
  return makeTenantContext(db, {
    orgId: Number(m.organization_id),
    orgSlug: t.slug,
    plan: 'business',
    userId: t.user.id,
    membershipId: Number(m.id),
    membershipDocumentId: m.document_id,
    role: 'owner',
    scopes: null,
  });
}

describe('a real deadlock between two tenant transactions (PostgreSQL: PGlite has one connection)', () => {
  test.skipIf(!process.env.DATABASE_URL)(
    'the loser of a retryable transaction runs again and both commit; without retry it is a 40P01',
    async () => {
      const { db } = await getApp();
      const t = await newTenant();
      const ids: string[] = [];
      for (const name of ['A', 'B'])
        ids.push((await t.api.post('/contacts', { data: { name } })).body.documentId);
      const ctx = await ownerContext(db, t);

      /** Locks `first`, waits until the other transaction holds its first row too, then locks `second`. */
      const crossing = (retry: boolean) => {
        let held = 0;
        let bothHeld: () => void;
        const barrier = new Promise<void>((resolve) => {
          bothHeld = resolve;
        });
        const attempts = [0, 0];
        const run = (k: number, first: string, second: string) =>
          ctx.transaction(
            async (tx: Tx) => {
              attempts[k]++;
              const lock = (id: string) =>
                tx.execute(sql`select id from contacts where document_id = ${id} for update`);
              await lock(first);
              if (++held === 2) bothHeld();
              await barrier;
              await lock(second);
              await tx.execute(sql`update contacts set city = ${`by ${k}`} where document_id = ${second}`);
              return k;
            },
            { retry },
          );
        return { attempts, runs: Promise.allSettled([run(0, ids[0], ids[1]), run(1, ids[1], ids[0])]) };
      };

      const retried = crossing(true);
      const settled = await retried.runs;
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled']);
      // One of them lost the deadlock once and ran again.
      expect(retried.attempts.reduce((a, b) => a + b)).toBe(3);

      const plain = crossing(false);
      const outcomes = await plain.runs;
      const failed = outcomes.filter((s) => s.status === 'rejected') as PromiseRejectedResult[];
      expect(failed).toHaveLength(1);
      expect(failed[0].reason).toMatchObject({ cause: { code: '40P01' } });
      expect(plain.attempts).toEqual([1, 1]);
    },
  );
});
