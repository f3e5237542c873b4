import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { productBoard } from './factory.js';

async function products(t: Tenant) {
  const make = async (data: Record<string, unknown>) =>
    (await t.api.post('/products', { data })).body.documentId as string;
  return {
    panel: await make({ name: 'Solar panel', sku: 'SP-1', price: 250, minPrice: 200, unit: 'pc' }),
    install: await make({ name: 'Installation', sku: 'INS-1', price: 80, unit: 'h' }),
  };
}

describe('products on cards', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test("adds, lists, changes and removes lines; the card's value follows their total", async () => {
    const tenant = await newTenant();
    const { api } = tenant;
    const p = await products(tenant);
    const { boardId, cardId } = await productBoard(api, { enableProducts: true, autoUpdateCardValue: true });
    const base = `/boards/${boardId}/cards/${cardId}/products`;

    const first = await api.post(base, { data: { product: p.panel, quantity: 4 } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      product: p.panel,
      name: 'Solar panel',
      sku: 'SP-1',
      unit: 'pc',
      quantity: 4,
      unitPrice: 250,
      discount: 0,
      total: 1000,
    });
    const second = await api.post(base, {
      data: { product: p.install, quantity: 6.5, unitPrice: 70, discount: 10 },
    });
    expect(second.body.total).toBe(409.5);
    expect((await api.get(`/boards/${boardId}/cards/${cardId}`)).body.value).toBe(1409.5);

    const list = await api.get(base);
    expect(list.status).toBe(200);
    expect(list.body.data.map((l: any) => l.sku)).toEqual(['SP-1', 'INS-1']);
    expect(list.body.meta).toEqual({
      pagination: { page: 1, pageSize: 25, pageCount: 1, total: 2 },
      totals: { subtotal: 1455, discount: 45.5, total: 1409.5 },
    });
    const filtered = await api.get(base, { 'filters[sku][$eq]': 'INS-1' });
    expect(filtered.body.data).toHaveLength(1);
    expect(filtered.body.meta.totals.total).toBe(1409.5);

    const changed = await api.put(`${base}/${first.body.documentId}`, { data: { quantity: 2, discount: 5 } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ quantity: 2, unitPrice: 250, discount: 5, total: 475 });
    expect((await api.get(`/boards/${boardId}/cards/${cardId}`)).body.value).toBe(884.5);

    // Switching the product without a price takes the new product's price.
    const swapped = await api.put(`${base}/${first.body.documentId}`, { data: { product: p.install } });
    expect(swapped.body).toMatchObject({ sku: 'INS-1', unitPrice: 80, quantity: 2, total: 152 });

    const del = await api.delete(`${base}/${second.body.documentId}`);
    expect(del.body).toEqual({ documentId: second.body.documentId, deleted: true });
    expect((await api.get(`/boards/${boardId}/cards/${cardId}`)).body.value).toBe(152);
    await api.delete(`${base}/${first.body.documentId}`);
    expect((await api.get(`/boards/${boardId}/cards/${cardId}`)).body.value).toBe(0);
  });

  test('concurrent line writes on one card leave its value equal to the sum of its lines', async () => {
    const tenant = await newTenant();
    const p = await products(tenant);
    const { boardId, cardId } = await productBoard(tenant.api, {
      enableProducts: true,
      autoUpdateCardValue: true,
    });
    const base = `/boards/${boardId}/cards/${cardId}/products`;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        tenant.api.post(base, { data: { product: p.install, quantity: i + 1 } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const list = await tenant.api.get(base);
    expect(list.body.meta.totals.total).toBe(80 * 36);
    expect((await tenant.api.get(`/boards/${boardId}/cards/${cardId}`)).body.value).toBe(80 * 36);
  });

  test('without autoUpdateCardValue the card keeps its own value', async () => {
    const tenant = await newTenant();
    const p = await products(tenant);
    const { boardId, cardId } = await productBoard(tenant.api, { enableProducts: true });
    await tenant.api.put(`/boards/${boardId}/cards/${cardId}`, { data: { value: 42 } });
    const res = await tenant.api.post(`/boards/${boardId}/cards/${cardId}/products`, {
      data: { product: p.panel, quantity: 1 },
    });
    expect(res.status).toBe(201);
    expect((await tenant.api.get(`/boards/${boardId}/cards/${cardId}`)).body.value).toBe(42);
  });

  test('a board without enableProducts refuses lines with a 422', async () => {
    const tenant = await newTenant();
    const p = await products(tenant);
    const { boardId, cardId } = await productBoard(tenant.api, {});
    const res = await tenant.api.post(`/boards/${boardId}/cards/${cardId}/products`, {
      data: { product: p.panel, quantity: 1 },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.name).toBe('UnprocessableEntityError');
    expect(res.body.error.details.setting).toBe('enableProducts');
    expect((await tenant.api.get(`/boards/${boardId}/cards/${cardId}/products`)).body.data).toEqual([]);
  });

  test('price rules: below minPrice is a 422; unknown products 404; bad input 400', async () => {
    const tenant = await newTenant();
    const p = await products(tenant);
    const { boardId, cardId } = await productBoard(tenant.api, {
      enableProducts: true,
      autoUpdateCardValue: true,
    });
    const base = `/boards/${boardId}/cards/${cardId}/products`;
    const low = await tenant.api.post(base, { data: { product: p.panel, quantity: 1, unitPrice: 199 } });
    expect(low.status).toBe(422);
    expect(low.body.error.message).toContain('SP-1');
    expect(low.body.error.details.errors[0].path).toEqual(['unitPrice']);
    const lowDiscount = await tenant.api.post(base, {
      data: { product: p.panel, quantity: 1, discount: 25 },
    });
    expect(lowDiscount.status).toBe(422);

    const unknown = await tenant.api.post(base, { data: { product: 'p'.repeat(24), quantity: 1 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details.errors[0].path).toEqual(['product']);
    for (const data of [
      { product: p.panel },
      { product: p.panel, quantity: -1 },
      { product: p.panel, quantity: 1, x: 1 },
    ]) {
      expect((await tenant.api.post(base, { data })).status).toBe(400);
    }

    const ok = await tenant.api.post(base, { data: { product: p.panel, quantity: 1 } });
    const tooLow = await tenant.api.put(`${base}/${ok.body.documentId}`, { data: { unitPrice: 150 } });
    expect(tooLow.status).toBe(422);
    // The refused change left the line and the card value alone.
    expect((await tenant.api.get(base)).body.data[0].unitPrice).toBe(250);
    expect((await tenant.api.get(`/boards/${boardId}/cards/${cardId}`)).body.value).toBe(250);

    // A line whose product was deleted keeps its copy; it can be removed but not repriced.
    await tenant.api.delete(`/products/${p.panel}`);
    const orphan = await tenant.api.get(base);
    expect(orphan.body.data[0]).toMatchObject({ product: null, name: 'Solar panel', total: 250 });
    expect((await tenant.api.put(`${base}/${ok.body.documentId}`, { data: { quantity: 2 } })).status).toBe(
      422,
    );
    expect((await tenant.api.delete(`${base}/${ok.body.documentId}`)).status).toBe(200);
  });

  test('unknown boards, cards and lines are 404', async () => {
    const tenant = await newTenant();
    const p = await products(tenant);
    const { boardId, cardId } = await productBoard(tenant.api, { enableProducts: true });
    const missing = 'm'.repeat(24);
    expect((await tenant.api.get(`/boards/${missing}/cards/${cardId}/products`)).status).toBe(404);
    expect((await tenant.api.get(`/boards/${boardId}/cards/${missing}/products`)).status).toBe(404);
    expect(
      (
        await tenant.api.post(`/boards/${boardId}/cards/${missing}/products`, {
          data: { product: p.panel, quantity: 1 },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await tenant.api.put(`/boards/${boardId}/cards/${cardId}/products/${missing}`, {
          data: { quantity: 1 },
        })
      ).status,
    ).toBe(404);
    expect((await tenant.api.delete(`/boards/${boardId}/cards/${cardId}/products/${missing}`)).status).toBe(
      404,
    );
    // A line is reached only through its own card.
    const other = await tenant.api.post(`/boards/${boardId}/cards`, { data: { title: 'Other' } });
    const line = await tenant.api.post(`/boards/${boardId}/cards/${cardId}/products`, {
      data: { product: p.panel, quantity: 1 },
    });
    expect(
      (
        await tenant.api.delete(
          `/boards/${boardId}/cards/${other.body.documentId}/products/${line.body.documentId}`,
        )
      ).status,
    ).toBe(404);
  });

  test('board access: board viewers read lines, editors write them, outsiders see nothing', async () => {
    const tenant = await newTenant();
    const p = await products(tenant);
    const viewer = await addMember(tenant, 'member');
    const editor = await addMember(tenant, 'member');
    const outsider = await addMember(tenant, 'member');
    const { boardId, cardId } = await productBoard(
      tenant.api,
      { enableProducts: true },
      { members: [viewer.membershipId], editors: [editor.membershipId] },
    );
    const base = `/boards/${boardId}/cards/${cardId}/products`;
    const added = await editor.api.post(base, { data: { product: p.panel, quantity: 1 } });
    expect(added.status).toBe(201);
    expect((await viewer.api.get(base)).body.data).toHaveLength(1);
    expect((await viewer.api.post(base, { data: { product: p.panel, quantity: 1 } })).status).toBe(403);
    expect((await viewer.api.delete(`${base}/${added.body.documentId}`)).status).toBe(403);
    expect((await outsider.api.get(base)).status).toBe(404);
    expect((await outsider.api.post(base, { data: { product: p.panel, quantity: 1 } })).status).toBe(404);
  });
});
