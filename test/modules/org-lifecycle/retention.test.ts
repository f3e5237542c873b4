import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { enforceRetention, retentionBatch } from '../../../src/modules/org-lifecycle/retention.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant, type Tenant } from '../../helpers/app.js';

async function orgId(slug: string) {
  const { db } = await getApp();
  return (
    await queryRows<{ id: number }>(db.system, sql`select id from organizations where slug = ${slug}`)
  )[0]!.id;
}

/** A contact with `n` timeline entries backdated `days` days. */
async function oldTimeline(t: Tenant, n: number, days: number) {
  const { db } = await getApp();
  const c = await t.api.post('/contacts', { data: { name: 'Antigo' } });
  const id = await orgId(t.slug);
  await db.system.execute(
    sql`insert into contact_activities (organization_id, document_id, contact_id, activity_type, description, created_at)
        select ${id}, md5(random()::text || g)::text, (select id from contacts where organization_id = ${id} and document_id = ${c.body.documentId}),
               'note', 'old ' || g, now() - make_interval(days => ${days})
        from generate_series(1, ${n}) g`,
  );
  return { id, contact: c.body.documentId as string };
}

const count = async (orgIdValue: number, where: string) => {
  const { db } = await getApp();
  return (
    await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from contact_activities where organization_id = ${orgIdValue} and ${sql.raw(where)}`,
    )
  )[0]!.n;
};

describe('retention', () => {
  it('is set per organization (null keeps forever) and shown with the defaults', async () => {
    const t = await newTenant();
    const list = await t.userApi.get('/organizations');
    const doc = list.body.data.find((o: { slug: string }) => o.slug === t.slug).documentId;
    expect((await t.userApi.get(`/organizations/${doc}`)).body.retention).toEqual({
      messages: 1825,
      timelines: 1825,
      domainEvents: 90,
      webhookDeliveries: 30,
      automationRuns: 90,
      campaignRecipients: 730,
    });
    const put = await t.userApi.put(`/organizations/${doc}`, {
      data: { retention: { timelines: 10, messages: null } },
    });
    expect(put.status).toBe(200);
    expect(put.body.retention).toMatchObject({ timelines: 10, messages: null, domainEvents: 90 });
    const bad = await t.userApi.put(`/organizations/${doc}`, {
      data: { retention: { timelines: 0, nope: 1 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.name).toBe('ValidationError');
  });

  it('deletes what is older than the organization’s setting, in bounded batches, and nothing of others', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const docOf = async (t: Tenant) =>
      (await t.userApi.get('/organizations')).body.data.find((o: { slug: string }) => o.slug === t.slug)
        .documentId;
    await a.userApi.put(`/organizations/${await docOf(a)}`, { data: { retention: { timelines: 30 } } });
    await b.userApi.put(`/organizations/${await docOf(b)}`, { data: { retention: { timelines: null } } });
    const oa = await oldTimeline(a, 25, 40);
    const recent = await oldTimeline(a, 3, 5);
    const ob = await oldTimeline(b, 7, 4000);
    expect(recent.id).toBe(oa.id);
    // One batch deletes at most its size.
    const { db } = await getApp();
    expect(await retentionBatch(db.system, 'timelines', 10)).toBe(10);
    const report = await enforceRetention(db.system, 10);
    expect(report.timelines).toBeGreaterThanOrEqual(15);
    expect(await count(oa.id, `description like 'old %' and created_at < now() - interval '30 days'`)).toBe(
      0,
    );
    expect(await count(oa.id, `description like 'old %'`)).toBe(3);
    expect(await count(ob.id, `description like 'old %'`)).toBe(7);
    // The contact itself stays, its recent timeline readable.
    expect((await a.api.get(`/contacts/${recent.contact}`)).status).toBe(200);
  });

  it('keeps undispatched events and pending deliveries whatever their age', async () => {
    const t = await newTenant();
    const id = await orgId(t.slug);
    const { db } = await getApp();
    await db.system.execute(
      sql`with ev as (
            insert into domain_events (organization_id, event_id, type, subject, data, created_at) values
              (${id}, 'e-old-done', 'x.y', 's', '{}', now() - interval '400 days'),
              (${id}, 'e-old-pending', 'x.y', 's', '{}', now() - interval '400 days'),
              (${id}, 'e-new-done', 'x.y', 's', '{}', now())
            returning organization_id, id, event_id)
          insert into domain_events_pending (organization_id, id)
          select organization_id, id from ev where event_id = 'e-old-pending'`,
    );
    await enforceRetention(db.system);
    const left = await queryRows<{ eventId: string }>(
      db.system,
      sql`select event_id as "eventId" from domain_events where organization_id = ${id} and event_id like 'e-%' order by event_id`,
    );
    expect(left.map((r) => r.eventId)).toEqual(['e-new-done', 'e-old-pending']);
  });
});
