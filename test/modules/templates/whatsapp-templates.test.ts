import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember, newTenant } from '../../helpers/app.js';
import {
  createEmailChannel,
  createWhatsAppChannel,
  type MessagingEnv,
  startMessaging,
} from '../../helpers/messaging.js';

let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging();
});
afterAll(async () => env?.close());

const body = (name: string) => ({
  data: { name, language: 'pt_BR', category: 'MARKETING', components: [{ type: 'BODY', text: 'Olá {{1}}' }] },
});

describe('WhatsApp templates', () => {
  test('submit, list, sync status from the provider, delete there too', async () => {
    const t = await newTenant(env.app);
    const ch = await createWhatsAppChannel(t.api, env);
    const created = await t.api.post(`/chat-channels/${ch.documentId}/templates`, body('spring_sale'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'spring_sale', status: 'PENDING', language: 'pt_BR' });
    expect(env.wa.templates.get('spring_sale|pt_BR')?.id).toBe(created.body.externalId);

    // The provider approves it and holds another one made elsewhere: sync brings both.
    env.wa.templates.get('spring_sale|pt_BR')!.status = 'APPROVED';
    env.wa.templates.set('welcome|en_US', {
      id: '999',
      name: 'welcome',
      language: 'en_US',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Welcome' }],
    });
    const synced = await t.api.post(`/chat-channels/${ch.documentId}/templates/sync`);
    expect(synced.status).toBe(200);
    expect(synced.body.meta).toEqual({ created: 1, updated: 1, deleted: 0 });
    const list = await t.api.get(`/chat-channels/${ch.documentId}/templates?filters[status]=APPROVED`);
    expect(list.body.data.map((x: any) => x.name)).toEqual(['spring_sale', 'welcome']);

    const del = await t.api.delete(`/chat-channels/${ch.documentId}/templates/${created.body.documentId}`);
    expect(del.status).toBe(200);
    expect(env.wa.templates.has('spring_sale|pt_BR')).toBe(false);
    // Deleted at the provider meanwhile: sync removes it here.
    env.wa.templates.delete('welcome|en_US');
    expect((await t.api.post(`/chat-channels/${ch.documentId}/templates/sync`)).body.meta.deleted).toBe(1);
    expect((await t.api.get(`/chat-channels/${ch.documentId}/templates`)).body.data).toEqual([]);
    env.wa.templates.clear();
  });

  test('a provider refusal is a 502 naming the provider; nothing is stored', async () => {
    const t = await newTenant(env.app);
    const ch = await createWhatsAppChannel(t.api, env);
    const bad = await t.api.post(`/chat-channels/${ch.documentId}/templates`, {
      data: {
        name: 'x_y',
        language: 'pt_BR',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Oi' }, { type: 'BODY' }],
      },
    });
    expect(bad.status).toBe(201);
    await t.api.put(`/chat-channels/${ch.documentId}`, { data: { credentials: { accessToken: 'bad' } } });
    const refused = await t.api.post(`/chat-channels/${ch.documentId}/templates`, body('other'));
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatchObject({
      name: 'BadGatewayError',
      details: { provider: 'whatsapp', providerStatus: 401 },
    });
    expect((await t.api.get(`/chat-channels/${ch.documentId}/templates`)).body.data).toHaveLength(1);
    const invalid = await t.api.post(`/chat-channels/${ch.documentId}/templates`, {
      data: { name: 'Bad Name', language: 'pt_BR', category: 'MARKETING', components: [] },
    });
    expect(invalid.status).toBe(400);
    env.wa.templates.clear();
  });

  test('media handle: resumable upload at the provider; type and size checked', async () => {
    const t = await newTenant(env.app);
    const ch = await createWhatsAppChannel(t.api, env);
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(64),
    ]);
    const res = await t.api.post(`/chat-channels/${ch.documentId}/templates/media-handle`, {
      filename: 'banner.png',
      mimeType: 'image/png',
      base64: png.toString('base64'),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.handle).toMatch(/^4::/);
    expect([...env.wa.uploads.values()].at(-1)).toMatchObject({
      fileName: 'banner.png',
      length: png.length,
      type: 'image/png',
    });
    const badType = await t.api.post(`/chat-channels/${ch.documentId}/templates/media-handle`, {
      filename: 'a.exe',
      mimeType: 'application/x-msdownload',
      base64: 'AAAA',
    });
    expect(badType.status).toBe(400);
  });

  test('e-mail channels have no templates to submit; members cannot submit', async () => {
    const t = await newTenant(env.app);
    const mail = await createEmailChannel(t.api);
    expect((await t.api.get(`/chat-channels/${mail.documentId}/templates`)).body.data).toEqual([]);
    expect((await t.api.post(`/chat-channels/${mail.documentId}/templates`, body('x'))).status).toBe(422);
    const ch = await createWhatsAppChannel(t.api, env);
    const m = await addMember(t, 'member');
    expect((await m.api.post(`/chat-channels/${ch.documentId}/templates`, body('x'))).status).toBe(403);
    expect((await m.api.get(`/chat-channels/${ch.documentId}/templates`)).status).toBe(200);
  });

  test("another organization cannot list, submit, sync or delete a channel's templates", async () => {
    const a = await newTenant(env.app);
    const b = await newTenant(env.app);
    const ch = await createWhatsAppChannel(a.api, env);
    const tpl = await a.api.post(`/chat-channels/${ch.documentId}/templates`, body('secret_one'));
    const base = `/chat-channels/${ch.documentId}/templates`;
    expect((await b.api.get(base)).status).toBe(404);
    expect((await b.api.post(base, body('x'))).status).toBe(404);
    expect((await b.api.post(`${base}/sync`)).status).toBe(404);
    expect((await b.api.delete(`${base}/${tpl.body.documentId}`)).status).toBe(404);
    // b's own channel cannot reach a's template either.
    const bch = await createWhatsAppChannel(b.api, env);
    expect(
      (await b.api.delete(`/chat-channels/${bch.documentId}/templates/${tpl.body.documentId}`)).status,
    ).toBe(404);
    expect(env.wa.templates.has('secret_one|pt_BR')).toBe(true);
    env.wa.templates.clear();
  });
});
