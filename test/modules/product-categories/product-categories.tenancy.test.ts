import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant } from '../../helpers/app.js';

describe('product categories: tenancy', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test('another organization cannot read, list, filter, change or delete a category', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const { body } = await a.api.post('/product-categories', { data: { name: 'Secret' } });
    const id = body.documentId;

    expect((await b.api.get(`/product-categories/${id}`)).status).toBe(404);
    expect((await b.api.put(`/product-categories/${id}`, { data: { name: 'Taken' } })).status).toBe(404);
    expect((await b.api.delete(`/product-categories/${id}`)).status).toBe(404);

    const list = await b.api.get('/product-categories');
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
    const filtered = await b.api.get('/product-categories', { 'filters[documentId][$eq]': id });
    expect(filtered.body.meta.pagination.total).toBe(0);

    // Names are unique per organization, not globally.
    expect((await b.api.post('/product-categories', { data: { name: 'Secret' } })).status).toBe(201);
    // A's category is untouched.
    expect((await a.api.get(`/product-categories/${id}`)).body.name).toBe('Secret');
  });

  test('another organization cannot link its products to the category', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const { body } = await a.api.post('/product-categories', { data: { name: 'Secret' } });
    const res = await b.api.post('/products', {
      data: { name: 'P', sku: 'P-1', price: 1, category: body.documentId },
    });
    expect(res.status).toBe(404);
    const filtered = await b.api.get('/products', { 'filters[category][documentId][$eq]': body.documentId });
    expect(filtered.body.meta.pagination.total).toBe(0);
  });
});
