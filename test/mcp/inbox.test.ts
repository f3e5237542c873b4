import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { getApp, testConfig } from '../helpers/app.js';
import { startWhatsAppPeer, type WhatsAppPeer } from '../helpers/peers/whatsapp.js';
import {
  call,
  connectStdio,
  decide,
  fails,
  invalid,
  mcpEnv,
  newOrg,
  type Org,
  read,
  type Service,
  write,
} from './harness.js';

/** The 23 inbox tools (spec tool group "Inbox") through the MCP SDK client over stdio. */
let service: Service;
let wa: WhatsAppPeer;

beforeAll(async () => {
  wa = await startWhatsAppPeer();
  const config = testConfig({
    PORT: 0,
    HOST: '127.0.0.1',
    CRM_DATA_DIR: 'memory://',
    CRM_WHATSAPP_API_URL: wa.url,
    CRM_OUTBOUND_ALLOWLIST: '127.0.0.1',
  });
  const app = await buildApp({ config, db: (await getApp()).db });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  service = { url, close: () => app.close() };
});
afterAll(async () => {
  await service?.close();
  await wa?.close();
});

const number = () => `55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

describe('inbox tools (stdio)', () => {
  let org: Org;
  let client: Client;
  let channel: string;
  let inboxId: number;
  let board: string;
  const alice = number();

  const inbound = async (from: string, text: string, name?: string) => {
    const { body, headers } = wa.messagesWebhook('s', '1001', [{ from, text, name }]);
    const res = await fetch(`${service.url}/api/webhooks/whatsapp/${channel}`, {
      method: 'POST',
      headers,
      body,
    });
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    org = await newOrg(service);
    client = await connectStdio(mcpEnv(service, org));
    const ch = await org.call('POST', '/chat-channels', {
      data: {
        name: 'WA',
        type: 'whatsapp',
        settings: { phoneNumberId: '1001', businessAccountId: '2002' },
        credentials: { accessToken: wa.accessToken, appSecret: 's', verifyToken: 'v' },
      },
    });
    channel = ch.body.documentId;
    board = (await org.call('POST', '/boards', { data: { name: 'Chats' } })).body.documentId;
  });
  afterAll(async () => client?.close());

  it('inboxes and board links', async () => {
    const inboxes = await read(client, 'crm.list_chat_inboxes');
    expect(inboxes.data).toHaveLength(1);
    inboxId = inboxes.data[0].id;
    expect(typeof inboxId).toBe('number');
    expect((await read(client, 'crm.get_chat_inbox', { inboxId })).channel.documentId).toBe(channel);
    expect((await read(client, 'crm.list_inbox_board_links', { inboxId })).data).toEqual([]);
    // A documentId where a numeric id belongs is refused by the tool's schema.
    await invalid(client, 'crm.get_chat_inbox', { inboxId: channel }, 'inboxId');
  });

  it('conversations: list, get, meta, unread counts, messages, status, seen and unread', async () => {
    await inbound(alice, 'hello from alice', 'Alice');
    await inbound(alice, 'second message');
    const list = await read(client, 'crm.list_conversations', { unread: true });
    expect(list.data).toHaveLength(1);
    const conv = list.data[0];
    expect(conv).toMatchObject({ waId: alice, unreadCount: 2, contact: { name: 'Alice' } });
    expect((await read(client, 'crm.get_conversation', { conversationId: conv.id })).id).toBe(conv.id);
    expect(await read(client, 'crm.get_conversations_meta')).toMatchObject({ all: 1, unassigned: 1 });
    expect(await read(client, 'crm.get_conversation_unread_counts')).toMatchObject({
      conversations: 1,
      messages: 2,
    });
    const page = await read(client, 'crm.list_conversation_messages', { conversationId: conv.id, limit: 1 });
    expect(page.data.map((m: any) => m.content)).toEqual(['second message']);
    expect(page.meta.hasMore).toBe(true);
    const older = await read(client, 'crm.list_conversation_messages', {
      conversationId: conv.id,
      before: page.data[0].id,
    });
    expect(older.data.map((m: any) => m.content)).toEqual(['hello from alice']);
    await invalid(client, 'crm.get_conversation', { conversationId: 'abc' }, 'conversationId');

    expect((await write(client, 'crm.mark_conversation_seen', { conversationId: conv.id })).unreadCount).toBe(
      0,
    );
    expect(
      (await write(client, 'crm.mark_conversation_unread', { conversationId: conv.id })).unreadCount,
    ).toBe(1);
    expect(
      (await write(client, 'crm.update_conversation_status', { conversationId: conv.id, status: 'pending' }))
        .status,
    ).toBe('pending');
    const contact = conv.contact.documentId;
    expect((await read(client, 'crm.list_contact_conversations', { contactId: contact })).data).toHaveLength(
      1,
    );
    const found = await read(client, 'crm.search_chat_contacts', { q: 'alice' });
    expect(found.data).toMatchObject([{ documentId: contact, conversations: [{ id: conv.id, inboxId }] }]);
  });

  it('sending reaches the person only once confirmed; the window rule; attachments; start and sync', async () => {
    const conv = (await read(client, 'crm.list_conversations', { q: alice })).data[0];
    const before = wa.messages.length;
    const args = { conversationId: conv.id, message: { content: 'Hi Alice!' } };
    const preview = await call(client, 'crm.send_conversation_message', args);
    expect(preview.structuredContent?.status).toBe('confirmation_required');
    expect(wa.messages.length).toBe(before);
    // The model repeating the call with the token sends nothing until the person approved.
    const early = await call(client, 'crm.send_conversation_message', {
      ...args,
      confirmationToken: preview.structuredContent!.confirmationToken,
    });
    expect(early.structuredContent?.status).toBe('confirmation_required');
    expect(wa.messages.length).toBe(before);
    await decide(preview.structuredContent!.confirmationUrl);
    const sent = await call(client, 'crm.send_conversation_message', {
      ...args,
      confirmationToken: preview.structuredContent!.confirmationToken,
    });
    expect(sent.structuredContent?.result).toMatchObject({ status: 'sent', content: 'Hi Alice!' });
    expect(wa.messages.length).toBe(before + 1);

    const file = await write(client, 'crm.send_conversation_attachment', {
      conversationId: conv.id,
      base64: Buffer.from('hello').toString('base64'),
      filename: 'note.txt',
      mimeType: 'text/plain',
    });
    expect(file).toMatchObject({ contentType: 'document', status: 'sent' });
    await fails(
      client,
      'crm.send_conversation_attachment',
      { conversationId: conv.id, base64: 'AAAA', filename: 'a.zip', mimeType: 'application/zip' },
      400,
    );

    const bob = await org.call('POST', '/contacts', { data: { name: 'Bob', phone: `+${number()}` } });
    const refused = await fails(
      client,
      'crm.start_conversation',
      { inboxId, contactId: bob.body.documentId, message: { content: 'hey' } },
      422,
    );
    expect(refused.message).toMatch(/24-hour window/);
    const started = await write(client, 'crm.start_conversation', {
      inboxId,
      contactId: bob.body.documentId,
      message: {
        content: 'Hello Bob',
        template_params: {
          name: 'hello',
          category: 'UTILITY',
          language: 'en_US',
          processed_params: { '1': 'Bob' },
        },
      },
    });
    expect(started.message).toMatchObject({ contentType: 'template', status: 'sent' });
    expect(wa.messages.at(-1)!.type).toBe('template');

    const carol = await org.call('POST', '/contacts', { data: { name: 'Carol', phone: `+${number()}` } });
    const synced = await write(client, 'crm.sync_contact_to_chat', {
      contactId: carol.body.documentId,
      inboxId,
    });
    expect(synced).toMatchObject({ created: true, conversation: { card: null } });
  });

  it('a long message is approved whole: the person sees every character, the link at 110 included (issue 30)', async () => {
    const conv = (await read(client, 'crm.list_conversations', { q: alice })).data[0];
    const link = 'https://pay.example/invoice/77?to=attacker';
    const head =
      'Olá Alice! Segue o resumo do pedido e as condições combinadas na reunião de ontem. Para pagar: ';
    const content = `${head.padEnd(110, '.')}${link} ${'Detalhes do pedido, item a item. '.repeat(70)}`.slice(
      0,
      2_246,
    );
    expect(content).toHaveLength(2_246);
    expect(content.indexOf(link)).toBe(110);
    const args = { conversationId: conv.id, message: { content } };

    // Form elicitation: the prompt the client receives carries the whole text.
    const asked: string[] = [];
    const eliciting = await connectStdio(mcpEnv(service, org), (message) => {
      asked.push(message);
      return 'accept';
    });
    try {
      const before = wa.messages.length;
      const sent = await call(eliciting, 'crm.send_conversation_message', args);
      expect(sent.structuredContent?.status, JSON.stringify(sent.content)).toBe('completed');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(link);
      expect(asked[0]).toContain(JSON.stringify(content));
      expect(wa.messages.length).toBe(before + 1);
      expect(JSON.stringify(wa.messages.at(-1)!.payload)).toContain(link);
    } finally {
      await eliciting.close();
    }

    // Link and token: the preview and the request the approval page shows hold the whole text too.
    const preview = await call(client, 'crm.send_conversation_message', args);
    expect(preview.structuredContent?.status).toBe('confirmation_required');
    expect(preview.structuredContent!.preview.arguments.message.content).toBe(content);
    const stored = await fetch(
      `${service.url}/api/agent-confirmations/${preview.structuredContent!.confirmationToken}`,
      { headers: { authorization: `Bearer ${org.jwt}`, 'x-tenant-id': org.slug } },
    );
    expect(stored.status).toBe(200);
    expect((await stored.json()).arguments.message.content).toBe(content);
  });

  it('cards: create from a conversation, link, switch, contact cards and a board chat cards', async () => {
    await org.call('PUT', `/boards/${board}/chat-channels`, { data: { channels: [channel] } });
    expect((await read(client, 'crm.list_inbox_board_links', { inboxId })).data).toMatchObject([
      { board: { documentId: board }, createsCards: true },
    ]);
    const convs = (await read(client, 'crm.list_conversations', {})).data;
    const a = convs.find((c: any) => c.waId === alice);
    const carol = convs.find((c: any) => c.contact?.name === 'Carol');
    expect((await read(client, 'crm.get_conversation_card', { conversationId: a.id })).card).toBeNull();
    const made = await write(client, 'crm.create_card_from_conversation', { conversationId: a.id });
    expect(made.card).toMatchObject({ title: 'Alice', board: { documentId: board } });
    const other = await org.call('POST', `/boards/${board}/cards`, { data: { title: 'Other deal' } });
    const linked = await write(client, 'crm.link_conversation_to_card', {
      conversationId: carol.id,
      cardId: other.body.documentId,
    });
    expect(linked.card.documentId).toBe(other.body.documentId);
    const switched = await write(client, 'crm.switch_conversation_card', {
      conversationId: a.id,
      cardId: other.body.documentId,
    });
    expect(switched.card.documentId).toBe(other.body.documentId);
    const chatCards = await read(client, 'crm.list_chat_cards', { boardId: board });
    expect(chatCards.data).toMatchObject([
      { documentId: other.body.documentId, conversationIds: [a.id, carol.id].sort((x, y) => x - y) },
    ]);
    const contactCards = await read(client, 'crm.list_contact_conversation_cards', {
      contactId: a.contact.documentId,
    });
    expect(contactCards.data.map((c: any) => c.documentId)).toEqual([other.body.documentId]);
  });
});
