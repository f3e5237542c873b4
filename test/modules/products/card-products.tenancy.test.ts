import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant } from '../../helpers/app.js';
import { productBoard } from './factory.js';

describe('products on cards: tenancy', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test("another organization cannot read, add, change or delete a card's lines, nor use its products", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const product = await a.api.post('/products', { data: { name: 'Secret', sku: 'SEC', price: 5 } });
    const { boardId, cardId } = await productBoard(a.api, {
      enableProducts: true,
      autoUpdateCardValue: true,
    });
    const base = `/boards/${boardId}/cards/${cardId}/products`;
    const line = await a.api.post(base, { data: { product: product.body.documentId, quantity: 2 } });
    expect(line.status).toBe(201);

    expect((await b.api.get(base)).status).toBe(404);
    expect((await b.api.post(base, { data: { product: product.body.documentId, quantity: 1 } })).status).toBe(
      404,
    );
    expect((await b.api.put(`${base}/${line.body.documentId}`, { data: { quantity: 9 } })).status).toBe(404);
    expect((await b.api.delete(`${base}/${line.body.documentId}`)).status).toBe(404);

    // B's own card cannot take A's product.
    const mine = await productBoard(b.api, { enableProducts: true });
    const foreign = await b.api.post(`/boards/${mine.boardId}/cards/${mine.cardId}/products`, {
      data: { product: product.body.documentId, quantity: 1 },
    });
    expect(foreign.status).toBe(404);
    const filtered = await b.api.get(`/boards/${mine.boardId}/cards/${mine.cardId}/products`, {
      'filters[product][documentId][$eq]': product.body.documentId,
    });
    expect(filtered.body.meta.pagination.total).toBe(0);

    const after = await a.api.get(base);
    expect(after.body.data).toHaveLength(1);
    expect(after.body.data[0].quantity).toBe(2);
    expect((await a.api.get(`/boards/${boardId}/cards/${cardId}`)).body.value).toBe(10);
  });
});
