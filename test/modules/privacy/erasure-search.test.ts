import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { closeServer, startJsonServer } from '../../helpers/peers/http.js';
import { emailCampaign, waitFor } from '../campaigns/helpers.js';
import { conversationOf, inbound, inboxSetup } from '../inbox/helpers.js';
import { createPerson, type Person, person, personCard, unzip } from './helpers.js';

/**
 * THE erasure acceptance (issue 33): a person seeded richly through the API (cards with dynamic fields, a
 * conversation through the WhatsApp peer, an e-mail campaign delivered through the SMTP peer, webhook deliveries to
 * a receiver of the test, timeline notes, an upload, a suppression), erased by the job, then every text, varchar,
 * json, jsonb and bytea column of every table of the database searched for the person's name, e-mail, phone and
 * CPF in several forms: nothing is found. PostgreSQL only (the catalogue of a real server).
 */

const fold = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

function needles(p: Person) {
  const digits = p.phone.slice(1);
  const national = digits.slice(2);
  return [
    p.name,
    fold(p.name),
    p.email,
    p.phone,
    digits,
    national,
    `(${national.slice(0, 2)}) ${national.slice(2, 7)}-${national.slice(7)}`,
    p.cpf,
    p.cpfFormatted,
  ];
}

interface Column {
  table_schema: string;
  table_name: string;
  column_name: string;
  data_type: string;
}

/** Every (table, column, needle) where a needle is found. */
async function findEverywhere(env: MessagingEnv, list: string[]) {
  const columns = await queryRows<Column>(
    env.db.system,
    sql`select c.table_schema, c.table_name, c.column_name, c.data_type
        from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema not in ('pg_catalog', 'information_schema') and t.table_type = 'BASE TABLE'
          and c.data_type in ('text', 'character varying', 'json', 'jsonb', 'bytea')`,
  );
  expect(columns.length).toBeGreaterThan(100);
  const hits: string[] = [];
  const patterns = list.map((n) => `%${n.replace(/[\\%_]/g, '\\$&')}%`);
  for (const c of columns) {
    const col = sql.identifier(c.column_name);
    const value = c.data_type === 'bytea' ? sql`encode(${col}, 'escape')` : sql`${col}::text`;
    const rows = await queryRows<{ needle: string }>(
      env.db.system,
      sql`select n.needle from unnest(${sql.param(patterns)}::text[]) as n(needle)
          where exists (select 1 from ${sql.identifier(c.table_schema)}.${sql.identifier(c.table_name)}
                        where ${value} ilike n.needle)`,
    );
    for (const r of rows) hits.push(`${c.table_schema}.${c.table_name}.${c.column_name} ∋ ${r.needle}`);
  }
  return hits;
}

describe.skipIf(!process.env.DATABASE_URL)('erasure: nothing of the person is left in any column', () => {
  let env: MessagingEnv;
  let receiver: Awaited<ReturnType<typeof startJsonServer>>;
  const received: string[] = [];

  beforeAll(async () => {
    env = await startMessaging({ workers: true });
    receiver = await startJsonServer(async (_req, body) => {
      received.push(body.toString());
      return { status: 200, body: { ok: true } };
    });
  });
  afterAll(async () => {
    await env?.close();
    if (receiver) await closeServer(receiver.server);
  });

  test('seeded everywhere through the API, erased, searched in every column', {
    timeout: 180_000,
  }, async () => {
    const t = await newTenant(env.app);
    const p = person();
    const sub = await t.api.post('/webhook-subscriptions', { data: { url: receiver.url, events: ['*'] } });
    expect(sub.status).toBe(201);

    const city = `Olinda${Date.now()}`;
    const contact = await createPerson(t.api, p, { city });
    await t.api.post(`/contacts/${contact}/notes`, {
      data: { description: `Spoke with ${p.name} (${p.email}, ${p.phone}, CPF ${p.cpfFormatted})` },
    });
    const { boardId, cardId } = await personCard(t, contact, p);
    await t.api.post(`/boards/${boardId}/cards/${cardId}/comments`, {
      data: { content: `Called ${p.name} at ${p.phone}` },
    });

    // A conversation: the person writes through the WhatsApp peer, a member answers.
    const { channel } = await inboxSetup(env, t);
    const wa = p.phone.slice(1);
    expect(
      (await inbound(env, channel, [{ from: wa, name: p.name, text: `Oi, sou ${p.name}: ${p.email}` }]))
        .status,
    ).toBe(200);
    const conv = await waitFor(
      () => conversationOf(t.api, wa),
      (c) => !!c,
    );
    const reply = await t.api.post(`/conversations/${conv.id}/messages`, {
      data: { message: { content: `Olá ${p.name}, seu CPF ${p.cpf} foi recebido` } },
    });
    expect(reply.status).toBe(201);

    // Marketing consent by e-mail, its proof naming the person (the campaign needs it).
    const consent = await t.api.post(`/contacts/${contact}/consents`, {
      data: {
        channel: 'email',
        purpose: 'marketing',
        status: 'granted',
        source: 'manual',
        proof: { ip: '203.0.113.7', note: `${p.name} agreed by phone ${p.phone}` },
      },
    });
    expect(consent.status).toBe(201);

    // An e-mail campaign delivered to the person (SMTP peer), then the address suppressed.
    const { campaign } = await emailCampaign(t, { city });
    await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
    const sent = await waitFor(
      async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
      (c) => c.campaignStatus === 'completed' || c.campaignStatus === 'failed',
    );
    expect(sent.stats.sent).toBe(1);
    expect((await t.api.post('/suppressions', { data: { address: p.email } })).status).toBe(201);

    // Webhook deliveries reached the receiver (their bodies are stored in webhook_deliveries).
    await waitFor(
      async () => received.filter((b) => b.includes(p.email)).length,
      (n) => n >= 1,
    );
    // The export before the erasure holds the conversation, the campaign delivery and the consent.
    const exp = await t.api.post(`/contacts/${contact}/data-export`);
    const ready = await waitFor(
      async () => (await t.api.get(`/privacy-requests/${exp.body.documentId}`)).body,
      (r) => r.status === 'done' || r.status === 'failed',
    );
    expect(ready.status).toBe('done');
    const zip = unzip((await env.app.inject({ method: 'GET', url: exp.body.downloadUrl })).rawPayload);
    expect(
      zip
        .json('messages.json')
        .map((m: any) => m.direction)
        .sort(),
    ).toEqual(['incoming', 'outgoing']);
    expect(zip.json('conversations.json')).toMatchObject([{ wa_id: wa }]);
    expect(zip.json('campaign_deliveries.json')).toMatchObject([
      { campaign: campaign.documentId, address: p.email, status: 'sent' },
    ]);
    expect(zip.json('consents.json')).toMatchObject([
      { channel: 'email', status: 'granted', proof: { ip: '203.0.113.7' } },
    ]);
    expect(zip.json('suppressions.json')).toMatchObject([{ address: p.email, reason: 'manual' }]);
    expect(zip.json('card_comments.json').some((c: any) => c.content.includes(p.name))).toBe(true);

    const before = await findEverywhere(env, needles(p));
    for (const table of [
      'public.contacts',
      'public.cards',
      'public.chat_messages',
      'public.webhook_deliveries',
      'public.domain_events',
      'public.campaign_recipients',
      'public.contact_activities',
      'public.suppressions',
    ])
      expect(
        before.some((h) => h.startsWith(`${table}.`)),
        `${table} held the person before`,
      ).toBe(true);

    const [stored] = await queryRows<{ storage_key: string }>(
      env.db.system,
      sql`select f.storage_key from card_files f join organizations o on o.id = f.organization_id
          where o.slug = ${t.slug}`,
    );
    const filePath = join(env.config.CRM_DATA_DIR, 'uploads', stored.storage_key);
    expect(existsSync(filePath)).toBe(true);

    const res = await t.api.post(`/contacts/${contact}/erase`, { confirm: contact });
    expect(res.status).toBe(202);
    const done = await waitFor(
      async () => (await t.api.get(`/privacy-requests/${res.body.documentId}`)).body,
      (r) => r.status === 'done' || r.status === 'failed',
      60_000,
    );
    expect(done.error).toBeNull();
    expect(done.status).toBe('done');
    // Late copies (an event dispatched while the job ran) would show up here too.
    await new Promise((r) => setTimeout(r, 1500));

    expect(await findEverywhere(env, needles(p))).toEqual([]);
    const [supp] = (await t.api.get('/suppressions')).body.data;
    expect(supp.address).toMatch(/^hmac:[0-9a-f]{64}$/);
    const [file] = await queryRows<{ n: number }>(
      env.db.system,
      sql`select count(*)::int as n from card_files f join organizations o on o.id = f.organization_id
          where o.slug = ${t.slug}`,
    );
    expect(file.n).toBe(0);
    expect(existsSync(filePath)).toBe(false);
  });
});
