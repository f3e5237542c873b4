import fc from 'fast-check';
import qs from 'qs';
import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant, type Res, type Tenant } from '../helpers/app.js';
import { emailCampaign } from '../modules/campaigns/helpers.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';

/**
 * Query keys are own properties only: a filter, sort or populate key that names a member of Object.prototype
 * (`constructor`, `toString`, `__proto__`…) is an unknown name, a 400 in the envelope, on every list route;
 * never a 500, never a condition that silently vanishes (`{"filters":{"constructor":true}}` once deleted
 * every contact of the tenant).
 */

const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype);

/** Every GET operation of the OpenAPI document that reads the list query language. */
async function listOperations(): Promise<{ path: string; params: string[] }[]> {
  const { app } = await getApp();
  const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  const ops: { path: string; params: string[] }[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    const params = (item.get?.parameters ?? [])
      .filter((p: any) => p.in === 'query')
      .map((p: any) => p.name as string);
    if (params.some((p: string) => p === 'filters' || p === 'sort' || p === 'populate'))
      ops.push({ path, params });
  }
  return ops;
}

interface Fixture {
  t: Tenant;
  ops: { url: string; params: string[] }[];
}

let fixture: Fixture;

beforeAll(async () => {
  const t = await newTenant();
  const { boardId } = await createPipeline(t.api);
  const card = await createCard(t.api, boardId);
  const contact = (await t.api.post('/contacts', { data: { name: 'Ana' } })).body;
  await t.api.post('/contacts', { data: { name: 'Bia' } });
  const team = (await t.api.post('/teams', { data: { name: 'Sul' } })).body;
  const segment = (
    await t.api.post('/segments', {
      data: { name: 'all', filters: { logic: 'AND', conditions: [{ field: 'name', op: 'notEmpty' }] } },
    })
  ).body;
  const channel = (
    await t.api.post('/chat-channels', {
      data: {
        name: 'WA',
        type: 'whatsapp',
        settings: { phoneNumberId: '1001', businessAccountId: '2002', appId: '3003' },
        credentials: { accessToken: 'token', appSecret: 'secret', verifyToken: 'verify' },
      },
    })
  ).body;
  const { campaign } = await emailCampaign(t, { city: 'query-keys' });
  const byResource: Record<string, string> = {
    'chat-channels': channel.documentId,
    campaigns: campaign.documentId,
    boards: boardId,
    cards: card.documentId,
    contacts: contact.documentId,
    teams: team.documentId,
    segments: segment.documentId,
  };
  // /boards/{boardId}/cards/{cardId}/products, /segments/{id}/contacts: each {param} names the resource
  // segment just before it.
  const fill = (path: string) =>
    path.replace(/\/([a-z-]+)\/\{[^}]+\}/g, (_, resource: string) => `/${resource}/${byResource[resource]}`);
  const ops = (await listOperations()).map((op) => ({ url: fill(op.path), params: op.params }));
  for (const op of ops) {
    // Every route really answers with these ids, so a 400 below is the query's doing.
    const res = await t.api.request({ method: 'GET', url: op.url });
    if (res.status !== 200) throw new Error(`${op.url} → ${res.status} ${JSON.stringify(res.body)}`);
  }
  fixture = { t, ops };
}, 60_000);

function get(t: Tenant, url: string, query: Record<string, unknown>): Promise<Res> {
  return t.api.request({ method: 'GET', url: `${url}?${qs.stringify(query)}` });
}

function expect400(res: Res, what: string) {
  expect(res.status, `${what} → ${res.status} ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body.data, what).toBeNull();
  expect(res.body.error.status, what).toBe(400);
  // A validation error names the key; a query nested past the parser's depth limit (10) is refused before that.
  if (res.body.error.name !== 'ValidationError')
    expect(res.body.error, what).toMatchObject({
      name: 'BadRequestError',
      message: expect.stringMatching(/depth/i),
    });
  expect(typeof res.body.error.message, what).toBe('string');
}

/** `{ [key]: value }` with `key` an own property even when it is `__proto__`. */
const own = (key: string, value: unknown) => ({ [key]: value });

const protoName = fc.constantFrom(...PROTO_NAMES);
const leafValue = fc.oneof(
  fc.constantFrom('x', '1', 'true', '', "'; drop table contacts; --"),
  fc.constantFrom<unknown>({ $eq: 'x' }, { $null: 'true' }, ['a', 'b'], { $in: ['a'] }),
);
const relationName = fc.constantFrom(
  'owner',
  'team',
  'user',
  'contact',
  'currentPhase',
  'assignees',
  'tags',
  'membership',
  'card',
  'category',
);
const knownField = fc.constantFrom('documentId', 'name', 'createdAt', 'title');

/** A filter tree with a prototype name somewhere a model key is looked up. */
const protoFilter = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.tuple(protoName, leafValue).map(([k, v]) => own(k, v)),
    // a prototype name as the operator of a real field
    fc.tuple(knownField, protoName, leafValue).map(([f, k, v]) => own(f, own(k, v))),
    // a relation path ending in a prototype name
    fc.tuple(relationName, protoName, leafValue).map(([r, k, v]) => own(r, own(k, v))),
    fc.tuple(relationName, tie('node')).map(([r, n]) => own(r, n)),
    fc.array(tie('node'), { minLength: 1, maxLength: 2 }).map((xs) => ({ $or: xs })),
    fc.array(tie('node'), { minLength: 1, maxLength: 2 }).map((xs) => ({ $and: xs })),
    tie('node').map((n) => ({ $not: n })),
  ),
})).node as fc.Arbitrary<Record<string, unknown>>;

const protoSort = fc.oneof(
  protoName,
  fc.tuple(protoName, fc.constantFrom('asc', 'desc', 'DESC')).map(([k, d]) => `${k}:${d}`),
  protoName.map((k) => `documentId:asc,${k}:desc`),
  protoName.map((k) => [`${k}:desc`]),
  fc.tuple(protoName, fc.constantFrom('asc', 'desc')).map(([k, d]) => own(k, d)),
  fc.tuple(protoName, fc.constantFrom('asc', 'desc')).map(([k, d]) => ({ documentId: 'asc', ...own(k, d) })),
  fc.tuple(protoName, fc.constantFrom('asc', 'desc')).map(([k, d]) => [own(k, d)]),
  // a prototype name as the direction
  protoName.map((k) => own('documentId', k)),
  protoName.map((k) => `documentId:${k}`),
);

const protoPopulate = fc.oneof(
  protoName,
  protoName.map((k) => [k]),
  protoName.map((k) => own(k, 'true')),
);

describe('prototype names as query keys, on every list route of the OpenAPI document', () => {
  test('the sweep covers the list routes', () => {
    const urls = fixture.ops.map((o) => o.url);
    for (const p of ['/api/contacts', '/api/memberships', '/api/segments', '/api/tasks', '/api/teams'])
      expect(urls).toContain(p);
    expect(urls.some((u) => /\/api\/boards\/\w+\/cards$/.test(u))).toBe(true);
    expect(urls.some((u) => /\/api\/contacts\/\w+\/activities$/.test(u))).toBe(true);
    expect(fixture.ops.length).toBeGreaterThanOrEqual(14);
  });

  test('every prototype name at the top of filters, in sort (string and object form) and populate → 400', async () => {
    const { t, ops } = fixture;
    for (const op of ops) {
      for (const name of PROTO_NAMES) {
        const queries: Record<string, unknown>[] = [];
        if (op.params.includes('filters')) queries.push({ filters: own(name, 'x') });
        if (op.params.includes('filters')) queries.push({ filters: own(name, { $eq: 'x' }) });
        if (op.params.includes('sort')) queries.push({ sort: name }, { sort: own(name, 'desc') });
        if (op.params.includes('populate')) queries.push({ populate: name }, { populate: own(name, 'true') });
        for (const query of queries) {
          expect400(await get(t, op.url, query), `${op.url} ${qs.stringify(query)}`);
        }
      }
    }
  }, 120_000);

  test('property: prototype names in nested filters, relation paths, sort and populate → always a 400', async () => {
    const { t, ops } = fixture;
    const op = fc.constantFrom(...ops);
    const query = fc.oneof(
      protoFilter.map((filters) => ({ filters })),
      protoSort.map((sort) => ({ sort })),
      protoPopulate.map((populate) => ({ populate })),
    );
    await fc.assert(
      fc.asyncProperty(op, query, async (o, q) => {
        const key = Object.keys(q)[0];
        fc.pre(o.params.includes(key));
        expect400(await get(t, o.url, q), `${o.url} ${qs.stringify(q)}`);
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  test('prototype names as top-level query parameters: a 400 on list routes, never a 500 on any GET', async () => {
    const { t, ops } = fixture;
    const { app } = await getApp();
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const ids: Record<string, string> = Object.fromEntries(
      ops.flatMap((o) => [...o.url.matchAll(/\/([a-z-]+)\/(\w{24})/g)].map((m) => [m[1], m[2]])),
    );
    const gets = Object.keys(doc.paths)
      .filter((p) => doc.paths[p].get)
      .map((p) =>
        p.replace(
          /\/([a-z-]+)\/\{[^}]+\}/g,
          (_, r: string) => `/${r}/${ids[r] ?? 'zzzzzzzzzzzzzzzzzzzzzzzz'}`,
        ),
      );
    const lists = new Set(ops.map((o) => o.url));
    const wrong: string[] = [];
    for (const url of gets) {
      for (const name of PROTO_NAMES.filter((n) => n !== '__proto__')) {
        for (const query of [`${name}=x`, `${name}[a]=x`, `pagination[${name}]=1`]) {
          const res = await t.api.request({ method: 'GET', url: `${url}?${query}` });
          if (res.status >= 500 || (lists.has(url) && res.status !== 400))
            wrong.push(`${url}?${query} → ${res.status}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  test('__proto__ anywhere in a query key is a 400, not a parameter silently dropped', async () => {
    const { t } = fixture;
    for (const raw of [
      'filters[__proto__][name]=x',
      'filters[name][__proto__]=x',
      '__proto__[x]=1',
      'sort[__proto__]=desc',
      'populate[__proto__]=true',
      'filters%5B__proto__%5D%5Bname%5D=x',
      'filters[%5F%5Fproto%5F%5F]=x',
    ]) {
      expect400(await t.api.request({ method: 'GET', url: `/api/contacts?${raw}` }), raw);
    }
    // The name itself is not special elsewhere: a value may say __proto__.
    const value = await t.api.request({ method: 'GET', url: '/api/contacts?filters[name][$eq]=__proto__' });
    expect(value.status).toBe(200);
    expect(value.body.data).toEqual([]);
  });

  test('the same keys in JSON bodies: bulk operations answer 400 and change nothing', async () => {
    const { t } = fixture;
    const before = (await t.api.get('/contacts')).body.meta.pagination.total;
    await fc.assert(
      fc.asyncProperty(protoFilter, fc.boolean(), async (filters, update) => {
        const res = update
          ? await t.api.post('/contacts/bulk-update', { filters, data: { city: 'Changed' } })
          : await t.api.post('/contacts/bulk-delete', { filters });
        // `__proto__` in a JSON body is refused by the body parser (400 BadRequestError); everything
        // else reaches the filter compiler (400 ValidationError).
        expect(res.status, `${JSON.stringify(filters)} → ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.data).toBeNull();
        expect(res.body.error.status).toBe(400);
      }),
      { numRuns: 150 },
    );
    const after = await t.api.get('/contacts', { 'filters[city][$eq]': 'Changed' });
    expect(after.body.meta.pagination.total).toBe(0);
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(before);
  }, 120_000);
});

describe('the bulk-delete repro', () => {
  test('{"filters":{"constructor":true}} deletes nothing and answers 400', async () => {
    const t = await newTenant();
    for (const name of ['Ana', 'Bia', 'Caio'])
      expect((await t.api.post('/contacts', { data: { name } })).status).toBe(201);
    for (const name of PROTO_NAMES) {
      const raw = `{"filters":{${JSON.stringify(name)}:true}}`;
      const res = await t.api.request({
        method: 'POST',
        url: '/api/contacts/bulk-delete',
        payload: raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, `${raw} → ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.data).toBeNull();
    }
    const constructorRes = await t.api.post('/contacts/bulk-delete', { filters: { constructor: true } });
    expect(constructorRes.body.error).toMatchObject({ status: 400, name: 'ValidationError' });
    expect(constructorRes.body.error.details.errors[0]).toMatchObject({
      path: ['filters', 'constructor'],
      message: 'unknown field constructor',
    });
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(3);
  });
});

describe('sort: the Strapi object form', () => {
  test('sort[name]=desc orders, several keys apply in order, and the array form still works', async () => {
    const t = await newTenant();
    const people = [
      { name: 'Ana', city: 'Recife' },
      { name: 'Caio', city: 'Natal' },
      { name: 'Bia', city: 'Recife' },
      { name: 'Duda', city: 'Natal' },
    ];
    for (const data of people) expect((await t.api.post('/contacts', { data })).status).toBe(201);
    const names = async (query: string) => {
      const res = await t.api.request({ method: 'GET', url: `/api/contacts?${query}` });
      expect(res.status, `${query} → ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.data.map((c: { name: string }) => c.name);
    };
    expect(await names('sort[name]=desc')).toEqual(['Duda', 'Caio', 'Bia', 'Ana']);
    expect(await names('sort[name]=asc')).toEqual(['Ana', 'Bia', 'Caio', 'Duda']);
    expect(await names('sort[name]=DESC')).toEqual(['Duda', 'Caio', 'Bia', 'Ana']);
    expect(await names('sort[city]=asc&sort[name]=desc')).toEqual(['Duda', 'Caio', 'Bia', 'Ana']);
    expect(await names('sort[city]=desc&sort[name]=asc')).toEqual(['Ana', 'Bia', 'Caio', 'Duda']);
    expect(await names('sort[0][city]=asc&sort[1][name]=asc')).toEqual(['Caio', 'Duda', 'Ana', 'Bia']);
    expect(await names('sort[0]=city:desc&sort[1]=name:desc')).toEqual(['Bia', 'Ana', 'Duda', 'Caio']);
    expect(await names('sort=city:asc,name:asc')).toEqual(['Caio', 'Duda', 'Ana', 'Bia']);
    // The pages of a desc sort stay disjoint and complete.
    const page = async (n: number) => names(`sort[name]=desc&pagination[page]=${n}&pagination[pageSize]=3`);
    expect([...(await page(1)), ...(await page(2))]).toEqual(['Duda', 'Caio', 'Bia', 'Ana']);

    for (const bad of [
      'sort[name]=sideways',
      'sort[name]=',
      'sort[name][x]=desc',
      'sort[nope]=asc',
      'sort[name]=asc&sort[nope]=desc',
      'sort[name:asc]=desc',
      'sort[searchText]=asc',
      'sort[0][name]=up',
    ]) {
      const res = await t.api.request({ method: 'GET', url: `/api/contacts?${bad}` });
      expect400(res, bad);
      expect(res.body.error.details.errors[0].path[0], bad).toBe('sort');
    }
  });
});
