import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import Fastify from 'fastify';
import { beforeAll, describe, expect, test } from 'vitest';
import { installErrorHandling } from '../../src/platform/http/errors.js';
import { fitsScale, numericColumn } from '../../src/platform/http/numbers.js';
import { getApp, newTenant, type Res, type Tenant } from '../helpers/app.js';
import { openApiDocument } from '../helpers/openapi.js';
import { productBoard } from '../modules/products/factory.js';

// Issue 30 item 7: numbers the database cannot hold are a 400, not a 500.

beforeAll(async () => {
  await getApp();
});

/** JSON number literals, as written on the wire (-0 and 2^53 + 1 do not survive JSON.stringify). */
const EXTREMES = [
  '4.9e-324',
  '-4.9e-324',
  '1e308',
  '-1e308',
  '-0',
  '9007199254740993',
  '-9007199254740993',
  '2147483648',
  '0.30000000000000004',
  '1.0000001',
  '999999999999.995',
  '1e-7',
];

/** A body with the number placeholder replaced by a literal. */
const withLiteral = (body: unknown, literal: string) => JSON.stringify(body).replace('"__NUMBER__"', literal);

describe('numericColumn', () => {
  test('finite, within the column and its bounds, at most `scale` decimals; never rounded', () => {
    const quantity = numericColumn(14, 3, { positive: true, max: 1_000_000 });
    for (const ok of [0.001, 1, 6.5, 1_000_000, 123.456])
      expect(quantity.safeParse(ok).success, `${ok}`).toBe(true);
    for (const bad of [
      4.9e-324,
      0,
      -0,
      -1,
      0.0001,
      1_000_000.001,
      1e308,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ])
      expect(quantity.safeParse(bad).success, `${bad}`).toBe(false);
    const money = numericColumn(14, 2);
    expect(money.safeParse(999_999_999_999.99).success).toBe(true);
    expect(money.safeParse(-999_999_999_999.99).success).toBe(true);
    for (const bad of [1e12, 999_999_999_999.995, 0.1 + 0.2, 2 ** 53 + 1, -1e308, 4.9e-324])
      expect(money.safeParse(bad).success, `${bad}`).toBe(false);
    expect(money.safeParse(-0).success).toBe(true);
    expect(fitsScale(19.99, 2)).toBe(true);
    expect(fitsScale(1.005, 2)).toBe(false);
  });
});

describe('the reproduction: a card line quantity the column rounds to 0', () => {
  test('PUT and POST with quantity 4.9e-324 answer 400 naming quantity, not 500', async () => {
    const t = await newTenant();
    const product = await t.api.post('/products', { data: { name: 'Panel', sku: 'P-1', price: 10 } });
    const { boardId, cardId } = await productBoard(t.api, { enableProducts: true });
    const base = `/api/boards/${boardId}/cards/${cardId}/products`;
    const line = await t.api.post(base, { data: { product: product.body.documentId, quantity: 1 } });
    expect(line.status).toBe(201);
    const send = (method: 'POST' | 'PUT', url: string, data: Record<string, unknown>, literal: string) =>
      t.api.request({
        method,
        url,
        headers: { 'content-type': 'application/json' },
        payload: withLiteral({ data }, literal),
      });
    for (const [method, url, data] of [
      ['PUT', `${base}/${line.body.documentId}`, { quantity: '__NUMBER__' }],
      ['POST', base, { product: product.body.documentId, quantity: '__NUMBER__' }],
    ] as const) {
      const res = await send(method, url, data, '4.9e-324');
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
      expect(res.body.error.details.errors.map((e: { path: string[] }) => e.path.join('.'))).toContain(
        'quantity',
      );
      // Refused by the route's schema, before the database (whose refusal is only the last line: below).
      expect(res.body.error.message).not.toMatch(/database/);
    }
    // More decimals than numeric(14,3) keeps: refused, not rounded.
    const fine = await send('PUT', `${base}/${line.body.documentId}`, { quantity: '__NUMBER__' }, '2.0001');
    expect(fine.status).toBe(400);
    expect((await t.api.get(base)).body.data[0].quantity).toBe(1);
  });
});

describe('database refusals that slip past validation answer 400 naming the field', () => {
  test('a check violation (23514) and a numeric overflow (22003), as the database raises them', async () => {
    const { db } = await getApp();
    const raised = async (statement: ReturnType<typeof sql>) => {
      try {
        await db.system.execute(statement);
      } catch (err) {
        return err;
      }
      throw new Error('the statement did not fail');
    };
    const check = await raised(
      sql.raw(`do $$ begin raise exception 'new row violates check constraint' using errcode = 'check_violation',
        constraint = 'card_products_quantity_check', table = 'card_products'; end $$`),
    );
    const overflow = await raised(sql`select ${'1e12'}::numeric(14,2)`);
    const app = Fastify();
    installErrorHandling(app);
    app.post('/check', async () => {
      throw check;
    });
    app.post('/overflow', async () => {
      throw overflow;
    });
    const checked = await app.inject({
      method: 'POST',
      url: '/check',
      payload: { data: { quantity: 1e-9 } },
    });
    expect(checked.statusCode).toBe(400);
    expect(checked.json().error).toMatchObject({
      status: 400,
      name: 'ValidationError',
      details: { errors: [{ path: ['quantity'] }] },
    });
    const over = await app.inject({
      method: 'POST',
      url: '/overflow',
      payload: { data: { name: 'x', lines: [{ price: 1e12 }] } },
    });
    expect(over.statusCode).toBe(400);
    expect(over.json().error.details.errors).toEqual([
      { path: ['lines', '0', 'price'], message: 'out of range', name: 'ValidationError' },
    ]);
    await app.close();
  });
});

// ---- every numeric body field of the OpenAPI document

type Schema = Record<string, any>;

interface NumericField {
  method: 'post' | 'put' | 'patch';
  path: string;
  /** Keys from the body's root; '[]' is an array's first item. */
  at: string[];
  /** A value its schema accepts. */
  plain: string;
}

/** The lowest value a number schema accepts (1 when it says nothing), as a literal. */
function plainValue(s: Schema): string {
  const low = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
  return String(Math.min(low, s.maximum ?? low));
}

function numericFields(doc: Schema, operations: Awaited<ReturnType<typeof openApiDocument>>['operations']) {
  const resolve = (s: Schema | undefined): Schema | undefined =>
    s?.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()]) : s;
  const found: NumericField[] = [];
  for (const { method, path, op } of operations) {
    if (method !== 'post' && method !== 'put' && method !== 'patch') continue;
    const schema = op.requestBody?.content?.['application/json']?.schema;
    const walk = (raw: Schema | undefined, at: string[], depth: number) => {
      const s = resolve(raw);
      if (!s || depth > 8) return;
      for (const k of ['anyOf', 'oneOf', 'allOf']) for (const alt of s[k] ?? []) walk(alt, at, depth + 1);
      const types = [s.type].flat();
      if (types.includes('number') || types.includes('integer'))
        found.push({ method, path, at, plain: plainValue(s) });
      for (const [k, v] of Object.entries<Schema>(s.properties ?? {})) walk(v, [...at, k], depth + 1);
      if (s.items) walk(s.items, [...at, '[]'], depth + 1);
    };
    walk(schema, [], 0);
  }
  // The same field reached through two alternatives of a union: once.
  const seen = new Set<string>();
  return found.filter((f) => {
    const key = `${f.method} ${f.path} ${f.at.join('.')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A plausible value for a schema: its example, else its required properties filled in. */
function synthesize(doc: Schema, raw: Schema | undefined, depth = 0): unknown {
  const s = raw?.$ref ? doc.components.schemas[raw.$ref.split('/').pop()] : raw;
  if (!s || depth > 8) return undefined;
  if (s.examples?.length) return structuredClone(s.examples[0]);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return synthesize(doc, alt.find((a: Schema) => a.type !== 'null') ?? alt[0], depth + 1);
  if (s.allOf) return synthesize(doc, s.allOf[0], depth + 1);
  const type = [s.type].flat()[0];
  if (type === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of s.required ?? []) out[key] = synthesize(doc, s.properties?.[key], depth + 1);
    return out;
  }
  // One item at least: the numeric fields inside items are reached.
  if (type === 'array')
    return Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => synthesize(doc, s.items, depth + 1));
  if (type === 'string') {
    if (s.format === 'email') return 'someone@test.example';
    if (s.format === 'date-time') return '2026-12-01T10:00:00.000Z';
    if (s.format === 'date') return '2026-12-01';
    if (s.format === 'uri') return 'https://example.com/x';
    return `v${Math.random().toString(36).slice(2, 10)}`.slice(0, Math.max(1, s.maxLength ?? 12));
  }
  if (type === 'number' || type === 'integer')
    return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
  if (type === 'boolean') return false;
  return undefined;
}

/** The schema of the value at `key` of a value of schema `s` ('[]': an item), through refs and unions. */
function childSchema(doc: Schema, raw: Schema | undefined, key: string): Schema | undefined {
  const s = raw?.$ref ? doc.components.schemas[raw.$ref.split('/').pop()] : raw;
  if (!s) return undefined;
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) {
    const found = childSchema(doc, alt, key);
    if (found) return found;
  }
  return key === '[]' ? s.items : s.properties?.[key];
}

/**
 * Sets `value` at `at` in `body`; an object or array item missing on the way is synthesized from its schema (its
 * required fields filled in), so the number arrives in an otherwise valid body.
 */
function setAt(
  doc: Schema,
  schema: Schema | undefined,
  body: unknown,
  at: string[],
  value: unknown,
): unknown {
  if (at.length === 0) return value;
  const [head, ...rest] = at;
  const child = childSchema(doc, schema, head);
  const made = (current: unknown) => current ?? synthesize(doc, child);
  if (head === '[]') {
    const list = Array.isArray(body) ? [...body] : [];
    list[0] = setAt(doc, child, made(list[0]), rest, value);
    return list;
  }
  const obj = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as object) } : {};
  const record = obj as Record<string, unknown>;
  record[head] = setAt(doc, child, rest.length ? made(record[head]) : record[head], rest, value);
  return obj;
}

/** Document ids of one of each resource a numeric field's route needs, by collection path. */
async function buildWorld(t: Tenant, doc: Schema) {
  const world: Record<string, string> = { '/api/memberships': t.membershipId };
  const created = async (collection: string, res: Res) => {
    expect(res.status, `${collection}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    world[collection] = res.body.documentId ?? res.body.data?.documentId;
  };
  // The product PUT /products/{id} changes, and the one lines and quotes name (no floor price to trip over).
  await created(
    '/api/products',
    await t.api.post('/products', { data: { name: 'Panel', sku: 'P-1', price: 10 } }),
  );
  await created(
    'product on lines',
    await t.api.post('/products', { data: { name: 'Cable', sku: 'C-1', price: 10 } }),
  );
  await created('/api/contacts', await t.api.post('/contacts', { data: { name: 'Ana' } }));
  // The board and card of the document's examples (their fields, tags and phases name each other).
  const example = (path: string) => doc.paths[path].post.requestBody.content['application/json'].example;
  const boardBody = example('/api/boards');
  boardBody.data.boardSettings = { enableProducts: true };
  await created('/api/boards', await t.api.post('/boards', boardBody));
  const boardId = world['/api/boards'];
  await created(
    '/api/boards/{boardId}/cards',
    await t.api.post(`/boards/${boardId}/cards`, example('/api/boards/{boardId}/cards')),
  );
  const cardId = world['/api/boards/{boardId}/cards'];
  const board = (await t.api.get(`/boards/${boardId}`)).body;
  world['/api/boards/{boardId}/phases'] = board.phases[0].documentId;
  await created(
    '/api/boards/{boardId}/fields',
    await t.api.post(`/boards/${boardId}/fields`, {
      data: { label: 'Size', type: 'number', phase: board.phases[0].documentId },
    }),
  );
  await created(
    '/api/boards/{boardId}/cards/{cardId}/products',
    await t.api.post(`/boards/${boardId}/cards/${cardId}/products`, {
      data: { product: world['product on lines'], quantity: 1 },
    }),
  );
  await created(
    '/api/quotes',
    await t.api.post('/quotes', {
      data: { title: 'Q', items: [{ product: world['product on lines'], quantity: 1 }] },
    }),
  );
  await created('/api/tasks', await t.api.post('/tasks', { data: { name: 'Call' } }));
  return world;
}

/** References in a body (documentIds of the example's made-up resources) pointed at the world's. */
const references: Record<string, string> = {
  product: 'product on lines',
  contact: '/api/contacts',
  board: '/api/boards',
  card: '/api/boards/{boardId}/cards',
  membership: '/api/memberships',
  owner: '/api/memberships',
  assignee: '/api/memberships',
};

/** Values unique per organization or board: made afresh for each request. */
const uniqueKeys = new Set(['name', 'sku', 'slug', 'label']);

function pointAtWorld(value: unknown, world: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => pointAtWorld(v, world));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      typeof v === 'string' && references[k] && world[references[k]]
        ? world[references[k]]
        : typeof v === 'string' && uniqueKeys.has(k)
          ? `u${Math.random().toString(36).slice(2, 10)}`
          : pointAtWorld(v, world),
    ]),
  );
}

/** The path with each parameter replaced by the world's resource of the collection before it. */
function concretePath(path: string, world: Record<string, string>) {
  const parts = path.split('/');
  return parts
    .map((p, i) =>
      p.startsWith('{') ? (world[parts.slice(0, i).join('/')] ?? 'zzzzzzzzzzzzzzzzzzzzzzzz') : p,
    )
    .join('/');
}

describe('every numeric body field of the OpenAPI document, with extreme values', () => {
  test('every answer is 2xx or 4xx, never 5xx', async () => {
    const { doc, operations } = await openApiDocument();
    const fields = numericFields(doc, operations);
    expect(fields.length).toBeGreaterThan(40);
    const t = await newTenant();
    const world = await buildWorld(t, doc);
    const contentOf = (f: NumericField) =>
      operations.find((o) => o.method === f.method && o.path === f.path)?.op.requestBody.content[
        'application/json'
      ];
    /** The operation's example body (the first of its examples), or one synthesized from its schema. */
    const baseOf = (f: NumericField) => {
      const content = contentOf(f);
      const example =
        content.example ?? (Object.values<{ value?: unknown }>(content.examples ?? {})[0]?.value as unknown);
      const base = example === undefined ? synthesize(doc, content.schema) : structuredClone(example);
      // A status in an example moves the resource on (a sent quote's items are fixed): left out.
      if (base?.data && typeof base.data === 'object') delete base.data.status;
      return base;
    };
    /** The example's own value at the field, else the lowest its schema accepts. */
    const plainOf = (f: NumericField) => {
      const current = f.at.reduce<any>((v, k) => (k === '[]' ? v?.[0] : v?.[k]), baseOf(f));
      return typeof current === 'number' ? String(current) : f.plain;
    };
    const send = (f: NumericField, literal: string) =>
      t.api.request({
        method: f.method.toUpperCase() as 'POST',
        url: concretePath(f.path, world),
        headers: { 'content-type': 'application/json' },
        payload: withLiteral(
          pointAtWorld(setAt(doc, contentOf(f).schema, baseOf(f), f.at, '__NUMBER__'), world),
          literal,
        ),
      });

    // The check reaches the database: these take a plain value (each field's baseline) with a 2xx.
    const reached = new Set<string>();
    for (const f of fields) {
      const res = await send(f, plainOf(f));
      expect(
        res.status,
        `${f.method} ${f.path} ${f.at.join('.')} = 1: ${JSON.stringify(res.body)}`,
      ).toBeLessThan(500);
      if (res.status < 300) reached.add(`${f.method.toUpperCase()} ${f.path}`);
      // What a create made is what the operations on `{id}` of its collection change next.
      if (f.method === 'post' && res.status < 300 && res.body?.documentId)
        world[f.path] ??= res.body.documentId;
    }
    expect([...reached]).toEqual(
      expect.arrayContaining([
        'PUT /api/boards/{boardId}/cards/{cardId}/products/{id}',
        'POST /api/boards/{boardId}/cards/{cardId}/products',
        'POST /api/products',
        'PUT /api/products/{id}',
        'POST /api/boards/{boardId}/cards',
        'PUT /api/boards/{boardId}/cards/{id}',
        'POST /api/quotes',
        'PUT /api/quotes/{id}',
        'POST /api/boards/{boardId}/phases',
        'PUT /api/tasks/{id}',
      ]),
    );

    const failures: string[] = [];
    const check = async (f: NumericField, literal: string) => {
      const res = await send(f, literal);
      if (res.status >= 500 || res.status < 200)
        failures.push(
          `${f.method} ${f.path} ${f.at.join('.')} = ${literal}: ${res.status} ${JSON.stringify(res.body)}`,
        );
      return res.status < 500;
    };
    for (const f of fields) for (const literal of EXTREMES) await check(f, literal);
    expect(failures).toEqual([]);

    // And random ones: any double (denormals, huge, negative zero), any big integer, any decimal string.
    const literal = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? '-0' : String(d))),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc
        .tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.stringMatching(/^[0-9]{1,12}$/))
        .map(([i, d]) => `${i}.${d}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), literal, (f, l) => check(f, l)),
      {
        numRuns: Number(process.env.NUMERIC_FUZZ_RUNS ?? 300),
        seed: Number(process.env.NUMERIC_FUZZ_SEED ?? 30_7),
      },
    );
    expect(failures).toEqual([]);
  });
});
