import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
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

// Embedded, the database runs on the test's own thread (about 3 leads a second on a loaded 2-core machine): 100 there,
// 200 on PostgreSQL; bench/lead-ads.ts measures 1,000.
const LEADS = process.env.DATABASE_URL ? 200 : 100;

describe('lead ads burst', () => {
  let env: LeadAdsEnv;
  let c: Connected;

  beforeAll(async () => {
    env = await startLeadAds({ workers: true });
    c = await connectTenant(env);
  });
  afterAll(async () => {
    await env?.close();
  });

  test(`${LEADS} leads in concurrent, repeated webhooks become ${LEADS} cards: none lost, none twice`, async () => {
    const route = await createRoute(c);
    // Every tenth lead is the same person (one e-mail): concurrent jobs must share one contact.
    const leads = Array.from({ length: LEADS }, (_, i) =>
      env.peer.addLead(c.pageId, c.formId, {
        full_name: `Lead ${i}`,
        email: i % 10 === 0 ? 'same.person@acme.test' : `lead${i}@acme.test`,
        company: `Company ${i}`,
      }),
    );
    const batches = Array.from({ length: LEADS / 20 }, (_, i) => leads.slice(i * 20, i * 20 + 20));
    const hooks = batches.map((b) => env.peer.leadgenWebhook(b));
    // Each webhook twice, all at once: the provider repeats deliveries.
    const answers = await Promise.all([...hooks, ...hooks].map((h) => env.post(h)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.reduce((n, a) => n + a.body.queued, 0)).toBe(LEADS);

    const rows = await waitDeliveries(
      c.api,
      route.documentId,
      (r) => r.length === LEADS && r.every((d) => d.status === 'succeeded' || d.status === 'failed'),
      280,
    );
    expect(rows.filter((d) => d.status !== 'succeeded')).toEqual([]);
    expect(new Set(rows.map((d) => d.leadgenId)).size).toBe(LEADS);
    expect(new Set(rows.map((d) => d.card)).size).toBe(LEADS);

    const orgId = await orgIdOf(env.db, c.tenant.slug);
    const [cards] = await queryRows<{ n: number; leads: number }>(
      env.db.system,
      sql`select count(*)::int as n, count(distinct tracking->>'leadgen_id')::int as leads
          from cards where organization_id = ${orgId} and creation_source = 'lead_ads'`,
    );
    expect(cards).toEqual({ n: LEADS, leads: LEADS });
    const [contacts] = await queryRows<{ n: number; same: number }>(
      env.db.system,
      sql`select count(*)::int as n, count(*) filter (where email = 'same.person@acme.test')::int as same
          from contacts where organization_id = ${orgId}`,
    );
    expect(contacts).toEqual({ n: LEADS - LEADS / 10 + 1, same: 1 });
    const [events] = await queryRows<{ n: number }>(
      env.db.system,
      sql`select count(*)::int as n from domain_events where organization_id = ${orgId} and type = 'lead.received'`,
    );
    expect(events.n).toBe(LEADS);
    // Embedded PostgreSQL runs on the test's own thread: throughput is measured in bench/, not here.
  }, 300_000);
});
