import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../src/platform/db/client.js';
import { dispatchOrganization, type PendingEvent } from '../../src/platform/events/dispatch.js';
import { getApp, newTenant, type Tenant } from '../helpers/app.js';

/**
 * The outbox's waiting events are rows of domain_events_pending (docs/decisions.md, "The outbox's pending events, a
 * table of their own"): written with every event, by single writes and set-based ones alike, deleted by the dispatch
 * that hands the events to the consumers; the events' own rows are never updated.
 */

async function orgIdOf(t: Tenant) {
  const { db } = await getApp();
  const [o] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  return Number(o.id);
}

async function pendingOf(orgId: number) {
  const { db } = await getApp();
  return queryRows<{ id: number; type: string | null }>(
    db.system,
    sql`select p.id, e.type from domain_events_pending p
        left join domain_events e on e.organization_id = p.organization_id and e.id = p.id
        where p.organization_id = ${orgId} order by p.id`,
  );
}

/** One dispatch pass of the organization with a consumer of our own: the events it was handed. */
async function dispatchOnce(orgId: number) {
  const { db } = await getApp();
  const seen: PendingEvent[] = [];
  const n = await dispatchOrganization(db, orgId, [
    async (_tx, _org, events) => {
      seen.push(...events);
    },
  ]);
  return { n, seen };
}

beforeAll(async () => {
  await getApp();
});

describe('the outbox pending table', () => {
  test('every event waits in domain_events_pending until a dispatch hands it over, once, in id order', async () => {
    const t = await newTenant();
    const orgId = await orgIdOf(t);
    const a = await t.api.post('/contacts', { data: { name: 'Ana', email: 'ana@x.com' } });
    const b = await t.api.post('/contacts', { data: { name: 'Bia', email: 'bia@x.com' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    // A set-based writer (a bulk update, insertEventsCtes) queues its events too.
    const bulk = await t.api.post('/contacts/bulk-update', { all: true, data: { city: 'Natal' } });
    expect(bulk.status).toBeLessThan(300);
    const waiting = await pendingOf(orgId);
    expect(waiting.map((w) => w.type)).toEqual([
      'contact.created',
      'contact.created',
      'contact.updated',
      'contact.updated',
    ]);

    const first = await dispatchOnce(orgId);
    expect(first.n).toBe(4);
    expect(first.seen.map((e) => e.id)).toEqual(waiting.map((w) => Number(w.id)));
    expect(first.seen[0].data).toMatchObject({ contact: { name: 'Ana' } });
    expect(await pendingOf(orgId)).toEqual([]);
    // Nothing is handed over twice; the events themselves stay.
    expect((await dispatchOnce(orgId)).n).toBe(0);
    const { db } = await getApp();
    const [kept] = await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from domain_events where organization_id = ${orgId}`,
    );
    expect(kept.n).toBe(4);
  });

  test('a pending row whose event is gone is dropped, and the events around it are still dispatched', async () => {
    const t = await newTenant();
    const orgId = await orgIdOf(t);
    for (const name of ['One', 'Two', 'Three'])
      expect((await t.api.post('/contacts', { data: { name } })).status).toBe(201);
    const waiting = await pendingOf(orgId);
    expect(waiting).toHaveLength(3);
    const { db } = await getApp();
    await db.system.execute(
      sql`delete from domain_events where organization_id = ${orgId} and id = ${waiting[1].id}`,
    );
    const { n, seen } = await dispatchOnce(orgId);
    expect(n).toBe(3);
    expect(seen.map((e) => (e.data.contact as { name: string }).name)).toEqual(['One', 'Three']);
    expect(await pendingOf(orgId)).toEqual([]);
  });

  test("another organization's dispatch neither sees nor removes these events", async () => {
    const mine = await newTenant();
    const other = await newTenant();
    const myId = await orgIdOf(mine);
    expect((await mine.api.post('/contacts', { data: { name: 'Private' } })).status).toBe(201);
    const theirs = await dispatchOnce(await orgIdOf(other));
    expect(theirs.seen).toEqual([]);
    expect(await pendingOf(myId)).toHaveLength(1);
    // As the tenant role: the pending rows are under the same row-level security as every tenant table.
    const { db } = await getApp();
    const visible = await db.tenantTransaction(await orgIdOf(other), (tx) =>
      queryRows<{ n: number }>(
        tx,
        sql`select count(*)::int as n from domain_events_pending where organization_id = ${myId}`,
      ),
    );
    expect(visible[0].n).toBe(0);
  });
});
