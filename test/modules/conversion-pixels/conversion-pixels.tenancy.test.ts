import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { newTenant, type Tenant } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';
import { conversionsEnv } from './helpers.js';

let env: Awaited<ReturnType<typeof conversionsEnv>>;
let a: Tenant;
let b: Tenant;
let boardA: string;
let pixelA: string;

beforeAll(async () => {
  env = await conversionsEnv();
  a = await newTenant(env.app);
  b = await newTenant(env.app);
  for (const t of [a, b]) {
    const [row] = await queryRows<{ id: number }>(
      env.db.system,
      sql`select id from organizations where slug = ${t.slug}`,
    );
    env.orgIds.add(Number(row.id));
  }
  const pipeline = await createPipeline(a.api);
  boardA = pipeline.boardId;
  const p = await a.api.post('/conversion-pixels', {
    data: {
      name: 'A pixel',
      pixelId: '111',
      accessToken: env.peer.accessToken,
      board: boardA,
      trigger: 'won',
    },
  });
  pixelA = p.body.documentId;
  const card = await createCard(a.api, boardA, { fields: { name: 'A', email: 'a@example.com', budget: 1 } });
  await a.api.post(`/boards/${boardA}/cards/${card.documentId}/move`, { phase: pipeline.phase('qualified') });
  await a.api.post(`/boards/${boardA}/cards/${card.documentId}/move`, { phase: pipeline.phase('won') });
  await env.cycle();
});
afterAll(() => env?.close());

describe('conversion pixels: tenancy', () => {
  test('another organization cannot read, change, verify, delete or read the events of a pixel', async () => {
    expect((await a.api.get(`/conversion-pixels/${pixelA}/events`)).body.data).toHaveLength(1);
    expect((await b.api.get(`/conversion-pixels/${pixelA}`)).status).toBe(404);
    expect((await b.api.get(`/conversion-pixels/${pixelA}/events`)).status).toBe(404);
    expect((await b.api.put(`/conversion-pixels/${pixelA}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await b.api.post(`/conversion-pixels/${pixelA}/verify`)).status).toBe(404);
    expect((await b.api.delete(`/conversion-pixels/${pixelA}`)).status).toBe(404);
    const list = await b.api.get('/conversion-pixels');
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
  });

  test("another organization's board cannot be named, and its won cards never reach this pixel", async () => {
    const foreign = await b.api.post('/conversion-pixels', {
      data: { name: 'x', pixelId: '222', accessToken: 'y', board: boardA, trigger: 'won' },
    });
    expect(foreign.status).toBe(400);
    const { boardId: boardB } = await createPipeline(b.api);
    const own = await b.api.post('/conversion-pixels', {
      data: {
        name: 'B pixel',
        pixelId: '222',
        accessToken: env.peer.accessToken,
        board: boardB,
        trigger: 'won',
      },
    });
    expect(own.status).toBe(201);
    await env.cycle();
    expect((await b.api.get(`/conversion-pixels/${own.body.documentId}/events`)).body.data).toEqual([]);
    expect(env.peer.received.filter((r) => r.pixelId === '222')).toEqual([]);
  });
});
