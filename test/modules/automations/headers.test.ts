import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { HEADER_MASK } from '../../../src/modules/automations/headers.js';
import { sealLegacyHeaders } from '../../../src/modules/automations/seal-legacy.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';
import { allowLoopback, automationWorld, receiver } from './helpers.js';

/**
 * Issue 30, item 4: `http_request` header values are write-only, like every other credential: stored sealed,
 * answered as names with masked values (create, read, list, update), kept on update unless replaced, removable
 * with `null`, never carried to another origin, and never readable by another organization.
 */
const world = automationWorld();
let app: FastifyInstance;
let hook: Awaited<ReturnType<typeof receiver>>;

beforeAll(async () => {
  hook = await receiver();
  // Loopback receivers are allowlisted, as in every outbound test (DESIGN.md §11).
  app = await buildApp({ config: allowLoopback(), db: (await getApp()).db });
  await app.ready();
});
afterAll(async () => {
  await world.close();
  await app?.close();
  await hook?.close();
});

const masked = (...names: string[]) => Object.fromEntries(names.map((n) => [n, HEADER_MASK]));

async function setup() {
  const t = await world.track(await newTenant(app));
  const { boardId } = await createPipeline(t.api);
  const path = `/h-${Math.random().toString(36).slice(2, 10)}`;
  const action = (headers?: Record<string, string | null>, url = `${hook.url}${path}`) => ({
    type: 'http_request',
    params: { url, ...(headers ? { headers } : {}) },
  });
  const created = await t.api.post('/automations', {
    data: {
      name: 'Notify ERP',
      board: boardId,
      trigger: { event: 'card.created' },
      actions: [action({ Authorization: 'Bearer s3cr3t-one', 'X-Api-Key': 'k3y-one' })],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  /** Creates a card, runs the background work, answers the headers the receiver got for it. */
  const fire = async () => {
    const before = hook.got.filter((r) => r.url === path).length;
    await createCard(t.api, boardId);
    await world.cycle();
    const calls = hook.got.filter((r) => r.url === path);
    expect(calls.length).toBe(before + 1);
    return calls[calls.length - 1].headers;
  };
  return { t, boardId, id: created.body.documentId as string, created: created.body, action, fire, path };
}

describe('http_request headers are write-only', () => {
  test('create, read and list show the names with masked values; the row holds them sealed', async () => {
    const { t, id, created } = await setup();
    const headers = masked('Authorization', 'X-Api-Key');
    expect(created.actions[0].params.headers).toEqual(headers);
    expect((await t.api.get(`/automations/${id}`)).body.actions[0].params.headers).toEqual(headers);
    const list = await t.api.get('/automations');
    expect(list.body.data[0].actions[0].params.headers).toEqual(headers);
    for (const body of [created, list.body]) expect(JSON.stringify(body)).not.toMatch(/s3cr3t|k3y-one/);
    const [row] = await queryRows<{ actions: string }>(
      (await getApp()).db.system,
      sql`select actions::text as actions from automations where document_id = ${id}`,
    );
    expect(row.actions).not.toMatch(/s3cr3t|k3y-one/);
    expect(JSON.parse(row.actions)[0].params.sealedHeaders.Authorization).toMatch(/^v1\./);
  });

  test('an update keeps the values it does not replace; null removes one; the mask keeps one', async () => {
    const { t, id, action, fire } = await setup();
    // Not touching actions at all (a rename): every value kept.
    expect((await t.api.put(`/automations/${id}`, { data: { name: 'Renamed' } })).status).toBe(200);
    let got = await fire();
    expect(got.authorization).toBe('Bearer s3cr3t-one');
    expect(got['x-api-key']).toBe('k3y-one');

    // What a client that read the automation sends back (masked values): nothing changes.
    const read = (await t.api.get(`/automations/${id}`)).body;
    const same = await t.api.put(`/automations/${id}`, { data: { actions: read.actions } });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    got = await fire();
    expect([got.authorization, got['x-api-key']]).toEqual(['Bearer s3cr3t-one', 'k3y-one']);

    // One replaced, one removed, one added, one not sent (kept); names match case-insensitively.
    const upd = await t.api.put(`/automations/${id}`, {
      data: {
        actions: [action({ authorization: 'Bearer s3cr3t-two', 'x-api-key': null, 'X-Tenant': 'acme' })],
      },
    });
    expect(upd.status, JSON.stringify(upd.body)).toBe(200);
    expect(upd.body.actions[0].params.headers).toEqual(masked('authorization', 'X-Tenant'));
    got = await fire();
    expect(got.authorization).toBe('Bearer s3cr3t-two');
    expect(got['x-api-key']).toBeUndefined();
    expect(got['x-tenant']).toBe('acme');

    // Actions sent without headers: the stored ones are kept (write-only values are never lost by omission).
    expect((await t.api.put(`/automations/${id}`, { data: { actions: [action()] } })).status).toBe(200);
    got = await fire();
    expect([got.authorization, got['x-tenant']]).toEqual(['Bearer s3cr3t-two', 'acme']);
  });

  test('the mask with nothing to keep is a 400 naming the header; values never follow a new origin', async () => {
    const { t, id, action } = await setup();
    const unknown = await t.api.put(`/automations/${id}`, {
      data: { actions: [action({ 'X-Other': HEADER_MASK })] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.errors[0].path).toEqual(['actions', 0, 'params', 'headers', 'X-Other']);
    const created = await t.api.post('/automations', {
      data: {
        name: 'x',
        trigger: { event: 'card.created' },
        actions: [action({ Authorization: HEADER_MASK })],
      },
    });
    expect(created.status).toBe(400);

    // Another origin (a different port on the same host): the stored values are not carried.
    const elsewhere = hook.url.replace(
      /:(\d+)$/,
      (_m, p) => `:${Number(p) === 65535 ? 65534 : Number(p) + 1}`,
    );
    const moved = await t.api.put(`/automations/${id}`, {
      data: { actions: [action({ Authorization: HEADER_MASK }, `${elsewhere}/x`)] },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.details.errors[0].message).toMatch(/origin changed/);
    const dropped = await t.api.put(`/automations/${id}`, {
      data: { actions: [action(undefined, `${elsewhere}/x`)] },
    });
    expect(dropped.status).toBe(200);
    expect(dropped.body.actions[0].params.headers).toBeUndefined();
    // Back to the first origin: the values are gone for good (they were not kept in hiding).
    const back = await t.api.put(`/automations/${id}`, { data: { actions: [action()] } });
    expect(back.body.actions[0].params.headers).toBeUndefined();
  });

  test('rows saved before sealing (clear headers) are masked in answers and still sent', async () => {
    const { t, id, fire } = await setup();
    await (await getApp()).db.system.execute(
      sql`update automations set actions = jsonb_set(actions #- '{0,params,sealedHeaders}', '{0,params,headers}',
            '{"X-Legacy": "legacy-value"}'::jsonb) where document_id = ${id}`,
    );
    expect((await t.api.get(`/automations/${id}`)).body.actions[0].params.headers).toEqual(
      masked('X-Legacy'),
    );
    expect((await fire())['x-legacy']).toBe('legacy-value');
  });

  test('the start after an upgrade seals clear values left by 0.1.0; they are still sent', async () => {
    const { t, id, fire } = await setup();
    const { db, config } = await getApp();
    await db.system.execute(
      sql`update automations set actions = jsonb_set(actions #- '{0,params,sealedHeaders}', '{0,params,headers}',
            '{"X-Legacy": "legacy-clear-value"}'::jsonb) where document_id = ${id}`,
    );
    expect(await sealLegacyHeaders(config, db)).toBeGreaterThanOrEqual(1);
    const [row] = await queryRows<{ actions: string }>(
      db.system,
      sql`select actions::text as actions from automations where document_id = ${id}`,
    );
    expect(row.actions).not.toContain('legacy-clear-value');
    expect(JSON.parse(row.actions)[0].params.sealedHeaders['X-Legacy']).toMatch(/^v1\./);
    expect((await t.api.get(`/automations/${id}`)).body.actions[0].params.headers).toEqual(
      masked('X-Legacy'),
    );
    expect((await fire())['x-legacy']).toBe('legacy-clear-value');
    expect(await sealLegacyHeaders(config, db)).toBe(0);
  });

  test('another organization can neither read, list nor change them, nor use a copied sealed value', async () => {
    const a = await setup();
    const b = await setup();
    expect((await b.t.api.get(`/automations/${a.id}`)).status).toBe(404);
    expect((await b.t.api.get('/automations')).body.data.map((x: any) => x.documentId)).toEqual([b.id]);
    const put = await b.t.api.put(`/automations/${a.id}`, {
      data: { actions: [a.action({ Authorization: 'Bearer stolen' })] },
    });
    expect(put.status).toBe(404);
    expect((await a.fire()).authorization).toBe('Bearer s3cr3t-one');

    // A's sealed values copied onto B's automation (a database-level mix-up) do not open there: bound to A.
    const { db } = await getApp();
    await db.system.execute(
      sql`update automations set actions = (select actions from automations where document_id = ${a.id})
          where document_id = ${b.id}`,
    );
    await createCard(b.t.api, b.boardId);
    await world.cycle();
    const runs = (await b.t.api.get(`/automations/${b.id}/runs`)).body.data;
    expect(runs[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/cannot be opened/) });
    expect(hook.got.filter((r) => r.url === a.path).length).toBe(1);
    // And B cannot keep A's values by sending the mask: it has none of its own under that name.
    const steal = await b.t.api.put(`/automations/${b.id}`, {
      data: { actions: [b.action({ 'X-Api-Key': HEADER_MASK }, `${hook.url}${a.path}`)] },
    });
    expect(steal.status).toBe(400);
  });
});
