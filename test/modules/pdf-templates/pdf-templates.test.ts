import { beforeAll, describe, expect, test } from 'vitest';
import { setOrganizationPlan } from '../../../src/modules/organizations/repo.js';
import { addMember, getApp, newTenant } from '../../helpers/app.js';
import { fetchPdf, pdfText } from '../quotes/pdf.js';

const layout = {
  blocks: [
    { type: 'heading', text: 'Offer from {{organization.name}}' },
    { type: 'text', text: 'Number {{ quote.number }} for {{contact.name}}', bold: true },
    { type: 'fields', rows: [{ label: 'Valid until', value: '{{quote.validUntil}}' }] },
    { type: 'items', columns: ['sku', 'name', 'quantity', 'total'], labels: { name: 'Article' } },
    { type: 'totals', labels: { total: 'Grand total' } },
    { type: 'divider' },
    { type: 'spacer', height: 20 },
    { type: 'text', text: 'Only for {{card.title}}', when: 'card.title' },
  ],
};

describe('PDF templates', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test('creates a template with defaults filled in, reads, lists, updates and deletes it', async () => {
    const { api } = await newTenant();
    const res = await api.post('/pdf-templates', { data: { name: 'Classic', layout } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Classic', kind: 'quote', isDefault: false });
    expect(res.body.layout).toMatchObject({
      pageSize: 'A4',
      margin: 50,
      fontSize: 10,
      accentColor: '#1f2937',
    });
    expect(res.body.layout.blocks).toHaveLength(layout.blocks.length);
    const id = res.body.documentId;

    expect((await api.get(`/pdf-templates/${id}`)).body).toEqual(res.body);
    const list = await api.get('/pdf-templates', { 'filters[kind][$eq]': 'quote' });
    expect(list.body.data.map((t: any) => t.name)).toEqual(['Classic']);

    const upd = await api.put(`/pdf-templates/${id}`, {
      data: { name: 'Modern', layout: { ...layout, pageSize: 'LETTER', accentColor: '#0055aa' } },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({
      name: 'Modern',
      layout: { pageSize: 'LETTER', accentColor: '#0055aa' },
    });

    const del = await api.delete(`/pdf-templates/${id}`);
    expect(del.body).toEqual({ documentId: id, deleted: true });
    expect((await api.get(`/pdf-templates/${id}`)).status).toBe(404);
    expect((await api.put(`/pdf-templates/${id}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await api.delete(`/pdf-templates/${id}`)).status).toBe(404);
  });

  test('an unknown placeholder, block or setting is a 400 with its path', async () => {
    const { api } = await newTenant();
    const unknown = await api.post('/pdf-templates', {
      data: { name: 'Bad', layout: { blocks: [{ type: 'text', text: 'Hi {{quote.secret}}' }] } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.errors[0].message).toContain('{{quote.secret}}');
    expect(unknown.body.error.details.errors[0].path).toEqual(['layout', 'blocks', '0', 'text']);

    const cases = [
      { blocks: [] },
      { blocks: [{ type: 'image', url: 'x' }] },
      { blocks: [{ type: 'text' }] },
      { blocks: [{ type: 'items', columns: ['name', 'name'] }] },
      { blocks: [{ type: 'items', columns: ['price'] }] },
      { pageSize: 'A0', blocks: [{ type: 'divider' }] },
      { accentColor: 'red', blocks: [{ type: 'divider' }] },
      { blocks: [{ type: 'text', text: 'x', when: 'nothing' }] },
    ];
    for (const bad of cases) {
      const res = await api.post('/pdf-templates', { data: { name: 'Bad', layout: bad } });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
    }
    expect((await api.post('/pdf-templates', { data: { name: 'No layout' } })).status).toBe(400);
    expect(
      (await api.post('/pdf-templates', { data: { name: 'Kind', kind: 'invoice', layout } })).status,
    ).toBe(400);
  });

  test('names are unique; one default per kind, a new default replaces the previous one', async () => {
    const { api } = await newTenant();
    const a = await api.post('/pdf-templates', { data: { name: 'A', isDefault: true, layout } });
    expect(a.body.isDefault).toBe(true);
    const dup = await api.post('/pdf-templates', { data: { name: 'A', layout } });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details.duplicateKeys).toEqual(['name']);

    const b = await api.post('/pdf-templates', { data: { name: 'B', isDefault: true, layout } });
    expect(b.body.isDefault).toBe(true);
    expect((await api.get(`/pdf-templates/${a.body.documentId}`)).body.isDefault).toBe(false);

    const back = await api.put(`/pdf-templates/${a.body.documentId}`, { data: { isDefault: true } });
    expect(back.body.isDefault).toBe(true);
    const defaults = await api.get('/pdf-templates', { 'filters[isDefault][$eq]': 'true' });
    expect(defaults.body.data.map((t: any) => t.name)).toEqual(['A']);

    // An update that does not name `isDefault` leaves it (a partial PUT once reset it to false).
    const renamed = await api.put(`/pdf-templates/${a.body.documentId}`, { data: { name: 'A2' } });
    expect(renamed.body).toMatchObject({ name: 'A2', isDefault: true, kind: 'quote' });
    expect((await api.get(`/pdf-templates/${a.body.documentId}`)).body.isDefault).toBe(true);
  });

  test('concurrent default switches leave exactly one default', async () => {
    const { api } = await newTenant();
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C', 'D']) {
      ids.push((await api.post('/pdf-templates', { data: { name, layout } })).body.documentId);
    }
    const results = await Promise.all(
      ids.map((id) => api.put(`/pdf-templates/${id}`, { data: { isDefault: true } })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const defaults = await api.get('/pdf-templates', { 'filters[isDefault][$eq]': 'true' });
    expect(defaults.body.meta.pagination.total).toBe(1);
  });

  test('preview renders sample data as a PDF', async () => {
    const tenant = await newTenant();
    const { body } = await tenant.api.post('/pdf-templates', { data: { name: 'Classic', layout } });
    const res = await fetchPdf(tenant, 'POST', `/pdf-templates/${body.documentId}/preview`);
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/pdf');
    expect(res.buffer.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(res.buffer);
    expect(text).toContain(`Offer from Org ${tenant.slug}`);
    expect(text).toContain('Number 1001 for Jane Sample');
    expect(text).toContain('Article');
    expect(text).toContain('SAMPLE-1');
    expect(text).toContain('Grand total');
    expect(text).toContain('$670.00');
    expect(text).toContain('Only for Sample opportunity');
  });

  test('preview renders one of the organization’s quotes; an unknown quote is a 404', async () => {
    const tenant = await newTenant();
    const { api } = tenant;
    const product = await api.post('/products', { data: { name: 'Solar panel', sku: 'SP-400', price: 250 } });
    const contact = await api.post('/contacts', {
      data: { name: 'Maria Souza', email: 'maria@example.com' },
    });
    const quote = await api.post('/quotes', {
      data: {
        contact: contact.body.documentId,
        validUntil: '2030-01-31',
        items: [{ product: product.body.documentId, quantity: 4 }],
      },
    });
    expect(quote.status).toBe(201);
    const { body } = await api.post('/pdf-templates', { data: { name: 'Classic', layout } });
    const res = await fetchPdf(tenant, 'POST', `/pdf-templates/${body.documentId}/preview`, {
      quote: quote.body.documentId,
    });
    expect(res.status).toBe(200);
    const text = await pdfText(res.buffer);
    expect(text).toContain(`Number ${quote.body.number} for Maria Souza`);
    expect(text).toContain('Valid until 2030-01-31');
    expect(text).toContain('SP-400 Solar panel 4 $1,000.00');
    expect(text).toContain('Grand total $1,000.00');
    expect(text).not.toContain('Only for');

    const missing = await fetchPdf(tenant, 'POST', `/pdf-templates/${body.documentId}/preview`, {
      quote: 'q'.repeat(24),
    });
    expect(missing.status).toBe(404);
    expect(missing.json.error.name).toBe('NotFoundError');
    const noTemplate = await fetchPdf(tenant, 'POST', `/pdf-templates/${'t'.repeat(24)}/preview`);
    expect(noTemplate.status).toBe(404);
    const badBody = await fetchPdf(tenant, 'POST', `/pdf-templates/${body.documentId}/preview`, { other: 1 });
    expect(badBody.status).toBe(400);
  });

  test("a layout's locale writes amounts, quantities and days its way and names the headings it does not rename", async () => {
    const tenant = await newTenant();
    const { api } = tenant;
    const product = await api.post('/products', { data: { name: 'Inversor', sku: 'INV-5', price: 1234.5 } });
    const quote = await api.post('/quotes', {
      data: {
        currency: 'BRL',
        validUntil: '2030-01-31',
        items: [{ product: product.body.documentId, quantity: 1.5 }],
      },
    });
    expect(quote.status).toBe(201);
    const ptLayout = {
      locale: 'pt-BR',
      blocks: [
        { type: 'fields', rows: [{ label: 'Validade', value: '{{quote.validUntil}}' }] },
        { type: 'items', columns: ['name', 'quantity', 'unitPrice', 'total'] },
        { type: 'totals' },
      ],
    };
    const pt = await api.post('/pdf-templates', { data: { name: 'Brasil', layout: ptLayout } });
    expect(pt.status).toBe(201);
    expect(pt.body.layout.locale).toBe('pt-BR');
    const text = await pdfText(
      (
        await fetchPdf(tenant, 'POST', `/pdf-templates/${pt.body.documentId}/preview`, {
          quote: quote.body.documentId,
        })
      ).buffer,
    );
    expect(text).toContain('Validade 31/01/2030');
    expect(text).toContain('Produto Qtd. Preço unit. Total');
    // Intl writes a no-break space after R$.
    expect(text.replace(/\u00a0/g, ' ')).toContain('Inversor 1,5 R$ 1.234,50 R$ 1.851,75');
    expect(text.replace(/\u00a0/g, ' ')).toContain('Subtotal R$ 1.851,75');
    // The sample preview speaks the layout's language too.
    const sample = await pdfText(
      (await fetchPdf(tenant, 'POST', `/pdf-templates/${pt.body.documentId}/preview`)).buffer,
    );
    expect(sample).toContain('Produto de exemplo');

    // Without a locale, as before: en-US amounts, ISO days, English headings.
    const en = await api.post('/pdf-templates', {
      data: { name: 'Plain', layout: { ...ptLayout, locale: undefined } },
    });
    const plain = await pdfText(
      (
        await fetchPdf(tenant, 'POST', `/pdf-templates/${en.body.documentId}/preview`, {
          quote: quote.body.documentId,
        })
      ).buffer,
    );
    expect(plain).toContain('Validade 2030-01-31');
    expect(plain).toContain('Product Qty Unit price Total');
    expect(plain).toContain('R$1,851.75');

    const bad = await api.post('/pdf-templates', {
      data: { name: 'Bad', layout: { ...ptLayout, locale: 'xx-!!' } },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error.details)).toContain('locale');
  });

  test('viewers and members read and preview; only admins write', async () => {
    const tenant = await newTenant();
    const { body } = await tenant.api.post('/pdf-templates', { data: { name: 'Classic', layout } });
    for (const role of ['viewer', 'member'] as const) {
      const { api, user } = await addMember(tenant, role);
      expect((await api.get('/pdf-templates')).body.meta.pagination.total).toBe(1);
      const preview = await fetchPdf(
        { ...tenant, user },
        'POST',
        `/pdf-templates/${body.documentId}/preview`,
      );
      expect(preview.status).toBe(200);
      expect((await api.post('/pdf-templates', { data: { name: 'Mine', layout } })).status).toBe(403);
      expect((await api.put(`/pdf-templates/${body.documentId}`, { data: { name: 'x' } })).status).toBe(403);
      expect((await api.delete(`/pdf-templates/${body.documentId}`)).status).toBe(403);
    }
    const admin = await addMember(tenant, 'admin');
    expect((await admin.api.post('/pdf-templates', { data: { name: 'Admin', layout } })).status).toBe(201);
  });

  test('a plan without the quotes feature gets a 403 naming it', async () => {
    const tenant = await newTenant();
    const { body } = await tenant.api.post('/pdf-templates', { data: { name: 'Classic', layout } });
    const { db } = await getApp();
    await setOrganizationPlan(db.system, tenant.slug, 'free');
    for (const res of [
      await tenant.api.get('/pdf-templates'),
      await tenant.api.get(`/pdf-templates/${body.documentId}`),
      await tenant.api.post('/pdf-templates', { data: { name: 'New', layout } }),
      await tenant.api.post(`/pdf-templates/${body.documentId}/preview`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.details.feature).toBe('quotes');
      expect(res.body.error.message).toContain('quotes');
    }
  });
});
