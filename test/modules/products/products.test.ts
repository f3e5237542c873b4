import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant } from '../../helpers/app.js';

describe('products', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test('creates a product with every field and reads it back', async () => {
    const { api } = await newTenant();
    const cat = await api.post('/product-categories', { data: { name: 'Software' } });
    const res = await api.post('/products', {
      data: {
        name: 'CRM licence',
        sku: 'CRM-PRO',
        price: 49.9,
        minPrice: 39.5,
        description: 'Per seat, per month',
        unit: 'seat',
        active: true,
        category: cat.body.documentId,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'CRM licence',
      sku: 'CRM-PRO',
      price: 49.9,
      minPrice: 39.5,
      description: 'Per seat, per month',
      unit: 'seat',
      active: true,
      category: { documentId: cat.body.documentId, name: 'Software' },
    });
    expect(typeof res.body.createdAt).toBe('string');
    const got = await api.get(`/products/${res.body.documentId}`);
    expect(got.body).toEqual(res.body);
  });

  test('name, sku and price are required; defaults fill the rest', async () => {
    const { api } = await newTenant();
    const missing = await api.post('/products', { data: { name: 'X' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.name).toBe('ValidationError');
    const paths = missing.body.error.details.errors.map((e: any) => e.path.at(-1));
    expect(paths).toEqual(expect.arrayContaining(['sku', 'price']));

    const minimal = await api.post('/products', { data: { name: 'X', sku: 'X-1', price: 0 } });
    expect(minimal.status).toBe(201);
    expect(minimal.body).toMatchObject({
      minPrice: null,
      description: null,
      unit: null,
      active: true,
      category: null,
    });
  });

  test('a duplicate sku (case-insensitive) is a 400 naming the key', async () => {
    const { api } = await newTenant();
    await api.post('/products', { data: { name: 'A', sku: 'SKU-1', price: 1 } });
    const dup = await api.post('/products', { data: { name: 'B', sku: 'sku-1', price: 2 } });
    expect(dup.status).toBe(400);
    expect(dup.body.error.name).toBe('ValidationError');
    expect(dup.body.error.details.duplicateKeys).toEqual(['sku']);

    const other = await api.post('/products', { data: { name: 'C', sku: 'SKU-2', price: 2 } });
    const upd = await api.put(`/products/${other.body.documentId}`, { data: { sku: 'SKU-1' } });
    expect(upd.status).toBe(400);
    expect(upd.body.error.details.duplicateKeys).toEqual(['sku']);
  });

  test('bad values are 400s with paths', async () => {
    const { api } = await newTenant();
    const cases = [
      { name: 'A', sku: 'A', price: -1 },
      { name: 'A', sku: 'A', price: 1.234 },
      { name: 'A', sku: 'A', price: '10' },
      { name: 'A', sku: 'A', price: 10, active: 'yes' },
      { name: 'A', sku: 'A', price: 10, color: 'red' },
      { name: 'A', sku: ' ', price: 10 },
    ];
    for (const data of cases) {
      const res = await api.post('/products', { data });
      expect(res.status, JSON.stringify(data)).toBe(400);
      expect(res.body.error.details.errors.length).toBeGreaterThan(0);
    }
    const above = await api.post('/products', { data: { name: 'A', sku: 'A', price: 10, minPrice: 11 } });
    expect(above.status).toBe(400);
    expect(above.body.error.details.errors[0].path).toEqual(['minPrice']);
  });

  test('an unknown category is a 404 naming the field', async () => {
    const { api } = await newTenant();
    const res = await api.post('/products', {
      data: { name: 'A', sku: 'A', price: 1, category: 'z'.repeat(24) },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.details.errors[0].path).toEqual(['category']);
  });

  test('updates are partial; minPrice is checked against the merged price; category can be cleared', async () => {
    const { api } = await newTenant();
    const cat = await api.post('/product-categories', { data: { name: 'Hardware' } });
    const { body } = await api.post('/products', {
      data: { name: 'Drill', sku: 'DR-1', price: 100, minPrice: 80, category: cat.body.documentId },
    });
    const upd = await api.put(`/products/${body.documentId}`, {
      data: { description: 'Cordless', active: false },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({
      name: 'Drill',
      price: 100,
      minPrice: 80,
      description: 'Cordless',
      active: false,
    });
    expect(upd.body.category.name).toBe('Hardware');

    const tooLow = await api.put(`/products/${body.documentId}`, { data: { price: 70 } });
    expect(tooLow.status).toBe(400);
    expect(tooLow.body.error.details.errors[0].path).toEqual(['minPrice']);

    const both = await api.put(`/products/${body.documentId}`, {
      data: { price: 70, minPrice: null, category: null },
    });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ price: 70, minPrice: null, category: null });
  });

  test('lists with filters, sort and pagination', async () => {
    const { api } = await newTenant();
    const hw = await api.post('/product-categories', { data: { name: 'Hardware' } });
    const items = [
      { name: 'Anvil', sku: 'AN-1', price: 300, category: hw.body.documentId },
      { name: 'Bolt', sku: 'BO-1', price: 0.5, category: hw.body.documentId, active: false },
      { name: 'Consulting', sku: 'CO-1', price: 150, unit: 'h' },
      { name: 'Drill', sku: 'DR-1', price: 120, category: hw.body.documentId },
    ];
    for (const data of items) expect((await api.post('/products', { data })).status).toBe(201);

    const all = await api.get('/products');
    expect(all.body.data.map((p: any) => p.name)).toEqual(['Anvil', 'Bolt', 'Consulting', 'Drill']);

    const byPrice = await api.get('/products', { sort: 'price:desc', 'pagination[pageSize]': '2' });
    expect(byPrice.body.data.map((p: any) => p.name)).toEqual(['Anvil', 'Consulting']);
    expect(byPrice.body.meta.pagination).toEqual({ page: 1, pageSize: 2, pageCount: 2, total: 4 });
    const page2 = await api.get('/products', {
      sort: 'price:desc',
      'pagination[pageSize]': '2',
      'pagination[page]': '2',
    });
    expect(page2.body.data.map((p: any) => p.name)).toEqual(['Drill', 'Bolt']);

    const active = await api.get('/products', {
      'filters[active][$eq]': 'true',
      'filters[price][$gte]': '100',
    });
    expect(active.body.data.map((p: any) => p.name)).toEqual(['Anvil', 'Consulting', 'Drill']);

    const inCat = await api.get('/products', {
      'filters[category][name][$eq]': 'Hardware',
      sort: 'sku:desc',
    });
    expect(inCat.body.data.map((p: any) => p.sku)).toEqual(['DR-1', 'BO-1', 'AN-1']);

    const noCat = await api.get('/products', { 'filters[category][$null]': 'true' });
    expect(noCat.body.data.map((p: any) => p.name)).toEqual(['Consulting']);

    const search = await api.get('/products', {
      'filters[$or][0][name][$containsi]': 'dri',
      'filters[$or][1][sku][$startsWith]': 'CO',
    });
    expect(search.body.data.map((p: any) => p.name)).toEqual(['Consulting', 'Drill']);

    expect((await api.get('/products', { populate: 'category' })).status).toBe(200);
    expect((await api.get('/products', { 'filters[cost][$eq]': '1' })).status).toBe(400);
    expect((await api.get('/products', { sort: 'description:asc' })).status).toBe(400);
    expect((await api.get('/products', { 'filters[price][$gte]': 'abc' })).status).toBe(400);
    expect((await api.get('/products', { bogus: '1' })).status).toBe(400);
  });

  test('deletes a product; unknown ids are 404', async () => {
    const { api } = await newTenant();
    const { body } = await api.post('/products', { data: { name: 'A', sku: 'A', price: 1 } });
    const del = await api.delete(`/products/${body.documentId}`);
    expect(del.body).toEqual({ documentId: body.documentId, deleted: true });
    expect((await api.get(`/products/${body.documentId}`)).status).toBe(404);
    expect((await api.put(`/products/${body.documentId}`, { data: { name: 'B' } })).status).toBe(404);
    expect((await api.delete(`/products/${body.documentId}`)).status).toBe(404);
    // The SKU is free again.
    expect((await api.post('/products', { data: { name: 'A', sku: 'A', price: 1 } })).status).toBe(201);
  });

  test('members and viewers read products; only admins write them', async () => {
    const tenant = await newTenant();
    const { body } = await tenant.api.post('/products', { data: { name: 'A', sku: 'A', price: 1 } });
    for (const role of ['member', 'viewer'] as const) {
      const { api } = await addMember(tenant, role);
      expect((await api.get('/products')).body.meta.pagination.total).toBe(1);
      expect((await api.get(`/products/${body.documentId}`)).status).toBe(200);
      expect((await api.post('/products', { data: { name: 'B', sku: 'B', price: 1 } })).status).toBe(403);
      expect((await api.put(`/products/${body.documentId}`, { data: { price: 2 } })).status).toBe(403);
      expect((await api.delete(`/products/${body.documentId}`)).status).toBe(403);
    }
  });
});
