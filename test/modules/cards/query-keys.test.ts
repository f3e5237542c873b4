import qs from 'qs';
import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant } from '../../helpers/app.js';
import { createCard, createPipeline } from './factory.js';

/**
 * Dynamic card fields are addressed by slug: a slug, operator or selector that names a member of
 * Object.prototype is an unknown name (400), in list filters, the aggregate and card writes alike.
 */

beforeAll(async () => {
  await getApp();
});

const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).filter((n) => n !== '__proto__');

async function setup() {
  const t = await newTenant();
  const { boardId } = await createPipeline(t.api);
  await createCard(t.api, boardId, { fields: { name: 'Ana', email: 'ana@example.com' } });
  await createCard(t.api, boardId, { fields: { name: 'Bia', email: 'bia@example.com', size: 'small' } });
  return { t, boardId };
}

describe('card filters with prototype names', () => {
  test('filters[fields][<name>], [fieldData][…], relation paths, sort and the aggregate → 400', async () => {
    const { t, boardId } = await setup();
    const list = (query: Record<string, unknown>) =>
      t.api.request({ method: 'GET', url: `/api/boards/${boardId}/cards?${qs.stringify(query)}` });
    const aggregate = (query: Record<string, unknown>) =>
      t.api.request({ method: 'GET', url: `/api/boards/${boardId}/cards/aggregate?${qs.stringify(query)}` });
    for (const name of PROTO_NAMES) {
      const filters: Record<string, unknown>[] = [
        { fields: { [name]: 'x' } },
        { fields: { [name]: { $eq: 'x' } } },
        { fields: { name: { [name]: 'x' } } },
        { fieldData: { [name]: 'x' } },
        { fieldData: { field: { [name]: 'name' } } },
        { fieldData: { value: { [name]: 'x' } } },
        { fieldData: { field: { slug: 'name' }, value: { val: { [name]: 'x' } } } },
        // an object where a slug is expected: String() of { toString: 'x' } used to throw (500)
        { fieldData: { field: { slug: { $in: { [name]: 'x' } } } } },
        { currentPhase: { [name]: 'x' } },
        { tags: { slug: { [name]: 'x' } } },
        { contact: { owner: { [name]: 'x' } } },
        { $or: [{ title: 'x' }, { [name]: 'x' }] },
      ];
      for (const f of filters) {
        for (const res of [await list({ filters: f }), await aggregate({ filters: f })]) {
          expect(res.status, `${qs.stringify({ filters: f })} → ${JSON.stringify(res.body)}`).toBe(400);
          expect(res.body.error.name).toBe('ValidationError');
        }
      }
      for (const sort of [name, `${name}:desc`, { [name]: 'desc' }, { title: name }]) {
        const res = await list({ sort });
        expect(res.status, `sort ${JSON.stringify(sort)} → ${JSON.stringify(res.body)}`).toBe(400);
      }
      expect((await list({ populate: [name] })).status).toBe(400);
      expect((await aggregate({ field: name })).status).toBe(400);
      expect((await aggregate({ fn: 'count', groupBy: name })).status).toBe(400);
    }
    // The same selectors with real names work: the 400s above are the names' doing.
    const ok = await list({ filters: { fields: { size: 'small' } }, sort: { title: 'desc' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.map((c: { fields: { name: string } }) => c.fields.name)).toEqual(['Bia']);
    const bySlug = await list({ filters: { fieldData: { field: { slug: { $in: ['size'] } } } } });
    expect(bySlug.body.meta.pagination.total).toBe(1);
  }, 120_000);

  test('card writes: prototype names as field slugs are unknown fields', async () => {
    const { t, boardId } = await setup();
    for (const name of PROTO_NAMES) {
      const res = await t.api.post(`/boards/${boardId}/cards`, {
        data: { fields: { name: 'Caio', email: 'caio@example.com', [name]: 'x' } },
      });
      expect(res.status, `${name} → ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.details.errors.map((e: { path: string[] }) => e.path.join('.'))).toContain(
        `fields.${name}`,
      );
    }
    const cards = await t.api.get(`/boards/${boardId}/cards`);
    expect(cards.body.meta.pagination.total).toBe(2);
  });
});
