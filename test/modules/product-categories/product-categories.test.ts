import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, unique } from '../../helpers/app.js';

describe('product categories', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test('creates, reads, lists, renames and deletes a category', async () => {
    const { api } = await newTenant();
    const created = await api.post('/product-categories', { data: { name: '  Hardware ' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Hardware' });
    expect(created.body.documentId).toMatch(/^[a-z0-9]{24}$/);
    const id = created.body.documentId;

    expect((await api.get(`/product-categories/${id}`)).body.name).toBe('Hardware');
    await api.post('/product-categories', { data: { name: 'Services' } });

    const list = await api.get('/product-categories', { sort: 'name:desc' });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: any) => c.name)).toEqual(['Services', 'Hardware']);
    expect(list.body.meta.pagination).toEqual({ page: 1, pageSize: 25, pageCount: 1, total: 2 });

    const filtered = await api.get('/product-categories', { 'filters[name][$containsi]': 'hard' });
    expect(filtered.body.data.map((c: any) => c.name)).toEqual(['Hardware']);

    const renamed = await api.put(`/product-categories/${id}`, { data: { name: 'Tools' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Tools');

    const del = await api.delete(`/product-categories/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ documentId: id, deleted: true });
    expect((await api.get(`/product-categories/${id}`)).status).toBe(404);
  });

  test('a duplicate name is a 400 naming the key', async () => {
    const { api } = await newTenant();
    await api.post('/product-categories', { data: { name: 'Hardware' } });
    const dup = await api.post('/product-categories', { data: { name: 'Hardware' } });
    expect(dup.status).toBe(400);
    expect(dup.body.error.name).toBe('ValidationError');
    expect(dup.body.error.details.duplicateKeys).toEqual(['name']);

    const other = await api.post('/product-categories', { data: { name: 'Other' } });
    const renamed = await api.put(`/product-categories/${other.body.documentId}`, {
      data: { name: 'Hardware' },
    });
    expect(renamed.status).toBe(400);
    expect(renamed.body.error.details.duplicateKeys).toEqual(['name']);
  });

  test('bad input is a 400 with per-field errors', async () => {
    const { api } = await newTenant();
    const empty = await api.post('/product-categories', { data: { name: '  ' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.errors[0].path).toContain('name');
    expect((await api.post('/product-categories', { data: { name: 'x', extra: 1 } })).status).toBe(400);
    expect((await api.post('/product-categories', { name: 'x' })).status).toBe(400);
    expect((await api.get('/product-categories', { 'filters[secret][$eq]': 'x' })).status).toBe(400);
    expect((await api.get('/product-categories', { 'pagination[pageSize]': '101' })).status).toBe(400);
  });

  test('unknown ids are 404 on read, update and delete', async () => {
    const { api } = await newTenant();
    const missing = 'a'.repeat(24);
    expect((await api.get(`/product-categories/${missing}`)).status).toBe(404);
    expect((await api.put(`/product-categories/${missing}`, { data: { name: 'x' } })).status).toBe(404);
    const del = await api.delete(`/product-categories/${missing}`);
    expect(del.status).toBe(404);
    expect(del.body.error.name).toBe('NotFoundError');
  });

  test('members and viewers read; only admins write', async () => {
    const tenant = await newTenant();
    const { body } = await tenant.api.post('/product-categories', { data: { name: unique('c') } });
    for (const role of ['member', 'viewer'] as const) {
      const { api } = await addMember(tenant, role);
      expect((await api.get('/product-categories')).body.data).toHaveLength(1);
      expect((await api.get(`/product-categories/${body.documentId}`)).status).toBe(200);
      const create = await api.post('/product-categories', { data: { name: unique('c') } });
      expect(create.status).toBe(403);
      expect(create.body.error.name).toBe('ForbiddenError');
      expect((await api.put(`/product-categories/${body.documentId}`, { data: { name: 'y' } })).status).toBe(
        403,
      );
      expect((await api.delete(`/product-categories/${body.documentId}`)).status).toBe(403);
    }
    const admin = await addMember(tenant, 'admin');
    expect((await admin.api.post('/product-categories', { data: { name: unique('c') } })).status).toBe(201);
  });

  test('deleting a category keeps its products, without a category', async () => {
    const { api } = await newTenant();
    const cat = await api.post('/product-categories', { data: { name: 'Hardware' } });
    const prod = await api.post('/products', {
      data: { name: 'Hammer', sku: 'HAM-1', price: 10, category: cat.body.documentId },
    });
    expect(prod.body.category).toEqual({ documentId: cat.body.documentId, name: 'Hardware' });
    expect((await api.delete(`/product-categories/${cat.body.documentId}`)).status).toBe(200);
    const after = await api.get(`/products/${prod.body.documentId}`);
    expect(after.status).toBe(200);
    expect(after.body.category).toBeNull();
  });

  test('a request without a token is 401', async () => {
    const { api } = await newTenant();
    const res = await api.request({
      method: 'GET',
      url: '/api/product-categories',
      headers: { authorization: '' },
    });
    expect(res.status).toBe(401);
  });
});
