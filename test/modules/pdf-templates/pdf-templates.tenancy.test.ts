import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant } from '../../helpers/app.js';
import { fetchPdf } from '../quotes/pdf.js';

const layout = { blocks: [{ type: 'heading', text: '{{organization.name}}' }, { type: 'items' }] };

describe('PDF templates: tenancy', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test('another organization cannot read, list, filter, change, delete or preview a template', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const { body } = await a.api.post('/pdf-templates', {
      data: { name: 'Secret', isDefault: true, layout },
    });
    const id = body.documentId;

    expect((await b.api.get(`/pdf-templates/${id}`)).status).toBe(404);
    expect((await b.api.put(`/pdf-templates/${id}`, { data: { name: 'Mine' } })).status).toBe(404);
    expect((await b.api.delete(`/pdf-templates/${id}`)).status).toBe(404);
    expect((await fetchPdf(b, 'POST', `/pdf-templates/${id}/preview`)).status).toBe(404);

    const list = await b.api.get('/pdf-templates');
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
    const filtered = await b.api.get('/pdf-templates', { 'filters[documentId][$eq]': id });
    expect(filtered.body.meta.pagination.total).toBe(0);

    // Names and the default are per organization: B's default does not clear A's.
    const mine = await b.api.post('/pdf-templates', { data: { name: 'Secret', isDefault: true, layout } });
    expect(mine.status).toBe(201);
    expect((await a.api.get(`/pdf-templates/${id}`)).body).toMatchObject({ name: 'Secret', isDefault: true });
  });

  test("a preview cannot render another organization's quote", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const product = await a.api.post('/products', { data: { name: 'P', sku: 'P', price: 1 } });
    const quote = await a.api.post('/quotes', {
      data: { items: [{ product: product.body.documentId, quantity: 1 }] },
    });
    const template = await b.api.post('/pdf-templates', { data: { name: 'T', layout } });
    const res = await fetchPdf(b, 'POST', `/pdf-templates/${template.body.documentId}/preview`, {
      quote: quote.body.documentId,
    });
    expect(res.status).toBe(404);
  });
});
