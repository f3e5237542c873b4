import { randomBytes } from 'node:crypto';
import type { Api, Res, Tenant } from '../../helpers/app.js';
import { createWhatsAppChannel, type MessagingEnv } from '../../helpers/messaging.js';
import type { InboundMessage } from '../../helpers/peers/whatsapp.js';

export const APP_SECRET = 'wa-app-secret';

/** A WhatsApp number of the tests: unique digits per call (wa_id form, no +). */
export const waNumber = () => `55119${String(randomBytes(4).readUInt32BE() % 100_000_000).padStart(8, '0')}`;

/** A tenant with a WhatsApp channel, a board linked to it (cards land there) and its inbox id. */
export async function inboxSetup(env: MessagingEnv, t: Tenant, opts: { board?: boolean } = {}) {
  const channel = await createWhatsAppChannel(t.api, env);
  let board: { documentId: string; name: string } | undefined;
  if (opts.board !== false) {
    const b = await t.api.post('/boards', { data: { name: `Chats ${randomBytes(3).toString('hex')}` } });
    board = b.body;
    const linked = await t.api.put(`/boards/${b.body.documentId}/chat-channels`, {
      data: { channels: [channel.documentId] },
    });
    if (linked.status !== 200) throw new Error(JSON.stringify(linked.body));
  }
  const inboxes = await t.api.get('/inboxes');
  const inbox = inboxes.body.data.find((i: any) => i.channel.documentId === channel.documentId);
  return { channel: channel.documentId, board, inboxId: inbox.id as number };
}

/** Posts a signed inbound-messages webhook for the channel. */
export async function inbound(
  env: MessagingEnv,
  channel: string,
  messages: InboundMessage[],
  secret = APP_SECRET,
) {
  const { body, headers } = env.wa.messagesWebhook(secret, '1001', messages);
  const res = await env.app.inject({
    method: 'POST',
    url: `/api/webhooks/whatsapp/${channel}`,
    payload: body,
    headers,
  });
  return { status: res.statusCode, body: JSON.parse(res.body || 'null') } as Res;
}

export async function statuses(
  env: MessagingEnv,
  channel: string,
  list: { id: string; status: 'sent' | 'delivered' | 'read' | 'failed' }[],
) {
  const { body, headers } = env.wa.statusWebhook(APP_SECRET, '1001', list);
  const res = await env.app.inject({
    method: 'POST',
    url: `/api/webhooks/whatsapp/${channel}`,
    payload: body,
    headers,
  });
  return { status: res.statusCode, body: JSON.parse(res.body || 'null') } as Res;
}

/** The conversation of a WhatsApp number, through the list. */
export async function conversationOf(api: Api, waId: string) {
  const list = await api.get('/conversations', { q: waId });
  return list.body.data.find((c: any) => c.waId === waId);
}
