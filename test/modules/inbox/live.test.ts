import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { type Database, openDatabase } from '../../../src/platform/db/client.js';
import { addMember, newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from './helpers.js';
import { openStream, quietFor, type SseStream } from './sse.js';

/**
 * GET /conversations/events over real HTTP. On PostgreSQL the reader listens on a second app instance with its
 * own connection pool (another API process): the change made through the first reaches it by LISTEN/NOTIFY.
 */
let env: MessagingEnv;
let url: string;
let readerUrl: string;
let second: { app: FastifyInstance; db: Database } | undefined;
const streams: SseStream[] = [];

beforeAll(async () => {
  env = await startMessaging();
  url = await env.app.listen({ port: 0, host: '127.0.0.1' });
  readerUrl = url;
  if (process.env.DATABASE_URL) {
    const db = await openDatabase({
      databaseUrl: process.env.DATABASE_URL,
      dataDir: 'memory://',
      poolSize: 3,
    });
    const app = await buildApp({ config: env.config, db });
    readerUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    second = { app, db };
  }
});
afterAll(async () => {
  for (const s of streams) s.close();
  await second?.app.close();
  await second?.db.close();
  await env?.close();
});

const open = async (slug: string, jwt: string, base = readerUrl, more: Record<string, string> = {}) => {
  const s = await openStream(base, '/api/conversations/events', {
    authorization: `Bearer ${jwt}`,
    'x-tenant-id': slug,
    ...more,
  });
  streams.push(s);
  return s;
};

describe('live inbox updates (Server-Sent Events)', () => {
  test('message.created and conversation.updated reach a reader, across API processes', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const stream = await open(t.slug, t.user.jwt);
    expect(stream.status).toBe(200);
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'live hello' }]);
    const created = await stream.next(
      (e) => e.event === 'message.created' && e.data.conversation.waId === from,
    );
    expect(created.data.message).toMatchObject({ direction: 'incoming', content: 'live hello' });
    expect(created.id).toBe(`m${created.data.message.id}`);
    const conv = await conversationOf(t.api, from);
    await t.api.patch(`/conversations/${conv.id}`, { data: { status: 'pending' } });
    const updated = await stream.next(
      (e) =>
        e.event === 'conversation.updated' &&
        e.data.conversation.id === conv.id &&
        e.data.conversation.status === 'pending',
    );
    expect(updated.data.conversation.unreadCount).toBe(1);
    // Outgoing messages are announced too.
    await t.api.post(`/conversations/${conv.id}/messages`, { data: { message: { content: 'reply' } } });
    await stream.next((e) => e.event === 'message.created' && e.data.message.content === 'reply');
  });

  test('a reader sees only what they may see: not another member’s conversation, not another organization', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const [a, b] = [await addMember(t, 'member'), await addMember(t, 'member')];
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'first' }]);
    const conv = await conversationOf(t.api, from);
    await t.api.patch(`/conversations/${conv.id}`, { data: { assignee: a.membershipId } });
    const streamA = await open(t.slug, a.user.jwt);
    const streamB = await open(t.slug, b.user.jwt);
    const outsider = await newTenant(env.app);
    await inboxSetup(env, outsider, { board: false });
    const streamX = await open(outsider.slug, outsider.user.jwt);
    await inbound(env, channel, [{ from, text: 'for A only' }]);
    await streamA.next((e) => e.event === 'message.created' && e.data.message.content === 'for A only');
    const leaked = (e: { data: any }) =>
      JSON.stringify(e.data).includes('for A only') || e.data.conversation?.id === conv.id;
    expect(await quietFor(streamB, leaked)).toEqual([]);
    expect(streamX.events.filter(leaked)).toEqual([]);
    expect(streamX.events).toEqual([]);
  });

  test('a reader reconnecting with Last-Event-ID gets what it missed first (through another process), only its own', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const first = await open(t.slug, t.user.jwt);
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'seen live' }]);
    const seen = await first.next(
      (e) => e.event === 'message.created' && e.data.message.content === 'seen live',
    );
    first.close();
    // Missed while disconnected: two messages, a status change; and another organization's message.
    await inbound(env, channel, [{ from, text: 'missed one' }]);
    await inbound(env, channel, [{ from, text: 'missed two' }]);
    const conv = await conversationOf(t.api, from);
    await t.api.patch(`/conversations/${conv.id}`, { data: { status: 'pending' } });
    const outsider = await newTenant(env.app);
    const other = await inboxSetup(env, outsider, { board: false });
    await inbound(env, other.channel, [{ from: waNumber(), text: 'not yours' }]);
    // Reconnected to the other process (on PostgreSQL), as a load balancer would.
    const again = await open(t.slug, t.user.jwt, url, { 'last-event-id': seen.id! });
    const one = await again.next(
      (e) => e.event === 'message.created' && e.data.message.content === 'missed one',
    );
    const two = await again.next(
      (e) => e.event === 'message.created' && e.data.message.content === 'missed two',
    );
    expect(again.events.indexOf(one)).toBeLessThan(again.events.indexOf(two));
    expect(two.id).toBe(`m${two.data.message.id}`);
    const changed = await again.next(
      (e) => e.event === 'conversation.updated' && e.data.conversation.status === 'pending',
    );
    expect(changed.id).toMatch(new RegExp(`^c${conv.id}-\\d+$`));
    expect(JSON.stringify(again.events)).not.toContain('not yours');
    // From a conversation event's id too; an id that names nothing replays nothing.
    const fromChange = await open(t.slug, t.user.jwt, url, { 'last-event-id': changed.id! });
    await fromChange.next((e) => e.event === 'conversation.updated' && e.data.conversation.id === conv.id);
    for (const id of ['m999999999999', 'nonsense', `c1-${Date.now() + 60_000}`]) {
      const s = await open(t.slug, t.user.jwt, url, { 'last-event-id': id });
      expect(await quietFor(s, () => true, 300)).toEqual([]);
    }
  });

  test('the stream needs the inbox feature and chat:read', async () => {
    const t = await newTenant(env.app);
    const res = await t.userApi.post('/users/generate-token', {
      expiration: '1d',
      scopes: ['contacts:read'],
    });
    const s = await openStream(url, '/api/conversations/events', {
      authorization: `Bearer ${res.body.token}`,
      'x-tenant-id': t.slug,
    });
    expect(s.status).toBe(403);
    // Without an Accept header the stream opens and ends at once (no connection left hanging).
    const bare = await env.app.inject({
      url: '/api/conversations/events',
      headers: { authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug },
    });
    expect(bare.statusCode).toBe(200);
    expect(bare.headers['content-type']).toMatch(/^text\/event-stream/);
  });
});
