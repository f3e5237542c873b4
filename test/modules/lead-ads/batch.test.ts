import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lazyLeadAdsKit } from '../../../src/modules/lead-ads/kit.js';
import { processLeadBatch } from '../../../src/modules/lead-ads/process.js';
import { queryRows } from '../../../src/platform/db/client.js';
import {
  type Connected,
  connectTenant,
  createRoute,
  type LeadAdsEnv,
  orgIdOf,
  startLeadAds,
  waitDeliveries,
} from './helpers.js';

// The lead queue's batches, run here by hand (no workers: the test decides which jobs go together, and when).
describe('lead ads batches', () => {
  let env: LeadAdsEnv;
  let kit: Awaited<ReturnType<ReturnType<typeof lazyLeadAdsKit>>>;

  beforeAll(async () => {
    env = await startLeadAds();
    kit = await lazyLeadAdsKit(env.config, env.db)();
  });
  afterAll(async () => {
    await env?.close();
  });

  /** Leads through the webhook; their jobs as the queue would hand them over (attempt `retryCount` of 1 retry). */
  async function queued(c: Connected, leads: Record<string, string>[]) {
    const route = await createRoute(c);
    const made = leads.map((fields) => env.peer.addLead(c.pageId, c.formId, fields));
    expect((await env.post(env.peer.leadgenWebhook(made))).body.queued).toBe(leads.length);
    const orgId = await orgIdOf(env.db, c.tenant.slug);
    const rows = await queryRows<{ id: number; leadgen_id: string }>(
      env.db.system,
      sql`select id, leadgen_id from lead_deliveries where organization_id = ${orgId}`,
    );
    const job = (i: number, retryCount = 0) => ({
      id: `job-${i}-${retryCount}`,
      retryCount,
      retryLimit: 1,
      data: { orgId, deliveryId: Number(rows.find((r) => r.leadgen_id === made[i].id)!.id) },
    });
    const deliveries = async () =>
      new Map(
        (await waitDeliveries(c.api, route.documentId, () => true)).map((d) => [
          made.findIndex((l) => l.id === d.leadgenId),
          d,
        ]),
      );
    return { orgId, route, job, deliveries };
  }

  async function counts(orgId: number) {
    const [row] = await queryRows<{ cards: number; contacts: number; leads: number; created: number }>(
      env.db.system,
      sql`select
        (select count(*)::int from cards where organization_id = ${orgId} and creation_source = 'lead_ads') as cards,
        (select count(*)::int from contacts where organization_id = ${orgId}) as contacts,
        (select count(*)::int from domain_events where organization_id = ${orgId} and type = 'lead.received') as leads,
        (select count(*)::int from domain_events where organization_id = ${orgId} and type = 'contact.created') as created`,
    );
    return row;
  }

  test('each lead of a batch succeeds or fails on its own; leads of one person share a contact', async () => {
    const c = await connectTenant(env);
    const { orgId, job, deliveries } = await queued(c, [
      { full_name: 'Ana', email: 'ana@batch.test', company: 'Acme' },
      // The board requires an e-mail: this lead's card cannot be made (fails at once, the others go on).
      { full_name: 'Sem Email', company: 'Acme' },
      // A NUL byte: PostgreSQL refuses the text, failing the batch's transaction; the leads are made one by one.
      { full_name: 'Bad\u0000Byte', email: 'bad@batch.test', company: 'Acme' },
      { full_name: 'Ana again', email: 'ANA@batch.test', company: 'Acme' },
    ]);
    const outcomes = await processLeadBatch(
      kit,
      [0, 1, 2, 3].map((i) => job(i)),
    );
    expect(outcomes.map((o) => o === undefined)).toEqual([true, true, false, true]);
    let d = await deliveries();
    expect([0, 1, 2, 3].map((i) => d.get(i)?.status)).toEqual([
      'succeeded',
      'failed',
      'retrying',
      'succeeded',
    ]);
    expect(d.get(1)).toMatchObject({ attempts: 1, card: null, lastError: expect.stringMatching(/email/) });
    expect(d.get(2)).toMatchObject({ attempts: 1, card: null, lastError: expect.stringMatching(/0x00/) });
    expect(d.get(0)!.contact).toBe(d.get(3)!.contact);
    expect(d.get(0)!.card).not.toBe(d.get(3)!.card);
    expect(await counts(orgId)).toEqual({ cards: 2, contacts: 1, leads: 2, created: 1 });

    // The last attempt of the broken lead, beside a job of a lead already made: failed for good, nothing made twice.
    expect(await processLeadBatch(kit, [job(2, 1), job(0, 1)])).toEqual([undefined, undefined]);
    d = await deliveries();
    expect(d.get(2)).toMatchObject({ status: 'failed', attempts: 2 });
    expect(d.get(0)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await counts(orgId)).toEqual({ cards: 2, contacts: 1, leads: 2, created: 1 });
  });

  test('jobs of one lead run twice, in one batch and in batches at once: one card', async () => {
    const c = await connectTenant(env);
    const { orgId, job, deliveries } = await queued(c, [
      { full_name: 'Bia', email: 'bia@batch.test', company: 'Acme' },
      { full_name: 'Caio', email: 'caio@batch.test', company: 'Acme' },
    ]);
    const twice = [job(0), { ...job(0), id: 'again' }, job(1)];
    const outcomes = await Promise.all([
      processLeadBatch(kit, twice),
      processLeadBatch(kit, twice.reverse()),
    ]);
    expect(outcomes.flat()).toEqual(Array(6).fill(undefined));
    const d = await deliveries();
    expect([0, 1].map((i) => d.get(i))).toMatchObject([
      { status: 'succeeded', attempts: 1 },
      { status: 'succeeded', attempts: 1 },
    ]);
    expect(await counts(orgId)).toEqual({ cards: 2, contacts: 2, leads: 2, created: 2 });
  });
});
