import { createHash, createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { addressHashIn } from '../../../src/modules/privacy/index.js';
import { addressHasher } from '../../../src/modules/privacy/keyed-hash.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { addMember, apiClient, getApp, newTenant, type TestContext } from '../../helpers/app.js';
import { startMessaging } from '../../helpers/messaging.js';
import { emailCampaign, waitFor } from '../campaigns/helpers.js';
import { createPerson, person, personCard, runRequest, unzip } from './helpers.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await getApp();
});

const anon = () => apiClient(ctx.app, {});
const download = (url: string) =>
  ctx.app.inject({ method: 'GET', url: new URL(url, 'http://crm.test').pathname });

describe('data export', () => {
  test('a zip of JSON and CSV with the contact, timeline, cards with field values, files; downloadable once', async () => {
    const t = await newTenant();
    const p = person();
    const contact = await createPerson(t.api, p);
    await t.api.post(`/contacts/${contact}/notes`, { data: { description: 'Called about the invoice' } });
    const { cardId } = await personCard(t, contact, p);

    const res = await t.api.post(`/contacts/${contact}/data-export`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      kind: 'data_export',
      status: 'queued',
      contact: { documentId: contact },
    });
    // The link, shown once: not ready yet (409, not spent).
    const link: string = res.body.downloadUrl;
    expect(link).toMatch(/^\/api\/data-exports\/crm_dx_[0-9A-Za-z]{43}$/);
    const early = await download(link);
    expect(early.statusCode).toBe(409);
    expect(early.json().error.message).toMatch(/not ready yet/);
    const { scheduled } = await runRequest(t, res.body.documentId);

    const status = (await t.api.get(`/privacy-requests/${res.body.documentId}`)).body;
    expect(status).toMatchObject({
      status: 'done',
      summary: { contact: 1, cards: 1, files: 1 },
    });
    expect(status.fileBytes).toBeGreaterThan(0);
    const expires = new Date(status.expiresAt).getTime() - Date.now();
    expect(expires).toBeGreaterThan(14 * 60_000);
    expect(expires).toBeLessThanOrEqual(15 * 60_000);
    expect(scheduled).toHaveLength(1);
    expect(status.downloadUrl).toBeNull();
    const [stored] = await queryRows<{ token_hash: string }>(
      ctx.db.system,
      sql`select token_hash from privacy_requests where document_id = ${res.body.documentId}`,
    );
    expect(stored.token_hash).toBe(createHash('sha256').update(link.split('/').pop()!).digest('hex'));

    const peek = await ctx.app.inject({ method: 'HEAD', url: link });
    expect(peek.statusCode).toBe(200);
    const first = await download(link);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/zip');
    const zip = unzip(first.rawPayload);
    expect(zip.json('contact.json')).toEqual([
      expect.objectContaining({
        document_id: contact,
        name: p.name,
        email: p.email,
        phone: p.phone,
        cpf: p.cpf,
      }),
    ]);
    expect(zip.text('contact.csv').split('\r\n')[0]).toContain('document_id,name,email,phone');
    expect(zip.json('timeline.json').map((a: any) => a.description)).toContain('Called about the invoice');
    const [card] = zip.json('cards.json');
    expect(card).toMatchObject({ document_id: cardId, title: `Deal with ${p.name}` });
    expect(card.field_values).toMatchObject({ Who: `${p.name} (${p.phone})`, Mail: p.email });
    const fileEntry = Object.keys(zip.entries).find((n) => n.startsWith('files/'));
    expect(fileEntry).toMatch(/rg\.pdf$/);
    expect(new TextDecoder().decode(zip.entries[fileEntry!])).toBe(`%PDF-1.4 ${p.name}`);
    for (const name of [
      'messages',
      'conversations',
      'campaign_deliveries',
      'tasks',
      'quotes',
      'suppressions',
    ])
      expect(zip.json(`${name}.json`)).toEqual([]);
    expect(zip.json('manifest.json').counts.cards).toBe(1);

    const second = await download(link);
    expect(second.statusCode).toBe(404);
    expect(second.json().error.message).toMatch(/already downloaded .*request a new export/);
    const after = (await t.api.get(`/privacy-requests/${res.body.documentId}`)).body;
    expect(after.downloadUrl).toBeNull();
    expect(after.downloadedAt).not.toBeNull();
  });

  test('an expired, altered or failed export link is a 404 saying so', async () => {
    const t = await newTenant();
    const contact = await createPerson(t.api, person());
    const res = await t.api.post(`/contacts/${contact}/data-export`);
    const link: string = res.body.downloadUrl;
    await runRequest(t, res.body.documentId);
    const altered = await download(link.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')));
    expect(altered.statusCode).toBe(404);
    expect(altered.json().error.message).toMatch(/not valid/);
    await ctx.db.system.execute(
      sql`update privacy_requests set expires_at = now() - interval '1 second' where document_id = ${res.body.documentId}`,
    );
    const expired = await download(link);
    expect(expired.statusCode).toBe(404);
    expect(expired.json().error.message).toMatch(/expired.*request a new export/);
    await ctx.db.system.execute(
      sql`update privacy_requests set status = 'failed', expires_at = null where document_id = ${res.body.documentId}`,
    );
    expect((await download(link)).json().error.message).toMatch(/failed.*request a new export/);
    expect((await anon().get('/data-exports/garbage')).status).toBe(404);
  });

  test('admins only; an unknown contact is a 404', async () => {
    const t = await newTenant();
    const contact = await createPerson(t.api, person());
    const member = await addMember(t, 'member');
    expect((await member.api.post(`/contacts/${contact}/data-export`)).status).toBe(403);
    expect((await member.api.post(`/contacts/${contact}/erase`, { confirm: contact })).status).toBe(403);
    const missing = await t.api.post('/contacts/abcdefghijklmnopqrstuvwx/data-export');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe('Contact not found');
    expect((await t.api.get('/privacy-requests/abcdefghijklmnopqrstuvwx')).status).toBe(404);
  });
});

describe('erasure', () => {
  test('an erased address on the suppression list still keeps a returning contact out of a campaign', async () => {
    const env = await startMessaging({ workers: true });
    try {
      const t = await newTenant(env.app);
      const p = person();
      const contact = await createPerson(t.api, p);
      expect((await t.api.post('/suppressions', { data: { address: p.email } })).status).toBe(201);
      const res = await t.api.post(`/contacts/${contact}/erase`, { confirm: contact });
      const erased = await waitFor(
        async () => (await t.api.get(`/privacy-requests/${res.body.documentId}`)).body,
        (r) => r.status === 'done',
      );
      expect(erased.summary.suppressionsHashed).toBe(1);
      // Both consent to e-mail marketing: only the suppression tells them apart.
      for (const [name, email] of [
        ['Returning', p.email.toUpperCase()],
        ['Other', `other.${p.email}`],
      ]) {
        const c = await t.api.post('/contacts', { data: { name, email, city: 'Back' } });
        const consent = await t.api.post(`/contacts/${c.body.documentId}/consents`, {
          data: { channel: 'email', purpose: 'marketing', status: 'granted', source: 'manual' },
        });
        expect(consent.status).toBe(201);
      }
      const { campaign } = await emailCampaign(t, { city: 'Back' });
      await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
      await waitFor(
        async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
        (c) => c.campaignStatus === 'completed' || c.campaignStatus === 'failed',
      );
      const recipients = (await t.api.get(`/campaigns/${campaign.documentId}/recipients`)).body.data;
      const byAddress = Object.fromEntries(recipients.map((r: any) => [r.address, r]));
      expect(byAddress[p.email]).toMatchObject({ status: 'skipped', skipReason: 'suppressed:manual' });
      expect(byAddress[`other.${p.email}`].status).toBe('sent');
    } finally {
      await env.close();
    }
  });

  test('confirmed by the documentId: a wrong or missing confirm is a 400 and erases nothing', async () => {
    const t = await newTenant();
    const contact = await createPerson(t.api, person());
    const wrong = await t.api.post(`/contacts/${contact}/erase`, { confirm: 'someone-else' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.errors[0].path).toEqual(['confirm']);
    expect((await t.api.post(`/contacts/${contact}/erase`, {})).status).toBe(400);
    expect((await t.api.post(`/contacts/${contact}/erase`, { data: { confirm: 'x' } })).status).toBe(400);
    const count = await queryRows<{ n: number }>(
      ctx.db.system,
      sql`select count(*)::int as n from privacy_requests r join contacts c
            on c.organization_id = r.organization_id and c.id = r.contact_id where c.document_id = ${contact}`,
    );
    expect(count[0].n).toBe(0);
  });

  test('the contact, its timeline, cards, files anonymised; suppression hashed and still honoured; audited by id', async () => {
    const t = await newTenant();
    const p = person();
    const contact = await createPerson(t.api, p);
    await t.api.post(`/contacts/${contact}/notes`, {
      data: { description: `Met ${p.name}, cpf ${p.cpfFormatted}` },
    });
    const { boardId, cardId } = await personCard(t, contact, p);
    expect((await t.api.post('/suppressions', { data: { address: p.email } })).status).toBe(201);

    const res = await t.api.post(`/contacts/${contact}/erase`, { confirm: contact });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ kind: 'erasure', status: 'queued' });
    await runRequest(t, res.body.documentId);
    const status = (await t.api.get(`/privacy-requests/${res.body.documentId}`)).body;
    expect(status).toMatchObject({ status: 'done', downloadUrl: null });
    expect(status.summary).toMatchObject({
      contact: 1,
      cards: 1,
      files: 1,
      suppressionsHashed: 1,
    });

    const c = (await t.api.get(`/contacts/${contact}`)).body;
    expect(c).toMatchObject({ name: 'Erased contact', email: null, phone: null, cpf: null });
    const timeline = (await t.api.get(`/contacts/${contact}/activities`)).body.data;
    expect(timeline.every((a: any) => !JSON.stringify(a).includes(p.name))).toBe(true);
    const card = (await t.api.get(`/boards/${boardId}/cards/${cardId}`)).body;
    expect(JSON.stringify(card)).not.toMatch(new RegExp(`${p.email}|Joana|${p.phone.slice(1)}`));
    expect(card.fields.who).toBe('[erased] ([erased])');
    expect((await t.api.get('/contacts', { q: 'joana' })).body.data).toEqual([]);

    const hash = (await addressHasher(ctx.db))(p.email);
    const supp = (await t.api.get('/suppressions')).body.data;
    expect(supp.map((s: any) => s.address)).toEqual([hash]);
    const [sqlHash] = await queryRows<{ h: string }>(
      ctx.db.system,
      sql`select ${addressHashIn(p.email)} as h`,
    );
    expect(sqlHash.h).toBe(hash);
    expect(hash).not.toBe(`hmac:${createHmac('sha256', 'x').update(p.email).digest('hex')}`);

    const audit = await queryRows<{ action: string; entity_document_id: string; data: unknown }>(
      ctx.db.system,
      sql`select a.action, a.entity_document_id, a.data from audit_log a join organizations o on o.id = a.organization_id
          where o.slug = ${t.slug} and a.action like 'contact.eras%' order by a.id`,
    );
    expect(audit.map((a) => a.action)).toEqual(['contact.erasure_requested', 'contact.erased']);
    expect(audit[1]).toMatchObject({ entity_document_id: contact, data: { request: res.body.documentId } });
  });

  test('a dry run queues nothing', async () => {
    const t = await newTenant();
    const contact = await createPerson(t.api, person());
    const dry = await t.api.post(`/contacts/${contact}/erase?dryRun=true`, { data: { confirm: contact } });
    expect(dry.status).toBe(200);
    expect(dry.headers['dry-run']).toBe('true');
    expect((await t.api.get(`/privacy-requests/${dry.body.documentId}`)).status).toBe(404);
  });
});

describe('identifier pattern and scrubbing in the database', () => {
  test('phone and CPF in any punctuation, the name in any case or accent, inside JSON strings, numbers and keys', async () => {
    const { identifierPattern } = await import('../../../src/modules/privacy/identifiers.js');
    const pattern = identifierPattern(
      {
        name: 'Joana Prudência',
        email: 'jo@x.example',
        phone: '+5511987654321',
        cpf: '52998224725',
        cnpj: null,
      },
      { withName: true },
    );
    const input = {
      n: 5511987654321,
      'jo@x.example': ['+55 (11) 98765-4321', 'call 11 98765 4321 today', 'ok'],
      who: 'JOANA PRUDENCIA and joana prudência',
      doc: 'cpf 529.982.247-25',
    };
    const [row] = await queryRows<{ j: unknown; t: string }>(
      ctx.db.system,
      sql`select public.crm_scrub_jsonb(${JSON.stringify(input)}::jsonb, ${pattern}) as j,
                 public.crm_scrub_text('Dear Joana  Prudência, 52998224725', ${pattern}) as t`,
    );
    expect(row.j).toEqual({
      n: '[erased]',
      '[erased]': ['[erased]', 'call [erased] today', 'ok'],
      who: '[erased] and [erased]',
      doc: 'cpf [erased]',
    });
    expect(row.t).toBe('Dear [erased], [erased]');
  });
});
