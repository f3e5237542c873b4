import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { setOrganizationPlan } from '../../../src/modules/organizations/repo.js';
import { addMember, apiClient, newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from './helpers.js';

let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging();
});
afterAll(async () => env?.close());

const hoursAgo = (h: number) => Math.floor(Date.now() / 1000 - h * 3600);

describe('inboxes and conversations', () => {
  test('inboxes: one per WhatsApp channel with numeric ids; board links', async () => {
    const t = await newTenant(env.app);
    const { inboxId, board, channel } = await inboxSetup(env, t);
    const list = await t.api.get('/inboxes');
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      id: inboxId,
      channel: { documentId: channel, phoneNumberId: '1001' },
      boards: [{ documentId: board!.documentId }],
    });
    expect((await t.api.get(`/inboxes/${inboxId}`)).body.id).toBe(inboxId);
    expect((await t.api.get(`/inboxes/${inboxId}/boards`)).body.data).toEqual([
      {
        inboxId,
        board: { documentId: board!.documentId, name: board!.name, boardType: 'kanban' },
        createsCards: true,
      },
    ]);
    expect((await t.api.get('/inboxes/999999999')).status).toBe(404);
    const bad = await t.api.get(`/inboxes/${channel}`);
    expect(bad.status).toBe(400);
  });

  test('list filters, meta counts, unread counts, seen/unread, status and assignment', async () => {
    const t = await newTenant(env.app);
    const { channel, inboxId } = await inboxSetup(env, t, { board: false });
    const [a, b, c] = [waNumber(), waNumber(), waNumber()];
    await inbound(env, channel, [
      { from: a, name: 'Alice Wonder', text: 'order 1234 please' },
      { from: b, name: 'Bob Builder', text: 'hi' },
      { from: b, text: 'still there?' },
      { from: c, name: 'Carla', text: 'refund' },
    ]);
    const ca = await conversationOf(t.api, a);
    const cb = await conversationOf(t.api, b);
    const member = await addMember(t, 'member');
    expect(
      (await t.api.patch(`/conversations/${ca.id}`, { data: { assignee: member.membershipId } })).body
        .assignee.documentId,
    ).toBe(member.membershipId);
    expect((await t.api.patch(`/conversations/${cb.id}`, { data: { status: 'pending' } })).body.status).toBe(
      'pending',
    );
    const ids = async (q: Record<string, unknown>) =>
      (await t.api.get('/conversations', q)).body.data.map((x: any) => x.waId).sort();
    expect(await ids({})).toEqual([a, b, c].sort());
    expect(await ids({ status: 'pending' })).toEqual([b]);
    expect(await ids({ assignee: member.membershipId })).toEqual([a]);
    expect(await ids({ assignee: 'none' })).toEqual([b, c].sort());
    expect(await ids({ inboxId })).toHaveLength(3);
    const paged = await t.api.get('/conversations', { 'pagination[pageSize]': 2, 'pagination[page]': 2 });
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.meta.pagination).toEqual({ page: 2, pageSize: 2, pageCount: 2, total: 3 });
    // Past the end: no rows, the total still counted.
    const past = await t.api.get('/conversations', { 'pagination[pageSize]': 2, 'pagination[page]': 3 });
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination.total).toBe(3);
    // The page brings each row's contact and assignee in its own statement: the same as reading the row alone.
    for (const row of (await t.api.get('/conversations')).body.data)
      expect(row).toEqual((await t.api.get(`/conversations/${row.id}`)).body);
    expect(await ids({ q: 'alice' })).toEqual([a]);
    expect(await ids({ q: 'refund' })).toEqual([c]);
    await t.api.post(`/conversations/${cb.id}/seen`);
    expect(await ids({ unread: 'true' })).toEqual([a, c].sort());
    expect((await t.api.post(`/conversations/${cb.id}/unread`)).body.unreadCount).toBe(1);
    await t.api.post(`/conversations/${cb.id}/seen`);
    expect((await t.api.get('/conversations/meta')).body).toEqual({
      all: 3,
      mine: 0,
      unassigned: 2,
      byStatus: { open: 2, pending: 1, resolved: 0, snoozed: 0 },
    });
    expect((await t.api.get('/conversations/unread-counts')).body).toEqual({
      conversations: 2,
      messages: 2,
      byInbox: [{ inboxId, conversations: 2, messages: 2 }],
    });
    // A member sees the unassigned conversations and their own; never someone else's.
    const other = await addMember(t, 'member');
    const seen = (await other.api.get('/conversations')).body.data.map((x: any) => x.waId).sort();
    expect(seen).toEqual([b, c].sort());
    expect((await other.api.get('/conversations')).body.meta.pagination.total).toBe(2);
    expect((await other.api.get(`/conversations/${ca.id}`)).status).toBe(404);
    expect((await member.api.get(`/conversations/${ca.id}`)).status).toBe(200);
    expect((await member.api.get('/conversations/meta')).body.mine).toBe(1);
    // Bad input says how to fix it.
    const bad = await t.api.patch(`/conversations/${ca.id}`, { data: { status: 'closed' } });
    expect(bad.status).toBe(400);
    expect((await t.api.patch(`/conversations/${ca.id}`, { data: { assignee: 'nobody' } })).status).toBe(400);
    const snooze = await t.api.patch(`/conversations/${ca.id}`, {
      data: { snoozedUntil: new Date(Date.now() + 3600_000).toISOString() },
    });
    expect(snooze.body).toMatchObject({ status: 'snoozed' });
    // A viewer reads but does not write.
    const viewer = await addMember(t, 'viewer');
    expect((await viewer.api.get('/conversations')).status).toBe(200);
    expect((await viewer.api.post(`/conversations/${cb.id}/seen`)).status).toBe(403);
  });

  test('messages are paged newest first with before/after numeric cursors', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(
      env,
      channel,
      Array.from({ length: 25 }, (_, i) => ({ from, text: `m${i}` })),
    );
    const conv = await conversationOf(t.api, from);
    const url = `/conversations/${conv.id}/messages`;
    const first = await t.api.get(url);
    expect(first.body.data).toHaveLength(20);
    expect(first.body.data[0].content).toBe('m24');
    expect(first.body.meta).toEqual({ hasMore: true });
    const older = await t.api.get(url, { before: first.body.data.at(-1).id });
    expect(older.body.data.map((m: any) => m.content)).toEqual(['m4', 'm3', 'm2', 'm1', 'm0']);
    expect(older.body.meta.hasMore).toBe(false);
    const newer = await t.api.get(url, { after: older.body.data[0].id, limit: 3 });
    expect(newer.body.data.map((m: any) => m.content)).toEqual(['m7', 'm6', 'm5']);
    expect(newer.body.meta.hasMore).toBe(true);
    expect((await t.api.get(url, { limit: 101 })).status).toBe(400);
    expect((await t.api.get(url, { before: 1, after: 2 })).status).toBe(400);
    expect((await t.api.get(url, { before: 'abc' })).status).toBe(400);
  });

  test('free text inside the window; outside it a 422 naming the window and the template alternative', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const [fresh, stale] = [waNumber(), waNumber()];
    await inbound(env, channel, [
      { from: fresh, text: 'hi' },
      { from: stale, text: 'old', timestamp: hoursAgo(25) },
    ]);
    const cf = await conversationOf(t.api, fresh);
    const cs = await conversationOf(t.api, stale);
    const sent = await t.api.post(`/conversations/${cf.id}/messages`, {
      data: { message: { content: 'Hello!' } },
    });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      direction: 'outgoing',
      status: 'sent',
      contentType: 'text',
      sender: { type: 'member' },
    });
    expect(env.wa.messages.at(-1)).toMatchObject({
      to: fresh,
      type: 'text',
      payload: { text: { body: 'Hello!' } },
    });

    const refused = await t.api.post(`/conversations/${cs.id}/messages`, {
      data: { message: { content: 'Hello?' } },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/24-hour window/);
    expect(refused.body.error.message).toMatch(/template/);
    expect(refused.body.error.details).toMatchObject({ alternative: 'template', window: { hours: 24 } });
    const before = env.wa.messages.length;
    const tpl = await t.api.post(`/conversations/${cs.id}/messages`, {
      data: {
        message: {
          content: 'Hi Ana, your order shipped',
          template_params: {
            name: 'order_update',
            category: 'UTILITY',
            language: 'en_US',
            processed_params: { '2': 'today', '1': 'Ana' },
          },
        },
      },
    });
    expect(tpl.status).toBe(201);
    expect(tpl.body).toMatchObject({ contentType: 'template', template: { name: 'order_update' } });
    expect(env.wa.messages.length).toBe(before + 1);
    expect(env.wa.messages.at(-1)!.payload.template).toEqual({
      name: 'order_update',
      language: { code: 'en_US' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'text', text: 'today' },
          ],
        },
      ],
    });
    // Neither content nor template: 400 saying what is missing.
    expect((await t.api.post(`/conversations/${cf.id}/messages`, { data: { message: {} } })).status).toBe(
      400,
    );
  });

  test('a provider failure is a 502 and the message stays failed; an Idempotency-Key retry sends nothing twice', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'hi' }]);
    const conv = await conversationOf(t.api, from);
    env.wa.failNext(1, 400, 'Recipient not on WhatsApp');
    const failed = await t.api.post(`/conversations/${conv.id}/messages`, {
      data: { message: { content: 'x' } },
    });
    expect(failed.status).toBe(502);
    expect(failed.body.error.details.provider).toBe('whatsapp');
    const msgs = await t.api.get(`/conversations/${conv.id}/messages`);
    expect(msgs.body.data[0]).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('Recipient not on WhatsApp'),
    });

    const before = env.wa.messages.length;
    const body = { data: { message: { content: 'exactly once' } } };
    const key = { 'idempotency-key': `send-${from}` };
    const one = await t.api.post(`/conversations/${conv.id}/messages`, body, key);
    const two = await t.api.post(`/conversations/${conv.id}/messages`, body, key);
    expect(one.status).toBe(201);
    expect(two.body.id).toBe(one.body.id);
    expect(env.wa.messages.length).toBe(before + 1);
  });

  test('attachments: uploaded through the media endpoint; unsupported types and oversize files are 400', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'send me the quote' }]);
    const conv = await conversationOf(t.api, from);
    const pdf = Buffer.from('%PDF-1.4\n% a tiny pdf\n');
    const ok = await t.api.post(`/conversations/${conv.id}/attachments`, {
      data: {
        base64: pdf.toString('base64'),
        filename: 'quote.pdf',
        mimeType: 'application/pdf',
        caption: 'Your quote',
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body).toMatchObject({
      contentType: 'document',
      content: 'Your quote',
      attachments: [{ filename: 'quote.pdf', mimeType: 'application/pdf', size: pdf.length }],
    });
    const mediaId = ok.body.attachments[0].mediaId;
    expect(env.wa.media.get(mediaId)).toEqual({
      type: 'application/pdf',
      filename: 'quote.pdf',
      bytes: pdf.length,
    });
    expect(env.wa.messages.at(-1)).toMatchObject({
      type: 'document',
      payload: { document: { id: mediaId, caption: 'Your quote', filename: 'quote.pdf' } },
    });

    const exe = await t.api.post(`/conversations/${conv.id}/attachments`, {
      data: { base64: 'TVqQAAMAAAAEAAAA', filename: 'x.exe', mimeType: 'application/x-msdownload' },
    });
    expect(exe.status).toBe(400);
    expect(exe.body.error.message).toMatch(/does not support application\/x-msdownload/);
    expect(exe.body.error.details.supportedTypes).toContain('image/jpeg');

    const bigImage = Buffer.alloc(5 * 1024 * 1024 + 10).toString('base64');
    const tooBig = await t.api.post(`/conversations/${conv.id}/attachments`, {
      data: { base64: bigImage, filename: 'x.jpg', mimeType: 'image/jpeg' },
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.message).toMatch(/at most 5 MB/);

    const huge = Buffer.alloc(50 * 1024 * 1024 + 3).toString('base64');
    const over = await t.api.post(`/conversations/${conv.id}/attachments`, {
      data: { base64: huge, filename: 'big.pdf', mimeType: 'application/pdf' },
    });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(/at most 50 MB/);
    expect(
      (
        await t.api.post(`/conversations/${conv.id}/attachments`, {
          data: { base64: '@@not-base64@@', filename: 'a.pdf', mimeType: 'application/pdf' },
        })
      ).status,
    ).toBe(400);
  });

  test('a MARKETING template is not sent to a contact who withdrew WhatsApp marketing consent; a UTILITY one is', async () => {
    const t = await newTenant(env.app);
    const { inboxId } = await inboxSetup(env, t, { board: false });
    const phone = waNumber();
    const contact = await t.api.post('/contacts', { data: { name: 'Olga', phone: `+${phone}` } });
    const withdrawn = await t.api.post(`/contacts/${contact.body.documentId}/consents`, {
      data: { channel: 'whatsapp', purpose: 'marketing', status: 'withdrawn' },
    });
    expect(withdrawn.status, JSON.stringify(withdrawn.body)).toBe(201);
    const sentBefore = env.wa.messages.length;
    const start = (category: string) =>
      t.api.post('/conversations', {
        data: {
          inboxId,
          contact: contact.body.documentId,
          message: { content: 'Oferta', template_params: { name: 'promo', category, language: 'pt_BR' } },
        },
      });
    const refused = await start('marketing');
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error.message).toMatch(/withdrew WhatsApp marketing consent/);
    expect(refused.body.error.details.consent).toEqual({
      channel: 'whatsapp',
      purpose: 'marketing',
      status: 'withdrawn',
    });
    expect(env.wa.messages.length).toBe(sentBefore);
    const utility = await start('UTILITY');
    expect(utility.status, JSON.stringify(utility.body)).toBe(201);
    expect(env.wa.messages.length).toBe(sentBefore + 1);
    // In the conversation now open, a MARKETING template is refused alike; a reply inside the window is not marketing.
    const conversationId = utility.body.conversation.id;
    const again = await t.api.post(`/conversations/${conversationId}/messages`, {
      data: {
        message: {
          content: 'Oferta',
          template_params: { name: 'promo', category: 'MARKETING', language: 'pt_BR' },
        },
      },
    });
    expect(again.status).toBe(422);
    expect(env.wa.messages.length).toBe(sentBefore + 1);
  });

  test("starting a conversation asks about the contact named, not the one the number's conversation names", async () => {
    const t = await newTenant(env.app);
    const { inboxId } = await inboxSetup(env, t, { board: false });
    const phone = waNumber();
    const start = (contact: string, category: string) =>
      t.api.post('/conversations', {
        data: {
          inboxId,
          contact,
          message: { content: 'Oi', template_params: { name: 'promo', category, language: 'pt_BR' } },
        },
      });
    // The number's conversation belongs to a contact who never withdrew.
    const work = await t.api.post('/contacts', { data: { name: 'Rui (trabalho)', phone: `+${phone}` } });
    expect((await start(work.body.documentId, 'UTILITY')).status).toBe(201);
    // Another contact with the same number withdrew: a marketing template started for them is refused.
    const home = await t.api.post('/contacts', { data: { name: 'Rui', phone: `+${phone}` } });
    expect(home.status, JSON.stringify(home.body)).toBe(201);
    await t.api.post(`/contacts/${home.body.documentId}/consents`, {
      data: { channel: 'whatsapp', purpose: 'marketing', status: 'withdrawn' },
    });
    const sentBefore = env.wa.messages.length;
    const refused = await start(home.body.documentId, 'MARKETING');
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(env.wa.messages.length).toBe(sentBefore);
  });

  test('start a conversation: a template outside the window; contact conversations; sync a contact', async () => {
    const t = await newTenant(env.app);
    const { inboxId, board } = await inboxSetup(env, t);
    const phone = waNumber();
    const contact = await t.api.post('/contacts', { data: { name: 'Dora', phone: `+${phone}` } });
    const free = await t.api.post('/conversations', {
      data: { inboxId, contact: contact.body.documentId, message: { content: 'hi' } },
    });
    expect(free.status).toBe(422);
    expect(free.body.error.message).toMatch(/24-hour window/);
    const started = await t.api.post('/conversations', {
      data: {
        inboxId,
        contact: contact.body.documentId,
        message: {
          content: 'Welcome Dora',
          template_params: { name: 'welcome', category: 'MARKETING', language: 'pt_BR' },
        },
      },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body.conversation).toMatchObject({
      inboxId,
      waId: phone,
      contact: { documentId: contact.body.documentId },
      card: { board: { documentId: board!.documentId } },
      lastMessagePreview: 'Welcome Dora',
    });
    expect(started.body.message).toMatchObject({ contentType: 'template', status: 'sent' });
    const mine = await t.api.get(`/contacts/${contact.body.documentId}/conversations`);
    expect(mine.body.data.map((c: any) => c.id)).toEqual([started.body.conversation.id]);

    const noPhone = await t.api.post('/contacts', { data: { name: 'No Phone' } });
    const refused = await t.api.post(`/contacts/${noPhone.body.documentId}/chat-sync`, { data: { inboxId } });
    expect(refused.status).toBe(422);
    const other = await t.api.post('/contacts', { data: { name: 'Eve', phone: `+${waNumber()}` } });
    const synced = await t.api.post(`/contacts/${other.body.documentId}/chat-sync`, { data: { inboxId } });
    expect(synced.body).toMatchObject({
      created: true,
      conversation: { contact: { documentId: other.body.documentId } },
    });
    const again = await t.api.post(`/contacts/${other.body.documentId}/chat-sync`, { data: { inboxId } });
    expect(again.body).toMatchObject({ created: false, conversation: { id: synced.body.conversation.id } });

    const found = await t.api.get('/chat-contacts', { q: 'dora' });
    expect(found.body.data).toEqual([
      {
        documentId: contact.body.documentId,
        name: 'Dora',
        phone: `+${phone}`,
        email: null,
        conversations: [{ id: started.body.conversation.id, inboxId }],
      },
    ]);
  });

  test('conversation ↔ card: get, create, link, switch; contact cards; a board chat cards', async () => {
    const t = await newTenant(env.app);
    const { channel, board } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, name: 'Fabio', text: 'hi' }]);
    const conv = await conversationOf(t.api, from);
    expect((await t.api.get(`/conversations/${conv.id}/card`)).body).toEqual({
      conversationId: conv.id,
      card: null,
    });
    // No linked board and none named: 400 saying how.
    const noBoard = await t.api.post(`/conversations/${conv.id}/card`, { data: {} });
    expect(noBoard.status).toBe(400);
    expect(board).toBeUndefined();
    const b1 = (await t.api.post('/boards', { data: { name: 'Sales' } })).body;
    const made = await t.api.post(`/conversations/${conv.id}/card`, { data: { board: b1.documentId } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.card).toMatchObject({ title: 'Fabio', board: { documentId: b1.documentId } });
    const cardDoc = await t.api.get(`/boards/${b1.documentId}/cards/${made.body.card.documentId}`);
    expect(cardDoc.body).toMatchObject({
      creationSource: 'chat_inbound',
      contact: { documentId: conv.contact.documentId },
    });
    expect(
      (await t.api.post(`/conversations/${conv.id}/card`, { data: { board: b1.documentId } })).status,
    ).toBe(422);

    const other = await t.api.post(`/boards/${b1.documentId}/cards`, { data: { title: 'Bigger deal' } });
    expect(
      (await t.api.post(`/conversations/${conv.id}/card/link`, { data: { card: other.body.documentId } }))
        .status,
    ).toBe(422);
    const switched = await t.api.post(`/conversations/${conv.id}/card/switch`, {
      data: { card: other.body.documentId },
    });
    expect(switched.status).toBe(200);
    expect(switched.body.card.documentId).toBe(other.body.documentId);
    expect((await t.api.get(`/conversations/${conv.id}/card`)).body.card.title).toBe('Bigger deal');

    const chatCards = await t.api.get(`/boards/${b1.documentId}/chat-cards`);
    expect(chatCards.body.data).toEqual([
      expect.objectContaining({ documentId: other.body.documentId, conversationIds: [conv.id] }),
    ]);
    const contactCards = await t.api.get(`/contacts/${conv.contact.documentId}/conversation-cards`);
    expect(contactCards.body.data.map((c: any) => c.documentId)).toEqual([other.body.documentId]);

    // Link on a fresh conversation (none yet); switch there is a 422.
    const from2 = waNumber();
    await inbound(env, channel, [{ from: from2, text: 'hello' }]);
    const conv2 = await conversationOf(t.api, from2);
    expect(
      (await t.api.post(`/conversations/${conv2.id}/card/switch`, { data: { card: other.body.documentId } }))
        .status,
    ).toBe(422);
    const linked = await t.api.post(`/conversations/${conv2.id}/card/link`, {
      data: { card: other.body.documentId },
    });
    expect(linked.body.card.documentId).toBe(other.body.documentId);
    expect(
      (await t.api.post(`/conversations/${conv2.id}/card/link`, { data: { card: 'nope' } })).status,
    ).toBe(422);
    expect(
      (await t.api.post(`/conversations/${conv2.id}/card/switch`, { data: { card: 'nope' } })).status,
    ).toBe(404);
  });

  test('plan feature and token scopes', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'hi' }]);
    const conv = await conversationOf(t.api, from);
    const token = async (scopes: string[]) => {
      const res = await t.userApi.post('/users/generate-token', { expiration: '1d', scopes });
      return apiClient(env.app, { authorization: `Bearer ${res.body.token}`, 'x-tenant-id': t.slug });
    };
    const readOnly = await token(['chat:read']);
    expect((await readOnly.get('/conversations')).status).toBe(200);
    const w = await readOnly.post(`/conversations/${conv.id}/seen`);
    expect(w.status).toBe(403);
    expect(w.body.error.message).toMatch(/chat:write/);
    const noChat = await token(['contacts:read']);
    expect((await noChat.get('/conversations')).status).toBe(403);
    expect((await noChat.get('/conversations/meta')).status).toBe(403);

    await setOrganizationPlan(env.db.system, t.slug, 'free');
    const gated = await t.api.get('/conversations');
    expect(gated.status).toBe(403);
    expect(gated.body.error.details.feature).toBe('inbox');
    expect((await t.api.get('/inboxes')).status).toBe(403);
  });
});
