import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { dispatchOrganization } from '../../../src/events.js';
import { addMember, apiClient, getApp, newTenant, testConfig } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';
import { allowLoopback, automationWorld, receiver } from './helpers.js';

const world = automationWorld();
type T = Awaited<ReturnType<typeof world.track>>;

async function runsOf(t: T, automationId: string) {
  const res = await t.api.get(`/automations/${automationId}/runs`);
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

describe('automations', () => {
  let t: T;
  const closers: (() => Promise<unknown>)[] = [];

  // The receivers listen on loopback: this file's API allows 127.0.0.1 (save-time check), as its runner does.
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await buildApp({ config: allowLoopback(), db: (await getApp()).db });
    await app.ready();
    t = await world.track(await newTenant(app));
  });
  afterAll(async () => {
    for (const c of closers) await c();
    await world.close();
    await app.close();
  });

  test('CRUD: created with its secret once, read back, listed, changed, disabled, deleted', async () => {
    const { boardId } = await createPipeline(t.api);
    const created = await t.api.post('/automations', {
      data: {
        name: 'Hot leads',
        board: boardId,
        trigger: { event: 'card.created', conditions: [{ field: 'card.value', op: 'gt', value: 1000 }] },
        actions: [{ type: 'add_tag', params: { tag: 'hot' } }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body).toMatchObject({ name: 'Hot leads', enabled: true, board: { documentId: boardId } });
    const id = created.body.documentId;
    const got = await t.api.get(`/automations/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    expect(got.body.trigger).toEqual({
      event: 'card.created',
      conditions: [{ field: 'card.value', op: 'gt', value: 1000 }],
    });
    const list = await t.api.get('/automations');
    expect(list.body.data.map((a: any) => a.documentId)).toContain(id);
    const renamed = await t.api.put(`/automations/${id}`, { data: { name: 'Renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', actions: [{ type: 'add_tag' }] });
    expect((await t.api.post(`/automations/${id}/disable`)).body.enabled).toBe(false);
    expect((await t.api.post(`/automations/${id}/enable`)).body.enabled).toBe(true);
    expect((await t.api.delete(`/automations/${id}`)).status).toBe(200);
    expect((await t.api.get(`/automations/${id}`)).status).toBe(404);
  });

  test('references are checked at save time: unknown phase, tag or field is a 400 naming the valid ones', async () => {
    const { boardId } = await createPipeline(t.api);
    const bad = async (actions: unknown[], extra: Record<string, unknown> = {}) => {
      const res = await t.api.post('/automations', {
        data: { name: 'x', board: boardId, trigger: { event: 'card.created' }, actions, ...extra },
      });
      expect(res.status).toBe(400);
      return res.body.error;
    };
    expect((await bad([{ type: 'move_card', params: { phase: 'nope' } }])).message).toMatch(
      /unknown phase nope; phases of this board: lead, qualified, won, lost/,
    );
    const tagErr = await bad([{ type: 'add_tag', params: { tag: 'warm' } }]);
    expect(tagErr.message).toMatch(/tags of this board: cold, hot/);
    expect((await bad([{ type: 'set_field', params: { slug: 'colour', value: 1 } }])).message).toMatch(
      /fields of this board: .*budget/,
    );
    expect(
      (await bad([{ type: 'set_field', params: { slug: 'size', value: 'huge' } }])).details.errors[0].path,
    ).toEqual(['actions', 0, 'params', 'value']);
    expect((await bad([{ type: 'assign', params: { membership: 'm'.repeat(24) } }])).message).toMatch(
      /no membership/,
    );
    // A card action needs a card trigger; a board action needs the board.
    const noCard = await t.api.post('/automations', {
      data: {
        name: 'x',
        trigger: { event: 'contact.created' },
        actions: [{ type: 'set_due_date', params: { inHours: 1 } }],
      },
    });
    expect(noCard.status).toBe(400);
    expect(noCard.body.error.message).toMatch(/must be a card event/);
    const noBoard = await t.api.post('/automations', {
      data: {
        name: 'x',
        trigger: { event: 'card.created' },
        actions: [{ type: 'add_tag', params: { tag: 'hot' } }],
      },
    });
    expect(noBoard.body.error.message).toMatch(/set `board`/);
    const unknownType = await t.api.post('/automations', {
      data: { name: 'x', trigger: { event: 'card.created' }, actions: [{ type: 'explode', params: {} }] },
    });
    expect(unknownType.status).toBe(400);
    const unknownBoard = await bad([], {
      board: 'b'.repeat(24),
      actions: [{ type: 'set_due_date', params: { inHours: 1 } }],
    });
    expect(unknownBoard.message).toMatch(/Unknown board/);
  });

  test('a matching card is moved, tagged, given a field, a due date (source automation) and a task; runs show each result', async () => {
    const { boardId } = await createPipeline(t.api);
    const member = await addMember(t, 'member');
    const created = await t.api.post('/automations', {
      data: {
        name: 'Big deals',
        board: boardId,
        trigger: { event: 'card.created', conditions: [{ field: 'card.value', op: 'gte', value: 1000 }] },
        actions: [
          { type: 'move_card', params: { phase: 'qualified' } },
          { type: 'add_tag', params: { tag: 'hot' } },
          { type: 'set_field', params: { slug: 'seats', value: 12 } },
          { type: 'set_due_date', params: { inHours: 24 } },
          { type: 'assign', params: { membership: member.membershipId } },
          { type: 'create_task', params: { name: 'Call the lead', dueInHours: 2 } },
        ],
      },
    });
    expect(created.status).toBe(201);
    const big = await createCard(t.api, boardId, { value: 5000 });
    const small = await createCard(t.api, boardId, { value: 10 });
    await world.cycle();
    const card = (await t.api.get(`/boards/${boardId}/cards/${big.documentId}`)).body;
    expect(card.currentPhase.slug).toBe('qualified');
    expect(card.tags.map((x: any) => x.slug)).toEqual(['hot']);
    expect(card.fields.seats).toBe(12);
    expect(card.dueDateSource).toBe('automation');
    expect(new Date(card.dueDate).getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect(card.assignees.map((m: any) => m.documentId)).toContain(member.membershipId);
    const untouched = (await t.api.get(`/boards/${boardId}/cards/${small.documentId}`)).body;
    expect(untouched.currentPhase.slug).toBe('lead');
    const tasks = await t.api.get('/tasks');
    expect(tasks.body.data.find((x: any) => x.name === 'Call the lead')?.card?.documentId).toBe(
      big.documentId,
    );

    const runs = await runsOf(t, created.body.documentId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: 'succeeded',
      eventType: 'card.created',
      depth: 0,
      subject: `card:${big.documentId}`,
    });
    expect(runs[0].results.map((r: any) => [r.type, r.ok])).toEqual([
      ['move_card', true],
      ['add_tag', true],
      ['set_field', true],
      ['set_due_date', true],
      ['assign', true],
      ['create_task', true],
    ]);
    // Once per event: another pass runs nothing again.
    await world.cycle();
    expect(await runsOf(t, created.body.documentId)).toHaveLength(1);
  });

  test('card moves follow the board rules: a blocked transition fails the action with the rule, the next one still runs', async () => {
    const { boardId, phase } = await createPipeline(t.api);
    const a = await t.api.post('/automations', {
      data: {
        name: 'Give up',
        board: boardId,
        trigger: {
          event: 'card.phase_changed',
          conditions: [{ field: 'to.slug', op: 'eq', value: 'qualified' }],
        },
        actions: [
          { type: 'move_card', params: { phase: 'lost' } },
          { type: 'remove_tag', params: { tag: 'cold' } },
        ],
      },
    });
    expect(a.status).toBe(201);
    const card = await createCard(t.api, boardId, { tags: ['cold'] });
    const moved = await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, {
      phase: phase('qualified'),
    });
    expect(moved.status).toBe(200);
    await world.cycle();
    const [run] = await runsOf(t, a.body.documentId);
    expect(run.status).toBe('failed');
    expect(run.results[0]).toMatchObject({ type: 'move_card', ok: false });
    expect(run.results[0].message).toMatch(/Lost|transition|not allowed/i);
    expect(run.results[1]).toMatchObject({ type: 'remove_tag', ok: true });
    const after = (await t.api.get(`/boards/${boardId}/cards/${card.documentId}`)).body;
    expect(after.currentPhase.slug).toBe('qualified');
    expect(after.tags).toEqual([]);
  });

  test('loop guard: two automations moving a card back and forth stop after 3 levels; the rest are skipped runs', async () => {
    const { boardId, phase } = await createPipeline(t.api);
    const back = await t.api.post('/automations', {
      data: {
        name: 'Back to lead',
        board: boardId,
        trigger: {
          event: 'card.phase_changed',
          conditions: [{ field: 'to.slug', op: 'eq', value: 'qualified' }],
        },
        actions: [{ type: 'move_card', params: { phase: 'lead' } }],
      },
    });
    const forth = await t.api.post('/automations', {
      data: {
        name: 'Forth to qualified',
        board: boardId,
        trigger: { event: 'card.phase_changed', conditions: [{ field: 'to.slug', op: 'eq', value: 'lead' }] },
        actions: [{ type: 'move_card', params: { phase: 'qualified' } }],
      },
    });
    const card = await createCard(t.api, boardId, {
      fields: { name: 'A', email: 'a@example.com', budget: 10 },
    });
    await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, { phase: phase('qualified') });
    await world.cycle(undefined, 12);
    const all = [
      ...(await runsOf(t, back.body.documentId)),
      ...(await runsOf(t, forth.body.documentId)),
    ].sort((x, y) => x.depth - y.depth);
    expect(all.map((r) => [r.depth, r.status])).toEqual([
      [0, 'succeeded'],
      [1, 'succeeded'],
      [2, 'succeeded'],
      [3, 'succeeded'],
      [4, 'skipped'],
    ]);
    expect(all[4].message).toMatch(/loop guard/);
    const after = (await t.api.get(`/boards/${boardId}/cards/${card.documentId}`)).body;
    expect(after.currentPhase.slug).toBe('qualified');
  });

  test('a disabled automation creates no runs; conditions on a contact event', async () => {
    const a = await t.api.post('/automations', {
      data: {
        name: 'VIP contacts',
        trigger: {
          event: 'contact.created',
          conditions: [{ field: 'contact.name', op: 'contains', value: 'VIP' }],
        },
        actions: [{ type: 'create_task', params: { name: 'Welcome the VIP' } }],
      },
    });
    expect(a.status).toBe(201);
    await t.api.post('/contacts', { data: { name: 'VIP Ana', email: 'vip@example.com' } });
    await t.api.post('/contacts', { data: { name: 'Bob', email: 'bob@example.com' } });
    await world.cycle();
    expect((await runsOf(t, a.body.documentId)).map((r) => r.status)).toEqual(['succeeded']);
    await t.api.post(`/automations/${a.body.documentId}/disable`);
    await t.api.post('/contacts', { data: { name: 'VIP Carla', email: 'carla@example.com' } });
    await world.cycle();
    expect(await runsOf(t, a.body.documentId)).toHaveLength(1);
  });

  test('a merge is a contact.updated event of the survivor (changes include merged)', async () => {
    const a = await t.api.post('/automations', {
      data: {
        name: 'After merge',
        trigger: {
          event: 'contact.updated',
          conditions: [{ field: 'changes', op: 'contains', value: 'merged' }],
        },
        actions: [{ type: 'create_task', params: { name: 'Check the merged contact' } }],
      },
    });
    const one = await t.api.post('/contacts', { data: { name: 'Merge One', email: 'm1@example.com' } });
    const two = await t.api.post('/contacts', { data: { name: 'Merge Two', phone: '+5511999990000' } });
    const merged = await t.api.post('/contacts/merge', {
      survivor: one.body.documentId,
      merged: [two.body.documentId],
    });
    expect(merged.status).toBe(200);
    await world.cycle();
    const runs = await runsOf(t, a.body.documentId);
    expect(runs.map((r) => [r.subject, r.status])).toEqual([[`contact:${one.body.documentId}`, 'succeeded']]);
  });

  test('http_request: Standard Webhooks signature, the event as body, retried on a 5xx with the same webhook-id', async () => {
    const r = await receiver((n) => (n === 1 ? 503 : 200));
    closers.push(r.close);
    const a = await t.api.post('/automations', {
      data: {
        name: 'Tell the ERP',
        trigger: { event: 'contact.created' },
        actions: [{ type: 'http_request', params: { url: `${r.url}/erp`, headers: { 'x-custom': 'yes' } } }],
      },
    });
    expect(a.status).toBe(201);
    const contact = await t.api.post('/contacts', { data: { name: 'Erp Person', email: 'erp@example.com' } });
    await world.cycle();
    let [run] = await runsOf(t, a.body.documentId);
    expect(run.status).toBe('pending');
    expect(run.message).toMatch(/HTTP 503.*will retry/);
    // The retry is due later (backoff): made due now.
    const { db } = await getApp();
    await db.system.execute(sql`update automation_runs set next_attempt_at = now() where id = ${run.id}`);
    await world.cycle();
    [run] = await runsOf(t, a.body.documentId);
    expect(run).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(run.results[0]).toMatchObject({ type: 'http_request', ok: true, output: { status: 200 } });
    expect(r.got).toHaveLength(2);
    expect(r.got[0].headers['webhook-id']).toBe(r.got[1].headers['webhook-id']);
    const last = r.got[1];
    expect(last.headers['x-custom']).toBe('yes');
    const verified = new Webhook(a.body.secret.replace(/^whsec_/, '')).verify(last.body, {
      'webhook-id': String(last.headers['webhook-id']),
      'webhook-timestamp': String(last.headers['webhook-timestamp']),
      'webhook-signature': String(last.headers['webhook-signature']),
    }) as any;
    expect(verified).toMatchObject({
      type: 'contact.created',
      data: { contact: { documentId: contact.body.documentId } },
    });
  });

  test('http_request SSRF: loopback without the allowlist, and a redirect to a private address, are refused', async () => {
    const r = await receiver();
    closers.push(r.close);
    const make = async (path: string) =>
      (
        await t.api.post('/automations', {
          data: {
            name: `ssrf ${path}`,
            trigger: { event: 'contact.created' },
            actions: [{ type: 'http_request', params: { url: `${r.url}${path}` } }],
          },
        })
      ).body.documentId as string;
    const direct = await make('/direct');
    await t.api.post('/contacts', { data: { name: 'Ssrf One', email: 'ssrf1@example.com' } });
    // No allowlist: 127.0.0.1 itself is refused before connecting.
    await world.cycle(testConfig({ CRM_OUTBOUND_ALLOWLIST: '' }));
    const [d] = await runsOf(t, direct);
    expect(d.status).toBe('failed');
    expect(d.results[0].message).toMatch(/refused/);
    expect(r.got).toHaveLength(0);
    await t.api.post(`/automations/${direct}/disable`);

    for (const path of ['/redirect', '/redirect-local']) {
      const id = await make(path);
      await t.api.post('/contacts', { data: { name: `Ssrf ${path}`, email: `s${path.length}@example.com` } });
      await world.cycle();
      const [run] = await runsOf(t, id);
      expect(run.status).toBe('failed');
      expect(run.results[0].message).toMatch(/refused/);
      await t.api.post(`/automations/${id}/disable`);
    }
    // The receiver saw the two first hops only, never the private targets.
    expect(r.got.map((g) => g.url)).toEqual(['/redirect', '/redirect-local']);
  });

  test('http_request SSRF at save time: an internal target is a 400 naming the rule and the action', async () => {
    // The shared API has no allowlist: loopback is internal there.
    const strict = apiClient((await getApp()).app, {
      authorization: `Bearer ${t.user.jwt}`,
      'x-tenant-id': t.slug,
    });
    const withUrl = (url: string) => ({
      name: `save-time ${url}`,
      trigger: { event: 'contact.created' },
      actions: [
        { type: 'create_task', params: { name: 'first' } },
        { type: 'http_request', params: { url } },
      ],
    });
    const before = (await strict.get('/automations')).body.meta.pagination.total;
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://[::7f00:1]/x',
      'http://[2002:c0a8:101::]/x',
      'http://[64:ff9b::10.0.0.1]/x',
      'http://169.254.169.254/latest/meta-data/',
      'http://localhost:8080/x',
    ]) {
      const res = await strict.post('/automations', { data: withUrl(url) });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details).toMatchObject({
        rule: 'public_address',
        errors: [{ path: ['data', 'actions', 1, 'params', 'url'], name: 'public_address' }],
      });
    }
    expect((await strict.get('/automations')).body.meta.pagination.total).toBe(before);
    const ok = await strict.post('/automations', { data: withUrl('https://8.8.8.8/x') });
    expect(ok.status).toBe(201);
    const changed = await strict.put(`/automations/${ok.body.documentId}`, {
      data: { actions: withUrl('http://[fe80::1]/x').actions },
    });
    expect(changed.status).toBe(400);
    expect(changed.body.error.details.rule).toBe('public_address');
    expect(
      (await strict.put(`/automations/${ok.body.documentId}`, { data: { enabled: false } })).status,
    ).toBe(200);
    await strict.delete(`/automations/${ok.body.documentId}`);
  });

  test('several dispatchers and runners at once: each event runs once per automation, in order per card', async () => {
    const r = await receiver();
    closers.push(r.close);
    const { boardId } = await createPipeline(t.api);
    const a = await t.api.post('/automations', {
      data: {
        name: 'Concurrent',
        board: boardId,
        trigger: { event: 'card.updated' },
        actions: [{ type: 'http_request', params: { url: `${r.url}/c` } }],
      },
    });
    const cards = [];
    for (let i = 0; i < 6; i++) cards.push(await createCard(t.api, boardId));
    for (let round = 1; round <= 3; round++)
      for (const c of cards)
        await t.api.put(`/boards/${boardId}/cards/${c.documentId}`, { data: { title: `v${round}` } });
    // Three workers racing (on PostgreSQL really in parallel: SKIP LOCKED and the leases keep them apart).
    await Promise.all([world.cycle(), world.cycle(), world.cycle()]);
    await world.cycle();
    const runs = (await t.api.get(`/automations/${a.body.documentId}/runs?pagination[pageSize]=100`)).body
      .data;
    expect(runs).toHaveLength(18);
    expect(
      runs.every((x: any) => x.status === 'succeeded' && x.attempts === 1),
      JSON.stringify(runs.map((x: any) => [x.status, x.attempts, x.results?.[0]?.message])),
    ).toBe(true);
    expect(r.got).toHaveLength(18);
    expect(new Set(r.got.map((g) => g.headers['webhook-id'])).size).toBe(18);
    // Per card, the receiver saw v1, v2, v3 in order.
    for (const c of cards) {
      const titles = r.got
        .map((g) => JSON.parse(g.body))
        .filter((e) => e.data.card.documentId === c.documentId)
        .map((e) => e.data.card.title);
      expect(titles).toEqual(['v1', 'v2', 'v3']);
    }
  });

  test('a run interrupted after its first action resumes at the next one (the first is not repeated)', async () => {
    const { boardId } = await createPipeline(t.api);
    const a = await t.api.post('/automations', {
      data: {
        name: 'Resumable',
        board: boardId,
        trigger: { event: 'card.created' },
        actions: [
          { type: 'create_task', params: { name: 'Only once' } },
          { type: 'add_tag', params: { tag: 'cold' } },
        ],
      },
    });
    const card = await createCard(t.api, boardId);
    const { db } = await getApp();
    // The dispatcher wrote the run; a worker claimed it, did the first action (its result committed with the
    // task) and died: the run is pending with a lease that has run out.
    for (const orgId of world.orgIds) await dispatchOrganization(db, orgId);
    const [pending] = (await t.api.get(`/automations/${a.body.documentId}/runs`)).body.data;
    expect(pending.status).toBe('pending');
    await t.api.post('/tasks', { data: { name: 'Only once', card: card.documentId } });
    await db.system.execute(
      sql`update automation_runs set attempts = 1,
            results = '[{"type":"create_task","ok":true,"message":null}]'::jsonb where id = ${pending.id}`,
    );
    await world.cycle();
    const [run] = (await t.api.get(`/automations/${a.body.documentId}/runs`)).body.data;
    expect(run).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(run.results.map((x: any) => x.type)).toEqual(['create_task', 'add_tag']);
    const tasks = (await t.api.get('/tasks?pagination[pageSize]=100')).body.data.filter(
      (x: any) => x.name === 'Only once',
    );
    expect(tasks).toHaveLength(1);
    expect(
      (await t.api.get(`/boards/${boardId}/cards/${card.documentId}`)).body.tags.map((x: any) => x.slug),
    ).toEqual(['cold']);
  });

  test('admins only, and the automations plan feature', async () => {
    const member = await addMember(t, 'member');
    expect((await member.api.get('/automations')).status).toBe(403);
    expect(
      (
        await member.api.post('/automations', {
          data: {
            name: 'x',
            trigger: { event: 'contact.created' },
            actions: [{ type: 'create_task', params: { name: 'x' } }],
          },
        })
      ).status,
    ).toBe(403);
    const pro = await newTenant();
    const { db } = await getApp();
    await db.system.execute(sql`update organizations set plan = 'pro' where slug = ${pro.slug}`);
    const refused = await pro.api.get('/automations');
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ feature: 'automations' });
  });
});
