import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant } from '../../helpers/app.js';
import { productBoard } from '../products/factory.js';
import { fetchPdf } from './pdf.js';

describe('quotes: tenancy', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test('another organization cannot read, list, count, filter, change, delete or render a quote', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const product = await a.api.post('/products', { data: { name: 'Secret', sku: 'SEC', price: 5 } });
    const contact = await a.api.post('/contacts', { data: { name: 'Hidden' } });
    const { body } = await a.api.post('/quotes', {
      data: {
        title: 'Secret deal',
        contact: contact.body.documentId,
        items: [{ product: product.body.documentId, quantity: 1 }],
      },
    });
    const id = body.documentId;

    expect((await b.api.get(`/quotes/${id}`)).status).toBe(404);
    expect((await b.api.put(`/quotes/${id}`, { data: { status: 'rejected' } })).status).toBe(404);
    expect((await b.api.delete(`/quotes/${id}`)).status).toBe(404);
    expect((await fetchPdf(b, 'GET', `/quotes/${id}/pdf`)).status).toBe(404);

    const list = await b.api.get('/quotes');
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
    for (const query of [
      { 'filters[documentId][$eq]': id },
      { 'filters[title][$containsi]': 'secret' },
      { 'filters[contact][documentId][$eq]': contact.body.documentId },
      { 'filters[items][product][documentId][$eq]': product.body.documentId },
      { 'filters[items][sku][$eq]': 'SEC' },
    ]) {
      expect((await b.api.get('/quotes', query)).body.meta.pagination.total).toBe(0);
    }
    expect((await a.api.get(`/quotes/${id}`)).body).toMatchObject({ title: 'Secret deal', status: 'draft' });
  });

  test("a quote cannot use another organization's products, contacts or cards", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const product = await a.api.post('/products', { data: { name: 'Secret', sku: 'SEC', price: 5 } });
    const contact = await a.api.post('/contacts', { data: { name: 'Hidden' } });
    const items = await b.api.post('/quotes', {
      data: { items: [{ product: product.body.documentId, quantity: 1 }] },
    });
    expect(items.status).toBe(404);
    expect((await b.api.post('/quotes', { data: { contact: contact.body.documentId } })).status).toBe(404);
    const { cardId } = await productBoard(a.api, {});
    const card = await b.api.post('/quotes', { data: { card: cardId } });
    expect(card.status).toBe(404);
    expect(card.body.error.details.errors[0].path).toEqual(['card']);

    const mine = await b.api.post('/quotes', { data: {} });
    const link = await b.api.put(`/quotes/${mine.body.documentId}`, {
      data: { contact: contact.body.documentId },
    });
    expect(link.status).toBe(404);
    // A's numbering is untouched by B's quotes.
    expect((await a.api.post('/quotes', { data: {} })).body.number).toBe(1);
  });
});
