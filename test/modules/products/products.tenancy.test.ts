import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant } from '../../helpers/app.js';

describe('products: tenancy', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test('another organization cannot read, list, count, filter, change or delete a product', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const { body } = await a.api.post('/products', { data: { name: 'Secret', sku: 'SEC-1', price: 99 } });
    const id = body.documentId;

    expect((await b.api.get(`/products/${id}`)).status).toBe(404);
    expect((await b.api.put(`/products/${id}`, { data: { price: 1 } })).status).toBe(404);
    expect((await b.api.delete(`/products/${id}`)).status).toBe(404);

    const list = await b.api.get('/products');
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
    for (const query of [
      { 'filters[documentId][$eq]': id },
      { 'filters[sku][$eq]': 'SEC-1' },
      { 'filters[name][$containsi]': 'secret' },
    ]) {
      expect((await b.api.get('/products', query)).body.meta.pagination.total).toBe(0);
    }
    // SKUs are unique per organization only.
    expect((await b.api.post('/products', { data: { name: 'Mine', sku: 'SEC-1', price: 1 } })).status).toBe(
      201,
    );
    expect((await a.api.get(`/products/${id}`)).body).toMatchObject({ name: 'Secret', price: 99 });
  });
});
