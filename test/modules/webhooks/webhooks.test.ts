import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { dispatchOrganization } from '../../../src/events.js';
import { deliverDue } from '../../../src/modules/webhooks/delivery.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { addMember, apiClient, getApp, newTenant, type Tenant, testConfig } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on loopback: records what it gets; answers `status` (a function of the call number and body). */
async function receiver(status: (n: number, body: string) => number = () => 204) {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      if (req.url === '/redirect') {
        res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
        return;
      }
      res.writeHead(status(got.length, body)).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { got, url, close: () => new Promise((r) => server.close(r)) };
}

const allowLoopback = () => testConfig({ CRM_OUTBOUND_ALLOWLIST: '127.0.0.1' });

/**
 * One dispatcher pass for the organizations of this file (the shared database holds other files' events too:
 * the production pass takes the oldest-waiting 200 organizations), then the deliveries that are due.
 */
async function run(config = allowLoopback()) {
  const { db } = await getApp();
  for (const orgId of orgIds) await dispatchOrganization(db, orgId);
  return deliverDue({ db, config });
}

const orgIds = new Set<number>();
async function track(tenant: Tenant) {
  const { db } = await getApp();
  const [row] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${tenant.slug}`,
  );
  orgIds.add(Number(row.id));
  return tenant;
}

describe('outbound webhooks', () => {
  let t: Tenant;
  let boardId: string;
  const closers: (() => Promise<unknown>)[] = [];
  // The receivers listen on loopback: this file's API allows 127.0.0.1 (save-time check), as its workers do.
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await buildApp({ config: allowLoopback(), db: (await getApp()).db });
    await app.ready();
    closers.push(() => app.close());
    t = await track(await newTenant(app));
    ({ boardId } = await createPipeline(t.api));
  });
  afterAll(async () => {
    for (const c of closers) await c();
  });

  test('events of the same transaction, delivered in order with Standard Webhooks signatures', async () => {
    const r = await receiver();
    closers.push(r.close);
    const created = await t.api.post('/webhook-subscriptions', {
      data: { url: `${r.url}/hook`, events: ['card.created', 'card.phase_changed', 'card.updated'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    // The secret is shown once.
    expect(
      (await t.api.get(`/webhook-subscriptions/${created.body.documentId}`)).body.secret,
    ).toBeUndefined();
    const card = await createCard(t.api, boardId, { title: 'Deal' });
    await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, { data: { title: 'Deal 2' } });
    const moved = await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, {
      phase: 'qualified',
    });
    expect(moved.status).toBe(200);
    await run();
    const wh = new Webhook(created.body.secret);
    const events = r.got.map(
      (g) => wh.verify(g.body, g.headers as Record<string, string>) as { type: string; data: any },
    );
    expect(events.map((e) => e.type)).toEqual(['card.created', 'card.updated', 'card.phase_changed']);
    expect(events[2].data).toMatchObject({ from: { slug: 'lead' }, to: { slug: 'qualified' } });
    expect(events[0].data.card).toMatchObject({ documentId: card.documentId, title: 'Deal' });
    expect(events[1].data.changes).toContain('title_changed');
    // Once: another run sends nothing more.
    await run();
    expect(r.got).toHaveLength(3);
    const log = await t.api.get(`/webhook-subscriptions/${created.body.documentId}/deliveries`);
    expect(log.body.data.map((d: { status: string }) => d.status)).toEqual([
      'delivered',
      'delivered',
      'delivered',
    ]);
    // A tampered body does not verify.
    expect(() => wh.verify(`${r.got[0].body} `, r.got[0].headers as Record<string, string>)).toThrow();
    await t.api.delete(`/webhook-subscriptions/${created.body.documentId}`);
  });

  test("failures are retried with backoff, the record's later events wait behind, repeated failure disables", async () => {
    // The first delivery about card A fails; the others succeed.
    let failedA = false;
    const r = await receiver((_n, body) => {
      if (failedA || JSON.parse(body).data.card?.title !== 'A') return 200;
      failedA = true;
      return 500;
    });
    closers.push(r.close);
    const sub = await t.api.post('/webhook-subscriptions', { data: { url: r.url, events: ['*'] } });
    const a = await createCard(t.api, boardId, { title: 'A' });
    await createCard(t.api, boardId, { title: 'B' });
    await t.api.put(`/boards/${boardId}/cards/${a.documentId}`, { data: { title: 'A2' } });
    await run();
    const titles = () => r.got.map((g) => JSON.parse(g.body).data.card.title as string);
    // A failed and A2 (the same card, later) waits behind it; B, another card, was delivered.
    expect(titles().sort()).toEqual(['A', 'B']);
    const { db } = await getApp();
    let log = (await t.api.get(`/webhook-subscriptions/${sub.body.documentId}/deliveries`)).body.data;
    const byTitle = (title: string) =>
      log.find((d: { payload: any }) => d.payload.data.card?.title === title);
    expect(byTitle('A')).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
    });
    expect(byTitle('A2')).toMatchObject({ status: 'pending', attempts: 0 });
    expect(byTitle('B')).toMatchObject({ status: 'delivered', attempts: 1 });
    // Nothing is sent before A's retry time comes.
    await run();
    expect(r.got).toHaveLength(2);
    await db.system.execute(
      sql`update webhook_deliveries set next_attempt_at = now() where status = 'pending'`,
    );
    await run();
    expect(titles().slice(2)).toEqual(['A', 'A2']);
    log = (await t.api.get(`/webhook-subscriptions/${sub.body.documentId}/deliveries`)).body.data;
    expect(log.every((d: { status: string }) => d.status === 'delivered')).toBe(true);
    expect((await t.api.get(`/webhook-subscriptions/${sub.body.documentId}`)).body.consecutiveFailures).toBe(
      0,
    );
    // Repeated failure disables; enabling again resets the count.
    await db.system.execute(
      sql`update webhook_subscriptions set consecutive_failures = 14 where document_id = ${sub.body.documentId}`,
    );
    await r.close();
    await createCard(t.api, boardId, { title: 'C' });
    await run();
    const after = (await t.api.get(`/webhook-subscriptions/${sub.body.documentId}`)).body;
    expect(after.enabled).toBe(false);
    expect(after.disabledReason).toContain('15 failed attempts');
    const again = await t.api.put(`/webhook-subscriptions/${sub.body.documentId}`, {
      data: { enabled: true },
    });
    expect(again.body).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
    await t.api.delete(`/webhook-subscriptions/${sub.body.documentId}`);
  });

  test("a record's deliveries are recorded when they are done, not when the whole batch is (a killed worker re-sends less)", async () => {
    // The receiver holds the second card's event until released: the first card's is answered at once.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    const got: string[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        got.push(body);
        if (body.includes('Slow')) await held;
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => server.close(r)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const sub = await t.api.post('/webhook-subscriptions', { data: { url, events: ['card.created'] } });
    expect(sub.status).toBe(201);
    await createCard(t.api, boardId, { title: 'Fast' });
    await createCard(t.api, boardId, { title: 'Slow' });
    const { db } = await getApp();
    for (const orgId of orgIds) await dispatchOrganization(db, orgId);
    const pass = deliverDue({ db, config: allowLoopback() });
    const statuses = async () =>
      (await t.api.get(`/webhook-subscriptions/${sub.body.documentId}/deliveries`)).body.data.map(
        (d: { status: string }) => d.status,
      ) as string[];
    // While the slow record is still in flight, the fast one is already delivered.
    const deadline = Date.now() + 10_000;
    while (!(await statuses()).includes('delivered') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect((await statuses()).sort()).toEqual(['delivered', 'pending']);
    expect(got).toHaveLength(2);
    release();
    await pass;
    expect(await statuses()).toEqual(['delivered', 'delivered']);
    await t.api.delete(`/webhook-subscriptions/${sub.body.documentId}`);
  });

  test('SSRF: loopback refused unless allow-listed; a redirect to the metadata address refused', async () => {
    const r = await receiver();
    closers.push(r.close);
    const sub = await t.api.post('/webhook-subscriptions', {
      data: { url: `${r.url}/hook`, events: ['card.created'] },
    });
    await createCard(t.api, boardId);
    await run(testConfig({ CRM_OUTBOUND_ALLOWLIST: undefined }));
    expect(r.got).toHaveLength(0);
    let log = (await t.api.get(`/webhook-subscriptions/${sub.body.documentId}/deliveries`)).body.data;
    expect(log[0].lastError).toMatch(/refused/);
    await t.api.put(`/webhook-subscriptions/${sub.body.documentId}`, { data: { url: `${r.url}/redirect` } });
    const { db } = await getApp();
    await db.system.execute(
      sql`update webhook_deliveries set next_attempt_at = now() where status = 'pending'`,
    );
    await run();
    expect(r.got).toHaveLength(1); // the receiver answered 307 to the metadata address, which was not followed
    log = (await t.api.get(`/webhook-subscriptions/${sub.body.documentId}/deliveries`)).body.data;
    expect(log[0]).toMatchObject({ status: 'pending' });
    expect(log[0].lastError).toMatch(/169\.254\.169\.254.*refused/);
    await t.api.delete(`/webhook-subscriptions/${sub.body.documentId}`);
  });

  test('SSRF at save time: an internal address or local name is a 400 naming the rule and the field', async () => {
    // The shared API has no allowlist: loopback is internal there.
    const strict = apiClient((await getApp()).app, {
      authorization: `Bearer ${t.user.jwt}`,
      'x-tenant-id': t.slug,
    });
    const before = (await strict.get('/webhook-subscriptions')).body.meta.pagination.total;
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://[::ffff:7f00:1]/hook',
      'http://[::a9fe:a9fe]/latest/meta-data/',
      'https://[2002:a00:1::1]/hook',
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://100.64.0.1/',
      'http://api.localhost/',
    ]) {
      const res = await strict.post('/webhook-subscriptions', { data: { url, events: ['*'] } });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatchObject({
        name: 'ValidationError',
        details: { rule: 'public_address', errors: [{ path: ['data', 'url'], name: 'public_address' }] },
      });
      expect(res.body.error.message).toMatch(/CRM_OUTBOUND_ALLOWLIST/);
    }
    expect((await strict.get('/webhook-subscriptions')).body.meta.pagination.total).toBe(before);
    // A public literal is saved (no DNS involved); changing it to an internal one is refused, the URL kept.
    const ok = await strict.post('/webhook-subscriptions', {
      data: { url: 'https://8.8.8.8/hook', events: ['*'] },
    });
    expect(ok.status).toBe(201);
    const moved = await strict.put(`/webhook-subscriptions/${ok.body.documentId}`, {
      data: { url: 'http://[fd00:ec2::254]/' },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.details.errors[0].path).toEqual(['data', 'url']);
    expect((await strict.get(`/webhook-subscriptions/${ok.body.documentId}`)).body.url).toBe(
      'https://8.8.8.8/hook',
    );
    await strict.delete(`/webhook-subscriptions/${ok.body.documentId}`);
  });

  test("admins only; another organization sees nothing and never receives this one's events", async () => {
    const member = await addMember(t, 'member');
    expect((await member.api.get('/webhook-subscriptions')).status).toBe(403);
    const pro = await newTenant(t.app);
    await (await getApp()).db.system.execute(
      sql`update organizations set plan = 'pro' where slug = ${pro.slug}`,
    );
    const noFeature = await pro.api.get('/webhook-subscriptions');
    expect(noFeature.status).toBe(403);
    expect(noFeature.body.error.details.feature).toBe('automations');
    expect(
      (await member.api.post('/webhook-subscriptions', { data: { url: 'https://x.example', events: ['*'] } }))
        .status,
    ).toBe(403);
    const r = await receiver();
    closers.push(r.close);
    const other = await track(await newTenant(t.app));
    const theirs = await other.api.post('/webhook-subscriptions', { data: { url: r.url, events: ['*'] } });
    const mine = await t.api.post('/webhook-subscriptions', {
      data: { url: 'https://x.example', events: ['*'] },
    });
    expect((await other.api.get(`/webhook-subscriptions/${mine.body.documentId}`)).status).toBe(404);
    expect((await other.api.get(`/webhook-subscriptions/${mine.body.documentId}/deliveries`)).status).toBe(
      404,
    );
    expect((await other.api.delete(`/webhook-subscriptions/${mine.body.documentId}`)).status).toBe(404);
    await createCard(t.api, boardId, { title: 'private deal' });
    await run();
    expect(r.got.map((g) => g.body).join()).not.toContain('private deal');
    const { db } = await getApp();
    const pending = await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from domain_events_pending where organization_id in ${[...orgIds]}`,
    );
    expect(pending[0].n).toBe(0);
    await other.api.delete(`/webhook-subscriptions/${theirs.body.documentId}`);
    await t.api.delete(`/webhook-subscriptions/${mine.body.documentId}`);
  });
});
