import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { addMember, newTenant, type Tenant } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';
import { createPerson, person, runRequest } from '../privacy/helpers.js';
import { conversionsEnv } from './helpers.js';

let env: Awaited<ReturnType<typeof conversionsEnv>>;
let t: Tenant;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

beforeAll(async () => {
  env = await conversionsEnv();
  t = await newTenant(env.app);
  const [row] = await queryRows<{ id: number }>(
    env.db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  env.orgIds.add(Number(row.id));
});
afterAll(() => env?.close());

async function pixelFor(boardId: string, trigger: unknown = 'won', accessToken = env.peer.accessToken) {
  const res = await t.api.post('/conversion-pixels', {
    data: { name: 'Ads', pixelId: '1234567890', accessToken, board: boardId, trigger },
  });
  expect(res.status).toBe(201);
  return res.body;
}

const eventsOf = async (id: string) =>
  (await t.api.get(`/conversion-pixels/${id}/events`)).body.data as any[];

describe('conversion pixels', () => {
  test('CRUD: the access token is write-only; an unknown phase is a 400 naming the valid ones', async () => {
    const { boardId } = await createPipeline(t.api);
    const p = await pixelFor(boardId);
    expect(p).toMatchObject({ name: 'Ads', pixelId: '1234567890', hasAccessToken: true, trigger: 'won' });
    expect(JSON.stringify(p)).not.toContain(env.peer.accessToken);
    const got = await t.api.get(`/conversion-pixels/${p.documentId}`);
    expect(JSON.stringify(got.body)).not.toContain(env.peer.accessToken);
    expect((await t.api.get('/conversion-pixels')).body.data.map((x: any) => x.documentId)).toContain(
      p.documentId,
    );
    const changed = await t.api.put(`/conversion-pixels/${p.documentId}`, {
      data: { trigger: { phase: 'qualified' } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.trigger.phase.slug).toBe('qualified');
    const bad = await t.api.put(`/conversion-pixels/${p.documentId}`, {
      data: { trigger: { phase: 'nope' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/phases of this board: lead, qualified, won, lost/);
    expect((await t.api.delete(`/conversion-pixels/${p.documentId}`)).status).toBe(200);
    expect((await t.api.get(`/conversion-pixels/${p.documentId}`)).status).toBe(404);
  });

  test('verify sends a test event in the Conversions API shape; a refused token is a 502 naming the provider', async () => {
    const { boardId } = await createPipeline(t.api);
    const p = await pixelFor(boardId);
    const before = env.peer.received.length;
    const ok = await t.api.post(`/conversion-pixels/${p.documentId}/verify`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, eventsReceived: 1 });
    const call = env.peer.received[before];
    expect(call).toMatchObject({ pixelId: '1234567890', version: env.config.CRM_CONVERSIONS_API_VERSION });
    expect(call.body.test_event_code).toBe(ok.body.testEventCode);
    expect(call.body.data[0]).toMatchObject({ event_name: 'TestEvent', action_source: 'system_generated' });
    const wrong = await pixelFor(boardId, 'won', 'not-the-token');
    const refused = await t.api.post(`/conversion-pixels/${wrong.documentId}/verify`);
    expect(refused.status).toBe(502);
    expect(refused.body.error.details).toMatchObject({ provider: 'conversions', providerCode: 190 });
    expect((await eventsOf(p.documentId)).map((e) => e.status)).toEqual(['test']);
    expect((await eventsOf(wrong.documentId)).map((e) => e.status)).toEqual(['failed']);
  });

  test('a won card is sent once (dedup card + trigger) with hashed, normalised e-mail and phone', async () => {
    const { boardId, phase } = await createPipeline(t.api);
    const p = await pixelFor(boardId);
    const contact = await t.api.post('/contacts', {
      data: { name: 'Pixel Person', email: 'Pixel.Person@Example.COM', phone: '+55 11 98765-4321' },
    });
    expect(contact.status).toBe(201);
    const card = await createCard(t.api, boardId, {
      value: 1500,
      contact: contact.body.documentId,
      fields: { name: 'P', email: 'other@example.com', budget: 1 },
    });
    const move = (slug: string) =>
      t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, { phase: phase(slug) });
    expect((await move('qualified')).status).toBe(200);
    expect((await move('won')).status).toBe(200);
    await env.cycle();
    expect((await move('qualified')).status).toBe(200);
    expect((await move('won')).status).toBe(200);
    await env.cycle();
    const logged = await eventsOf(p.documentId);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      status: 'sent',
      eventId: `${card.documentId}:won`,
      eventName: 'Purchase',
      card: card.documentId,
    });
    const sent = env.peer.received.filter((r) => r.body.data[0].event_id === `${card.documentId}:won`);
    expect(sent).toHaveLength(1);
    const e = sent[0].body.data[0];
    expect(e).toMatchObject({
      event_name: 'Purchase',
      action_source: 'system_generated',
      custom_data: { value: 1500, currency: 'BRL' },
    });
    expect(Number.isInteger(e.event_time)).toBe(true);
    expect(e.user_data.em).toEqual([sha('pixel.person@example.com'), sha('other@example.com')]);
    expect(e.user_data.ph).toEqual([sha('5511987654321')]);
    expect(JSON.stringify(sent[0].body)).not.toMatch(/example\.com|98765/i);
  });

  test('a phase trigger sends a Lead event; provider failures are retried', async () => {
    const { boardId, phase } = await createPipeline(t.api);
    const p = await pixelFor(boardId, { phase: 'qualified' });
    const card = await createCard(t.api, boardId);
    env.peer.failNext = 1;
    await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, { phase: phase('qualified') });
    await env.cycle();
    let [e] = await eventsOf(p.documentId);
    expect(e).toMatchObject({ status: 'pending', attempts: 1, eventName: 'Lead' });
    expect(e.lastError).toMatch(/temporarily unavailable/);
    await env.db.system.execute(sql`update conversion_events set next_attempt_at = now() where id = ${e.id}`);
    await env.cycle();
    [e] = await eventsOf(p.documentId);
    expect(e).toMatchObject({
      status: 'sent',
      attempts: 2,
      eventId: `${card.documentId}:phase:${phase('qualified')}`,
    });
    expect(e.payload.user_data.em).toEqual([sha('ana@example.com')]);
  });

  test("an erased person's hashed e-mail and phone leave the pixel's event log (LGPD erasure)", async () => {
    const { boardId, phase } = await createPipeline(t.api);
    const p = await pixelFor(boardId, { phase: 'qualified' });
    const who = person();
    const contact = await createPerson(t.api, who);
    const card = await createCard(t.api, boardId, {
      contact,
      fields: { name: 'Deal', email: 'deal-desk@example.com' },
    });
    await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, { phase: phase('qualified') });
    await env.cycle();
    const hashes = [sha(who.email), sha(who.phone.slice(1))];
    const [sent] = await eventsOf(p.documentId);
    expect(sent.status).toBe('sent');
    expect([...sent.payload.user_data.em, ...sent.payload.user_data.ph]).toEqual(
      expect.arrayContaining(hashes),
    );

    const erase = await t.api.post(`/contacts/${contact}/erase`, { confirm: contact });
    expect(erase.status).toBe(202);
    await runRequest(t, erase.body.documentId, { db: env.db, config: env.config });
    expect((await t.api.get(`/privacy-requests/${erase.body.documentId}`)).body.status).toBe('done');
    const [after] = await eventsOf(p.documentId);
    expect(after.payload.user_data.em).toEqual(['[erased]', sha('deal-desk@example.com')]);
    const stored = await queryRows<{ payload: unknown }>(
      env.db.system,
      sql`select payload from conversion_events where card_document_id = ${card.documentId}`,
    );
    for (const h of hashes) expect(JSON.stringify(stored)).not.toContain(h);
  });

  test('admins only, and the conversions plan feature', async () => {
    const member = await addMember(t, 'member');
    expect((await member.api.get('/conversion-pixels')).status).toBe(403);
    const pro = await newTenant(env.app);
    await env.db.system.execute(sql`update organizations set plan = 'pro' where slug = ${pro.slug}`);
    const refused = await pro.api.get('/conversion-pixels');
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ feature: 'conversions' });
  });
});
