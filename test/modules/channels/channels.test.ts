import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { setOrganizationPlan } from '../../../src/modules/organizations/repo.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { addMember, apiClient, newTenant } from '../../helpers/app.js';
import {
  createEmailChannel,
  createSmsChannel,
  createWhatsAppChannel,
  type MessagingEnv,
  startMessaging,
} from '../../helpers/messaging.js';

let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging();
});
afterAll(async () => env?.close());

describe('chat channels', () => {
  test('CRUD: credentials are write-only and encrypted at rest', async () => {
    const t = await newTenant(env.app);
    const created = await createWhatsAppChannel(t.api, env);
    const got = await t.api.get(`/chat-channels/${created.documentId}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      type: 'whatsapp',
      hasCredentials: true,
      settings: { phoneNumberId: '1001' },
    });
    expect(JSON.stringify(got.body)).not.toContain(env.wa.accessToken);
    expect(got.body).not.toHaveProperty('credentials');
    const [row] = await queryRows<{ credentials: string }>(
      env.db.system,
      sql`select credentials from chat_channels where document_id = ${created.documentId}`,
    );
    expect(row.credentials).toMatch(/^v1\./);
    expect(row.credentials).not.toContain(env.wa.accessToken);

    const list = await t.api.get('/chat-channels');
    expect(list.body.data.map((c: any) => c.documentId)).toEqual([created.documentId]);
    expect(list.body.meta.pagination.total).toBe(1);

    const upd = await t.api.put(`/chat-channels/${created.documentId}`, {
      data: { name: 'Renamed', settings: { ratePerSecond: 3 } },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({
      name: 'Renamed',
      settings: { phoneNumberId: '1001', ratePerSecond: 3 },
    });
    // Health still works: credentials survived the update.
    expect((await t.api.get(`/chat-channels/${created.documentId}/health`)).body.status).toBe('ok');

    expect((await t.api.delete(`/chat-channels/${created.documentId}`)).body).toEqual({
      documentId: created.documentId,
      deleted: true,
    });
    expect((await t.api.get(`/chat-channels/${created.documentId}`)).status).toBe(404);
  });

  test('settings and credentials are checked against the type, with paths', async () => {
    const t = await newTenant(env.app);
    const bad = await t.api.post('/chat-channels', {
      data: { name: 'x', type: 'whatsapp', settings: { phoneNumberId: 'abc' }, credentials: {} },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors.map((e: any) => e.path.join('.'))).toContain(
      'settings.phoneNumberId',
    );
    const noCreds = await t.api.post('/chat-channels', {
      data: { name: 'x', type: 'sms', settings: { from: '+15550001111' } },
    });
    expect(noCreds.status).toBe(400);
    expect(noCreds.body.error.details.errors[0].path).toEqual(['credentials']);
    const badUrl = await t.api.post('/chat-channels', {
      data: {
        name: 'x',
        type: 'email',
        settings: { fromName: 'A', fromAddress: 'a@b.test' },
        credentials: { smtpUrl: 'http://x' },
      },
    });
    expect(badUrl.status).toBe(400);
    await createEmailChannel(t.api);
    const dup = await t.api.post('/chat-channels', {
      data: { name: 'Same', type: 'email', settings: { fromName: 'A', fromAddress: 'a@b.test' } },
    });
    expect(dup.status).toBe(201);
    const dup2 = await t.api.post('/chat-channels', {
      data: { name: 'Same', type: 'email', settings: { fromName: 'A', fromAddress: 'a@b.test' } },
    });
    expect(dup2.status).toBe(400);
    expect(dup2.body.error.details.duplicateKeys).toEqual(['name']);
  });

  test('an e-mail channel answers its generated webhook secret once', async () => {
    const t = await newTenant(env.app);
    const created = await createEmailChannel(t.api);
    expect(created.webhookSecret).toMatch(/^[\w-]{40,}$/);
    expect((await t.api.get(`/chat-channels/${created.documentId}`)).body.webhookSecret).toBeUndefined();
  });

  test('health makes a real provider call for each type and reports failures', async () => {
    const t = await newTenant(env.app);
    const wa = await createWhatsAppChannel(t.api, env);
    const sms = await createSmsChannel(t.api, env);
    const mail = await createEmailChannel(t.api);
    const before = env.wa.requests.length;
    const h = await t.api.get(`/chat-channels/${wa.documentId}/health`);
    expect(h.body).toMatchObject({ status: 'ok' });
    expect(h.body.latencyMs).toBeGreaterThanOrEqual(0);
    expect(env.wa.requests.slice(before).map((r) => r.path)).toEqual(['/v21.0/1001']);
    expect((await t.api.get(`/chat-channels/${sms.documentId}/health`)).body).toMatchObject({
      status: 'ok',
      message: 'SMS account active',
    });
    expect((await t.api.get(`/chat-channels/${mail.documentId}/health`)).body.status).toBe('ok');

    await t.api.put(`/chat-channels/${wa.documentId}`, { data: { credentials: { accessToken: 'revoked' } } });
    const bad = await t.api.get(`/chat-channels/${wa.documentId}/health`);
    expect(bad.body).toMatchObject({
      status: 'error',
      message: 'whatsapp provider: Invalid OAuth access token.',
    });
    // A channel SMTP server on an internal address is refused when saved (the send checks again:
    // test/platform/providers/providers.test.ts), on create and on update; the stored one is kept.
    for (const smtpUrl of [
      'smtp://10.0.0.1:25',
      'smtps://u:p@[::ffff:a00:1]:465',
      'smtp://[2002:a00:1::]:25',
    ]) {
      const priv = await t.api.post('/chat-channels', {
        data: {
          name: `priv ${smtpUrl}`,
          type: 'email',
          settings: { fromName: 'A', fromAddress: 'a@b.test' },
          credentials: { smtpUrl },
        },
      });
      expect(priv.status, smtpUrl).toBe(400);
      expect(priv.body.error.details).toMatchObject({
        rule: 'public_address',
        errors: [{ path: ['data', 'credentials', 'smtpUrl'], name: 'public_address' }],
      });
      const moved = await t.api.put(`/chat-channels/${mail.documentId}`, {
        data: { credentials: { smtpUrl } },
      });
      expect(moved.status, smtpUrl).toBe(400);
      expect(moved.body.error.details.rule).toBe('public_address');
    }
    expect((await t.api.get(`/chat-channels/${mail.documentId}/health`)).body.status).toBe('ok');
  });

  test('board links: set, read, replace; unknown channel is a 404 naming it', async () => {
    const t = await newTenant(env.app);
    const board = await t.api.post('/boards', { data: { name: 'Sales' } });
    const a = await createEmailChannel(t.api);
    const b = await createWhatsAppChannel(t.api, env);
    const set = await t.api.put(`/boards/${board.body.documentId}/chat-channels`, {
      data: { channels: [a.documentId, b.documentId] },
    });
    expect(set.status).toBe(200);
    expect(set.body.data).toHaveLength(2);
    expect((await t.api.get(`/boards/${board.body.documentId}/chat-channels`)).body.data).toHaveLength(2);
    expect((await t.api.get(`/chat-channels/${a.documentId}`)).body.boards).toEqual([
      { documentId: board.body.documentId, name: 'Sales' },
    ]);
    await t.api.put(`/boards/${board.body.documentId}/chat-channels`, { data: { channels: [b.documentId] } });
    expect(
      (await t.api.get(`/boards/${board.body.documentId}/chat-channels`)).body.data.map(
        (c: any) => c.documentId,
      ),
    ).toEqual([b.documentId]);
    const missing = await t.api.put(`/boards/${board.body.documentId}/chat-channels`, {
      data: { channels: ['nope'] },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.details.errors[0].path).toEqual(['channels', 0]);
  });

  test('admins configure; members read; the plan needs campaigns or inbox', async () => {
    const t = await newTenant(env.app);
    const ch = await createEmailChannel(t.api);
    const member = await addMember(t, 'member');
    expect((await member.api.get('/chat-channels')).status).toBe(200);
    const denied = await member.api.post('/chat-channels', {
      data: { name: 'm', type: 'email', settings: { fromName: 'A', fromAddress: 'a@b.test' } },
    });
    expect(denied.status).toBe(403);
    expect((await member.api.delete(`/chat-channels/${ch.documentId}`)).status).toBe(403);
    await setOrganizationPlan(env.db.system, t.slug, 'free');
    const free = await t.api.get('/chat-channels');
    expect(free.status).toBe(403);
    expect(free.body.error.details.features).toEqual(['campaigns', 'inbox']);
  });

  test('a token without channels scopes gets 403', async () => {
    const t = await newTenant(env.app);
    const tok = await t.userApi.post('/users/generate-token', {
      expiration: '1d',
      scopes: ['contacts:read'],
    });
    const api = apiClient(env.app, { authorization: `Bearer ${tok.body.token}`, 'x-tenant-id': t.slug });
    expect((await api.get('/chat-channels')).status).toBe(403);
  });

  test('another organization cannot see, change, check, link or delete a channel', async () => {
    const a = await newTenant(env.app);
    const b = await newTenant(env.app);
    const ch = await createWhatsAppChannel(a.api, env);
    const id = ch.documentId;
    expect((await b.api.get(`/chat-channels/${id}`)).status).toBe(404);
    expect((await b.api.get('/chat-channels')).body.data).toEqual([]);
    expect((await b.api.put(`/chat-channels/${id}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await b.api.get(`/chat-channels/${id}/health`)).status).toBe(404);
    expect((await b.api.delete(`/chat-channels/${id}`)).status).toBe(404);
    const board = await b.api.post('/boards', { data: { name: 'B' } });
    expect(
      (await b.api.put(`/boards/${board.body.documentId}/chat-channels`, { data: { channels: [id] } }))
        .status,
    ).toBe(404);
    // b's x-tenant-id on a's board is not a way in either.
    const aBoard = await a.api.post('/boards', { data: { name: 'A' } });
    expect((await b.api.get(`/boards/${aBoard.body.documentId}/chat-channels`)).status).toBe(404);
    expect((await a.api.get(`/chat-channels/${id}`)).body.name).toBe(
      `${(await a.api.get(`/chat-channels/${id}`)).body.name}`,
    );
  });
});
