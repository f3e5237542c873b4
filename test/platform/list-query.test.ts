import fc from 'fast-check';
import qs from 'qs';
import { describe, expect, test } from 'vitest';
import { addMember, newTenant, type Tenant } from '../helpers/app.js';

function query(t: Tenant, params: Record<string, unknown>) {
  return t.api.request({ method: 'GET', url: `/api/memberships?${qs.stringify(params)}` });
}

describe('list query language', () => {
  test('pagination defaults, bounds and meta', async () => {
    const t = await newTenant();
    await addMember(t, 'member');
    await addMember(t, 'viewer');
    const page = await query(t, { pagination: { page: 2, pageSize: 1 } });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.pagination).toEqual({ page: 2, pageSize: 1, pageCount: 3, total: 3 });
    for (const bad of [
      { pageSize: 0 },
      { pageSize: 101 },
      { page: 0 },
      { page: 'x' },
      { pageSize: 2.5 },
      { page: 1, start: 1 },
      { limit: -1 },
    ]) {
      const res = await query(t, { pagination: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
    }
    expect((await query(t, { pagination: { pageSize: 100 } })).status).toBe(200);
  });

  test('sort: string and array notation; unknown attribute or direction → 400', async () => {
    const t = await newTenant();
    await addMember(t, 'viewer');
    await addMember(t, 'admin');
    const asc = await query(t, { sort: 'role:asc' });
    expect(asc.body.data.map((m: any) => m.role)).toEqual(['admin', 'owner', 'viewer']);
    const desc = await query(t, { sort: ['role:desc', 'createdAt:asc'] });
    expect(desc.body.data.map((m: any) => m.role)).toEqual(['viewer', 'owner', 'admin']);
    for (const sort of ['nope:asc', 'role:sideways', ['role:asc', 'password:asc']]) {
      expect((await query(t, { sort })).status).toBe(400);
    }
  });

  test('filters: operators, $or/$and, nested relation paths', async () => {
    const t = await newTenant();
    const v = await addMember(t, 'viewer');
    await addMember(t, 'admin');
    const cases: [Record<string, unknown>, number][] = [
      [{ role: { $eq: 'viewer' } }, 1],
      [{ role: 'viewer' }, 1],
      [{ role: { $ne: 'viewer' } }, 2],
      [{ role: { $in: ['viewer', 'admin'] } }, 2],
      [{ role: { $notIn: ['viewer'] } }, 2],
      [{ role: { $contains: 'wne' } }, 1],
      [{ role: { $containsi: 'WNE' } }, 1],
      [{ role: { $contains: 'WNE' } }, 0],
      [{ role: { $startsWith: 'ad' } }, 1],
      [{ role: { $endsWith: 'er' } }, 2],
      [{ role: { $null: true } }, 0],
      [{ role: { $notNull: true } }, 3],
      [{ createdAt: { $lte: new Date(Date.now() + 60_000).toISOString() } }, 3],
      [{ createdAt: { $gte: new Date(Date.now() + 60_000).toISOString() } }, 0],
      [{ createdAt: { $lt: new Date(Date.now() + 60_000).toISOString() } }, 3],
      [{ createdAt: { $gt: new Date(Date.now() + 60_000).toISOString() } }, 0],
      [{ createdAt: { $gt: '2000-01-01T00:00:00Z', $lt: '2001-01-01T00:00:00Z' } }, 0],
      [{ $or: [{ role: 'viewer' }, { role: 'admin' }] }, 2],
      [{ $and: [{ role: { $ne: 'viewer' } }, { role: { $ne: 'admin' } }] }, 1],
      [{ $not: { role: 'viewer' } }, 2],
      [{ user: { email: { $eq: v.user.email } } }, 1],
      [{ user: { username: { $containsi: v.user.username.toUpperCase() } } }, 1],
    ];
    for (const [filters, n] of cases) {
      const res = await query(t, { filters });
      expect(res.status, JSON.stringify(filters)).toBe(200);
      expect(res.body.meta.pagination.total, JSON.stringify(filters)).toBe(n);
    }
  });

  test('unknown fields, private fields, unknown operators and bad values → 400, never ignored', async () => {
    const t = await newTenant();
    const bad = [
      { nope: { $eq: 1 } },
      { user: { passwordHash: { $eq: 'x' } } },
      { user: { password: { $eq: 'x' } } },
      { role: { $regex: '.*' } },
      { createdAt: { $gte: 'yesterday' } },
      { $or: 'x' },
      { user: 'x' },
      { $eq: 1 },
    ];
    for (const filters of bad) {
      const res = await query(t, { filters });
      expect(res.status, JSON.stringify(filters)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
      expect(res.body.error.details.errors[0].path[0]).toBe('filters');
    }
  });

  test('unknown top-level query parameters → 400', async () => {
    const t = await newTenant();
    const res = await query(t, { limit: 5 });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors[0].path).toContain('limit');
  });

  test('populate: unknown relation → 400', async () => {
    const t = await newTenant();
    expect((await query(t, { populate: ['user'] })).status).toBe(200);
    expect((await query(t, { populate: '*' })).status).toBe(200);
    expect((await query(t, { populate: ['organization'] })).status).toBe(400);
  });

  test("property: random filter trees never give a 500 and never return another tenant's rows", async () => {
    const a = await newTenant();
    const b = await newTenant();
    await addMember(b, 'viewer');
    const own = new Set((await a.api.get('/memberships')).body.data.map((m: any) => m.documentId));
    const foreign = (await b.api.get('/memberships')).body.data;
    const field = fc.constantFrom(
      'role',
      'documentId',
      'createdAt',
      'updatedAt',
      'nope',
      'organizationId',
      'id',
    );
    const op = fc.constantFrom(
      '$eq',
      '$ne',
      '$in',
      '$notIn',
      '$contains',
      '$containsi',
      '$startsWith',
      '$endsWith',
      '$gte',
      '$lte',
      '$lt',
      '$gt',
      '$null',
      '$notNull',
      '$between',
      '$foo',
    );
    const value = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom(
        'owner',
        'viewer',
        "'; drop table memberships; --",
        '%',
        '_',
        '\\',
        'true',
        '2024-01-01',
        ...foreign.map((m: any) => m.documentId),
      ),
      fc.integer(),
      fc.array(fc.constantFrom('owner', 'viewer', '1', ''), { maxLength: 3 }),
    );
    const leaf = fc.record({ f: field, o: op, v: value }).map(({ f, o, v }) => ({ [f]: { [o]: v } }));
    const userLeaf = fc
      .record({ f: fc.constantFrom('email', 'username', 'blocked', 'passwordHash'), o: op, v: value })
      .map(({ f, o, v }) => ({
        user: { [f]: { [o]: v } },
      }));
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        userLeaf,
        fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((xs) => ({ $or: xs })),
        fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((xs) => ({ $and: xs })),
      ),
    })).node;
    await fc.assert(
      fc.asyncProperty(tree, async (filters) => {
        const res = await query(a, { filters });
        expect([200, 400]).toContain(res.status);
        if (res.status === 200) for (const m of res.body.data) expect(own.has(m.documentId)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
