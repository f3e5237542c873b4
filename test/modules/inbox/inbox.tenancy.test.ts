import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from './helpers.js';
import { openStream, quietFor } from './sse.js';

let env: MessagingEnv;
let url: string;
beforeAll(async () => {
  env = await startMessaging();
  url = await env.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => env?.close());

describe('inbox tenancy', () => {
  test('another organization cannot read, change, count or infer inbox data, nor hear its events', async () => {
    const a = await newTenant(env.app);
    const b = await newTenant(env.app);
    const sa = await inboxSetup(env, a);
    const sb = await inboxSetup(env, b);
    const from = waNumber();
    await inbound(env, sa.channel, [{ from, name: 'Secret Person', text: 'confidential' }]);
    const conv = await conversationOf(a.api, from);
    const contact = conv.contact.documentId;
    const card = conv.card.documentId;
    const pdf = { base64: Buffer.from('x').toString('base64'), filename: 'a.txt', mimeType: 'text/plain' };

    // B's own data, to aim A's ids at.
    const bFrom = waNumber();
    await inbound(env, sb.channel, [{ from: bFrom, text: 'mine' }]);
    const bConv = await conversationOf(b.api, bFrom);
    const bContact = await b.api.post('/contacts', { data: { name: 'B person', phone: `+${waNumber()}` } });

    const stream = await openStream(url, '/api/conversations/events', {
      authorization: `Bearer ${b.user.jwt}`,
      'x-tenant-id': b.slug,
    });

    const notFound: [string, Promise<{ status: number }>][] = [
      ['get inbox', b.api.get(`/inboxes/${sa.inboxId}`)],
      ['inbox boards', b.api.get(`/inboxes/${sa.inboxId}/boards`)],
      ['get conversation', b.api.get(`/conversations/${conv.id}`)],
      ['patch conversation', b.api.patch(`/conversations/${conv.id}`, { data: { status: 'resolved' } })],
      ['seen', b.api.post(`/conversations/${conv.id}/seen`)],
      ['unread', b.api.post(`/conversations/${conv.id}/unread`)],
      ['messages', b.api.get(`/conversations/${conv.id}/messages`)],
      ['media', b.api.get(`/conversations/${conv.id}/messages/${conv.id}/media`)],
      ['send', b.api.post(`/conversations/${conv.id}/messages`, { data: { message: { content: 'x' } } })],
      ['attach', b.api.post(`/conversations/${conv.id}/attachments`, { data: pdf })],
      ['card', b.api.get(`/conversations/${conv.id}/card`)],
      [
        'create card',
        b.api.post(`/conversations/${conv.id}/card`, { data: { board: sb.board!.documentId } }),
      ],
      ['link card', b.api.post(`/conversations/${conv.id}/card/link`, { data: { card } })],
      ['switch card', b.api.post(`/conversations/${conv.id}/card/switch`, { data: { card } })],
      [
        'A card onto B conversation',
        b.api.post(`/conversations/${bConv.id}/card/switch`, { data: { card } }),
      ],
      ['contact conversations', b.api.get(`/contacts/${contact}/conversations`)],
      ['contact cards', b.api.get(`/contacts/${contact}/conversation-cards`)],
      ['contact sync', b.api.post(`/contacts/${contact}/chat-sync`, { data: { inboxId: sb.inboxId } })],
      [
        'sync into A inbox',
        b.api.post(`/contacts/${bContact.body.documentId}/chat-sync`, { data: { inboxId: sa.inboxId } }),
      ],
      ['board chat cards', b.api.get(`/boards/${sa.board!.documentId}/chat-cards`)],
      [
        'start in A inbox',
        b.api.post('/conversations', {
          data: { inboxId: sa.inboxId, contact: bContact.body.documentId, message: { content: 'x' } },
        }),
      ],
      [
        'start with A contact',
        b.api.post('/conversations', { data: { inboxId: sb.inboxId, contact, message: { content: 'x' } } }),
      ],
    ];
    for (const [name, res] of notFound) expect((await res).status, name).toBe(404);

    const list = await b.api.get('/conversations', { q: 'Secret' });
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
    const all = (await b.api.get('/conversations')).body;
    expect(all.data.map((c: any) => c.id)).toEqual([bConv.id]);
    expect(all.meta.pagination.total).toBe(1);
    expect((await b.api.get('/inboxes')).body.data.map((i: any) => i.id)).toEqual([sb.inboxId]);
    expect((await b.api.get('/conversations/meta')).body.all).toBe(1);
    expect((await b.api.get('/conversations/unread-counts')).body).toMatchObject({
      conversations: 1,
      messages: 1,
    });
    expect((await b.api.get('/chat-contacts', { q: 'secret' })).body.data).toEqual([]);
    expect((await b.api.get(`/boards/${sb.board!.documentId}/chat-cards`)).body.data).toHaveLength(1);

    // A's traffic stays A's: new messages do not reach B's stream, and A's data is unchanged by B's attempts.
    await inbound(env, sa.channel, [{ from, text: 'more secrets' }]);
    expect(await quietFor(stream, () => true)).toEqual([]);
    stream.close();
    const after = await a.api.get(`/conversations/${conv.id}`);
    expect(after.body).toMatchObject({ status: 'open', unreadCount: 2, card: { documentId: card } });
    expect(env.wa.messages.filter((m) => m.to === from)).toEqual([]);
  });
});
