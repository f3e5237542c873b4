import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, statuses, waNumber } from './helpers.js';

let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging();
});
afterAll(async () => env?.close());

describe('inbound WhatsApp webhook', () => {
  test('the hub.challenge handshake answers only the channel verify token', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const url = `/api/webhooks/whatsapp/${channel}`;
    const ok = await env.app.inject({
      url,
      query: { 'hub.mode': 'subscribe', 'hub.verify_token': 'wa-verify', 'hub.challenge': '1158201444' },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('1158201444');
    const bad = await env.app.inject({
      url,
      query: { 'hub.mode': 'subscribe', 'hub.verify_token': 'nope', 'hub.challenge': '1' },
    });
    expect(bad.statusCode).toBe(403);
  });

  test('a bad or missing signature is refused and stores nothing', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t);
    const from = waNumber();
    expect((await inbound(env, channel, [{ from, text: 'hi' }], 'wrong-secret')).status).toBe(401);
    const { body } = env.wa.messagesWebhook('wa-app-secret', '1001', [{ from, text: 'hi' }]);
    const unsigned = await env.app.inject({
      method: 'POST',
      url: `/api/webhooks/whatsapp/${channel}`,
      payload: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.statusCode).toBe(401);
    // The signature covers the raw bytes: the same JSON re-serialized differently does not pass.
    const signed = env.wa.messagesWebhook('wa-app-secret', '1001', [{ from, text: 'hi' }]);
    const reformatted = await env.app.inject({
      method: 'POST',
      url: `/api/webhooks/whatsapp/${channel}`,
      payload: JSON.stringify(JSON.parse(signed.body), null, 2),
      headers: signed.headers,
    });
    expect(reformatted.statusCode).toBe(401);
    expect((await t.api.get('/conversations')).body.data).toEqual([]);
  });

  test('a first message makes the conversation, the contact (by phone) and a chat_inbound card in the entry phase', async () => {
    const t = await newTenant(env.app);
    const { channel, board, inboxId } = await inboxSetup(env, t);
    const phase = await t.api.post(`/boards/${board!.documentId}/phases`, { data: { name: 'New' } });
    expect(phase.status).toBe(201);
    const from = waNumber();
    const res = await inbound(env, channel, [{ from, name: 'Ana Souza', text: 'Hello, is this in stock?' }]);
    expect(res.status).toBe(200);
    const conv = await conversationOf(t.api, from);
    expect(conv).toMatchObject({
      inboxId,
      status: 'open',
      unreadCount: 1,
      contact: { name: 'Ana Souza', phone: `+${from}` },
      lastMessagePreview: 'Hello, is this in stock?',
      card: { title: 'Ana Souza', board: { documentId: board!.documentId } },
    });
    expect(typeof conv.id).toBe('number');
    expect(new Date(conv.windowExpiresAt).getTime() - new Date(conv.lastIncomingAt).getTime()).toBe(
      24 * 3600 * 1000,
    );
    const card = await t.api.get(`/boards/${board!.documentId}/cards/${conv.card.documentId}`);
    expect(card.body).toMatchObject({
      creationSource: 'chat_inbound',
      currentPhase: { documentId: phase.body.documentId },
      contact: { documentId: conv.contact.documentId },
    });
    const msgs = await t.api.get(`/conversations/${conv.id}/messages`);
    expect(msgs.body.data).toMatchObject([
      {
        direction: 'incoming',
        content: 'Hello, is this in stock?',
        contentType: 'text',
        sender: { type: 'contact' },
      },
    ]);
    // The outbox holds both events, written with the message.
    const events = await queryRows<{ type: string }>(
      env.db.system,
      sql`select type from domain_events where subject = ${`conversation:${conv.id}`} order by id`,
    );
    expect(events.map((e) => e.type)).toEqual(['conversation.created', 'message.received']);

    // An existing contact with the same phone is matched, not duplicated.
    const other = waNumber();
    const known = await t.api.post('/contacts', { data: { name: 'Known Person', phone: `+${other}` } });
    await inbound(env, channel, [{ from: other, name: 'Whatever', text: 'hey' }]);
    expect((await conversationOf(t.api, other)).contact.documentId).toBe(known.body.documentId);
  });

  test('media, template replies; duplicates stored once; order kept within a payload', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    const batch = [
      { from, id: 'wamid.A1', text: 'first' },
      {
        from,
        id: 'wamid.A2',
        type: 'image',
        image: { id: 'media-1', mime_type: 'image/jpeg', caption: 'photo' },
      },
      { from, id: 'wamid.A3', type: 'button', button: { text: 'Yes, confirm', payload: 'CONFIRM' } },
      {
        from,
        id: 'wamid.A4',
        type: 'document',
        document: { id: 'media-2', mime_type: 'application/pdf', filename: 'a.pdf' },
      },
      { from, id: 'wamid.A5', type: 'reaction', reaction: { message_id: 'wamid.A1', emoji: '👍' } },
    ];
    expect((await inbound(env, channel, batch)).status).toBe(200);
    // The provider retries the same payload: nothing changes.
    expect((await inbound(env, channel, batch)).body).toMatchObject({ matched: 0 });
    const conv = await conversationOf(t.api, from);
    expect(conv.unreadCount).toBe(4);
    const msgs = await t.api.get(`/conversations/${conv.id}/messages`);
    expect(msgs.body.data.map((m: any) => [m.contentType, m.content])).toEqual([
      ['document', ''],
      ['text', 'Yes, confirm'],
      ['image', 'photo'],
      ['text', 'first'],
    ]);
    expect(msgs.body.data[0].attachments).toEqual([
      { mediaId: 'media-2', filename: 'a.pdf', mimeType: 'application/pdf', size: null, caption: null },
    ]);
    const ids = msgs.body.data.map((m: any) => m.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
  });

  test('inbound media is downloaded through the provider', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
    const mediaId = env.wa.addMedia(jpeg, 'image/jpeg');
    await inbound(env, channel, [
      { from, type: 'image', image: { id: mediaId, mime_type: 'image/jpeg', caption: 'look' } },
      { from, text: 'no media here' },
    ]);
    const conv = await conversationOf(t.api, from);
    const [text, image] = (await t.api.get(`/conversations/${conv.id}/messages`)).body.data;
    const res = await env.app.inject({
      url: `/api/conversations/${conv.id}/messages/${image.id}/media`,
      headers: { authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.rawPayload.equals(jpeg)).toBe(true);
    expect((await t.api.get(`/conversations/${conv.id}/messages/${text.id}/media`)).status).toBe(404);
    // A media id the provider does not know: 502 naming the provider.
    await inbound(env, channel, [{ from, type: 'image', image: { id: 'gone', mime_type: 'image/png' } }]);
    const gone = (await t.api.get(`/conversations/${conv.id}/messages`)).body.data[0];
    const failed = await t.api.get(`/conversations/${conv.id}/messages/${gone.id}/media`);
    expect(failed.status).toBe(502);
    expect(failed.body.error.details.provider).toBe('whatsapp');
    // Another organization cannot reach it.
    const other = await newTenant(env.app);
    expect((await other.api.get(`/conversations/${conv.id}/messages/${image.id}/media`)).status).toBe(404);
  });

  test('a burst of concurrent posts loses and duplicates nothing', async () => {
    const t = await newTenant(env.app);
    const { channel, board } = await inboxSetup(env, t);
    const people = Array.from({ length: 5 }, () => waNumber());
    // 40 posts, each with 2 messages, every post sent twice (provider retries) and all at once.
    const posts = Array.from({ length: 40 }, (_, i) => [
      { from: people[i % 5], id: `wamid.burst.${t.slug}.${i}.a`, text: `m${i}a` },
      { from: people[(i + 1) % 5], id: `wamid.burst.${t.slug}.${i}.b`, text: `m${i}b` },
    ]);
    const results = await Promise.all([...posts, ...posts].map((p) => inbound(env, channel, p)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const list = await t.api.get('/conversations', { pageSize: 100 });
    expect(list.body.data).toHaveLength(5);
    const total = list.body.data.reduce((n: number, c: any) => n + c.unreadCount, 0);
    expect(total).toBe(80);
    const [counts] = await queryRows<{ messages: number; contacts: number; cards: number }>(
      env.db.system,
      sql`select (select count(*)::int from chat_messages m join conversations c on c.organization_id = m.organization_id and c.id = m.conversation_id
                  where c.wa_id in ${people}) as messages,
                 (select count(*)::int from contacts where phone in ${people.map((p) => `+${p}`)}) as contacts,
                 (select count(*)::int from cards k join boards b on b.organization_id = k.organization_id and b.id = k.board_id
                  where b.document_id = ${board!.documentId}) as cards`,
    );
    expect(counts).toEqual({ messages: 80, contacts: 5, cards: 5 });
    expect((await t.api.get('/conversations/unread-counts')).body).toMatchObject({
      conversations: 5,
      messages: 80,
    });
  });

  test('statuses move an outgoing message forward only', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'hi' }]);
    const conv = await conversationOf(t.api, from);
    const sent = await t.api.post(`/conversations/${conv.id}/messages`, {
      data: { message: { content: 'hello!' } },
    });
    expect(sent.status).toBe(201);
    expect(sent.body.status).toBe('sent');
    const wamid = env.wa.messages.at(-1)!.id;
    await statuses(env, channel, [{ id: wamid, status: 'read' }]);
    await statuses(env, channel, [{ id: wamid, status: 'delivered' }]);
    const msgs = await t.api.get(`/conversations/${conv.id}/messages`);
    expect(msgs.body.data[0]).toMatchObject({ id: sent.body.id, status: 'read' });
  });

  test('a contact writing again reopens a resolved conversation', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'one' }]);
    const conv = await conversationOf(t.api, from);
    expect(
      (await t.api.patch(`/conversations/${conv.id}`, { data: { status: 'resolved' } })).body.status,
    ).toBe('resolved');
    await inbound(env, channel, [{ from, text: 'two' }]);
    expect((await t.api.get(`/conversations/${conv.id}`)).body.status).toBe('open');
  });
});
