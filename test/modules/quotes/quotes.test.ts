import { beforeAll, describe, expect, test } from 'vitest';
import { setOrganizationPlan } from '../../../src/modules/organizations/repo.js';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { productBoard } from '../products/factory.js';
import { fetchPdf, pdfText } from './pdf.js';

async function catalogue(t: Tenant) {
  const make = async (data: Record<string, unknown>) => {
    const res = await t.api.post('/products', { data });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.documentId as string;
  };
  return {
    laptop: await make({ name: 'Laptop 14"', sku: 'LT-14', price: 1200, minPrice: 1000, unit: 'pc' }),
    support: await make({ name: 'Support plan', sku: 'SUP-1', price: 99.99, unit: 'month' }),
    legacy: await make({ name: 'Old modem', sku: 'OLD-1', price: 10, active: false }),
  };
}

describe('quotes', () => {
  beforeAll(async () => {
    await getApp(); // the shared app starts once per worker, under the hook timeout
  });

  test('creates a quote with items and computed totals; numbers are sequential per organization', async () => {
    const tenant = await newTenant();
    const { api } = tenant;
    const p = await catalogue(tenant);
    const contact = await api.post('/contacts', { data: { name: 'Ana Lima', email: 'ana@example.com' } });
    const res = await api.post('/quotes', {
      data: {
        title: 'Office refresh',
        validUntil: '2030-06-30',
        contact: contact.body.documentId,
        notes: 'Delivery in two weeks',
        items: [
          { product: p.laptop, quantity: 3, discount: 10 },
          { product: p.support, quantity: 12, unitPrice: 89.9 },
          { product: p.support, quantity: 0.5, unitPrice: 0.01 },
        ],
      },
    });
    expect(res.status).toBe(201);
    const q = res.body;
    expect(q).toMatchObject({
      number: 1,
      title: 'Office refresh',
      status: 'draft',
      validUntil: '2030-06-30',
      currency: 'USD',
      notes: 'Delivery in two weeks',
      card: null,
      contact: { documentId: contact.body.documentId, name: 'Ana Lima', email: 'ana@example.com' },
      owner: { documentId: tenant.membershipId },
    });
    expect(q.items).toHaveLength(3);
    expect(q.items[0]).toMatchObject({
      product: p.laptop,
      name: 'Laptop 14"',
      sku: 'LT-14',
      unit: 'pc',
      quantity: 3,
      unitPrice: 1200,
      discount: 10,
      total: 3240,
    });
    expect(q.items[1]).toMatchObject({ product: p.support, unitPrice: 89.9, discount: 0, total: 1078.8 });
    // 0.5 × 0.01 = 0.005, rounded half-up to a cent.
    expect(q.items[2].total).toBe(0.01);
    expect(q.subtotal).toBe(3600 + 1078.8 + 0.01);
    expect(q.discount).toBe(360);
    expect(q.total).toBe(4318.81);

    const second = await api.post('/quotes', { data: {} });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ number: 2, items: [], subtotal: 0, discount: 0, total: 0 });
    const otherOrg = await newTenant();
    expect((await otherOrg.api.post('/quotes', { data: {} })).body.number).toBe(1);

    expect((await api.get(`/quotes/${q.documentId}`)).body).toEqual(q);
  });

  test('a unit price below the minimum price is a 422 naming the item', async () => {
    const tenant = await newTenant();
    const p = await catalogue(tenant);
    const below = await tenant.api.post('/quotes', {
      data: {
        items: [
          { product: p.support, quantity: 1 },
          { product: p.laptop, quantity: 1, unitPrice: 999.99 },
        ],
      },
    });
    expect(below.status).toBe(422);
    expect(below.body.error.name).toBe('UnprocessableEntityError');
    expect(below.body.error.message).toContain('Item 2 (LT-14)');
    expect(below.body.error.message).toContain('1000.00');
    expect(below.body.error.details.errors).toEqual([
      { path: ['items', 1, 'unitPrice'], message: expect.stringContaining('below the minimum price') },
    ]);
    expect(below.body.error.details.belowMinPrice[0]).toMatchObject({
      index: 1,
      product: p.laptop,
      minPrice: 1000,
    });

    // The discount counts: 1100 less 10% is 990, under the 1000 floor.
    const discounted = await tenant.api.post('/quotes', {
      data: { items: [{ product: p.laptop, quantity: 1, unitPrice: 1100, discount: 10 }] },
    });
    expect(discounted.status).toBe(422);
    expect(discounted.body.error.message).toContain('after discount');

    // Exactly the minimum is fine.
    const atMin = await tenant.api.post('/quotes', {
      data: { items: [{ product: p.laptop, quantity: 1, unitPrice: 1000 }] },
    });
    expect(atMin.status).toBe(201);
    // Nothing was numbered by the refused attempts.
    expect(atMin.body.number).toBe(1);
  });

  test('inactive products are a 422; unknown products, contacts and cards are 404s naming the field', async () => {
    const tenant = await newTenant();
    const p = await catalogue(tenant);
    const inactive = await tenant.api.post('/quotes', {
      data: { items: [{ product: p.legacy, quantity: 1 }] },
    });
    expect(inactive.status).toBe(422);
    expect(inactive.body.error.details.errors[0].path).toEqual(['items', 0, 'product']);

    const unknown = await tenant.api.post('/quotes', {
      data: {
        items: [
          { product: p.laptop, quantity: 1 },
          { product: 'x'.repeat(24), quantity: 1 },
        ],
      },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details.errors[0].path).toEqual(['items', 1, 'product']);

    const contact = await tenant.api.post('/quotes', { data: { contact: 'c'.repeat(24) } });
    expect(contact.status).toBe(404);
    expect(contact.body.error.details.errors[0].path).toEqual(['contact']);
    const card = await tenant.api.post('/quotes', { data: { card: 'c'.repeat(24) } });
    expect(card.status).toBe(404);
    expect(card.body.error.details.errors[0].path).toEqual(['card']);
  });

  test('bad input is a 400 with paths', async () => {
    const tenant = await newTenant();
    const p = await catalogue(tenant);
    const cases = [
      { status: 'won' },
      { validUntil: '30/06/2030' },
      { currency: 'usd' },
      { items: [{ product: p.support, quantity: 0 }] },
      { items: [{ product: p.support, quantity: 1.0001 }] },
      { items: [{ product: p.support, quantity: 1, discount: 101 }] },
      { items: [{ product: p.support, quantity: 1, unitPrice: -1 }] },
      { items: [{ product: p.support }] },
      { items: [{ product: p.support, quantity: 1, price: 3 }] },
      { number: 7 },
      { total: 1 },
    ];
    for (const data of cases) {
      const res = await tenant.api.post('/quotes', { data });
      expect(res.status, JSON.stringify(data)).toBe(400);
      expect(res.body.error.details.errors.length).toBeGreaterThan(0);
    }
    const huge = await tenant.api.post('/quotes', {
      data: { items: [{ product: p.laptop, quantity: 1_000_000, unitPrice: 999_999_999 }] },
    });
    expect(huge.status).toBe(400);
  });

  test('updates: partial fields, items replace lines and totals while draft; fixed once sent', async () => {
    const tenant = await newTenant();
    const { api } = tenant;
    const p = await catalogue(tenant);
    const { body } = await api.post('/quotes', { data: { items: [{ product: p.support, quantity: 1 }] } });
    const id = body.documentId;

    const renamed = await api.put(`/quotes/${id}`, { data: { title: 'Renewal', currency: 'EUR' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      title: 'Renewal',
      currency: 'EUR',
      total: 99.99,
      number: body.number,
    });
    expect(renamed.body.items[0].documentId).toBe(body.items[0].documentId);

    const lines = await api.put(`/quotes/${id}`, {
      data: {
        items: [
          { product: p.laptop, quantity: 2 },
          { product: p.support, quantity: 3, discount: 50 },
        ],
      },
    });
    expect(lines.status).toBe(200);
    expect(lines.body.items.map((i: any) => i.sku)).toEqual(['LT-14', 'SUP-1']);
    expect(lines.body).toMatchObject({ subtotal: 2699.97, discount: 149.99, total: 2549.98 });

    const sent = await api.put(`/quotes/${id}`, { data: { status: 'sent' } });
    expect(sent.body.status).toBe('sent');
    const locked = await api.put(`/quotes/${id}`, { data: { items: [] } });
    expect(locked.status).toBe(422);
    expect(locked.body.error.details.errors[0].path).toEqual(['items']);
    // Status and other fields still change; back to draft unlocks the lines.
    expect((await api.put(`/quotes/${id}`, { data: { validUntil: null, notes: 'x' } })).status).toBe(200);
    const reopened = await api.put(`/quotes/${id}`, { data: { status: 'draft', items: [] } });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ status: 'draft', items: [], total: 0 });

    const tooLow = await api.put(`/quotes/${id}`, {
      data: { items: [{ product: p.laptop, quantity: 1, unitPrice: 1 }] },
    });
    expect(tooLow.status).toBe(422);
    expect((await api.get(`/quotes/${id}`)).body.items).toEqual([]);
  });

  test("links a card the caller can see; the currency defaults to the card's board", async () => {
    const tenant = await newTenant();
    const { api } = tenant;
    const { boardId, cardId } = await productBoard(api, { currency: 'EUR' });
    const res = await api.post('/quotes', { data: { card: cardId } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ card: { documentId: cardId, title: 'Big deal' }, currency: 'EUR' });
    expect((await api.post('/quotes', { data: { card: cardId, currency: 'BRL' } })).body.currency).toBe(
      'BRL',
    );

    const byCard = await api.get('/quotes', { 'filters[card][documentId][$eq]': cardId });
    expect(byCard.body.meta.pagination.total).toBe(2);

    const text = await pdfText((await fetchPdf(tenant, 'GET', `/quotes/${res.body.documentId}/pdf`)).buffer);
    expect(text).toContain('Opportunity: Big deal');

    // A member who is not on the board cannot link its cards.
    const outsider = await addMember(tenant, 'member');
    const hidden = await outsider.api.post('/quotes', { data: { card: cardId } });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.details.errors[0].path).toEqual(['card']);

    // Unlinking, then deleting the card: a quote that still pointed at it reads back without it.
    const unlinked = await api.put(`/quotes/${res.body.documentId}`, { data: { card: null } });
    expect(unlinked.body.card).toBeNull();
    const other = await api.post('/quotes', { data: { card: cardId } });
    expect((await api.delete(`/boards/${boardId}/cards/${cardId}`)).status).toBe(200);
    expect((await api.get(`/quotes/${other.body.documentId}`)).body.card).toBeNull();
  });

  test('lines keep the product name and SKU they were written with', async () => {
    const tenant = await newTenant();
    const p = await catalogue(tenant);
    const { body } = await tenant.api.post('/quotes', {
      data: { items: [{ product: p.support, quantity: 1 }] },
    });
    await tenant.api.put(`/products/${p.support}`, { data: { name: 'Premium support', price: 150 } });
    const after = await tenant.api.get(`/quotes/${body.documentId}`);
    expect(after.body.items[0]).toMatchObject({ name: 'Support plan', unitPrice: 99.99, product: p.support });
    await tenant.api.delete(`/products/${p.support}`);
    const gone = await tenant.api.get(`/quotes/${body.documentId}`);
    expect(gone.body.items[0]).toMatchObject({ name: 'Support plan', sku: 'SUP-1', product: null });
  });

  test('lists with filters, sort and pagination', async () => {
    const tenant = await newTenant();
    const { api } = tenant;
    const p = await catalogue(tenant);
    const contact = await api.post('/contacts', { data: { name: 'Bruno' } });
    await api.post('/quotes', { data: { title: 'A', items: [{ product: p.support, quantity: 1 }] } });
    await api.post('/quotes', {
      data: {
        title: 'B',
        status: 'sent',
        contact: contact.body.documentId,
        items: [{ product: p.laptop, quantity: 1 }],
      },
    });
    await api.post('/quotes', { data: { title: 'C', status: 'accepted', validUntil: '2031-01-01' } });

    const all = await api.get('/quotes');
    expect(all.body.data.map((q: any) => q.number)).toEqual([3, 2, 1]);
    expect(all.body.meta.pagination.total).toBe(3);

    const byTotal = await api.get('/quotes', { sort: 'total:desc', 'pagination[pageSize]': '1' });
    expect(byTotal.body.data.map((q: any) => q.title)).toEqual(['B']);
    expect(byTotal.body.meta.pagination).toEqual({ page: 1, pageSize: 1, pageCount: 3, total: 3 });

    const sentOrAccepted = await api.get('/quotes', {
      'filters[status][$in][0]': 'sent',
      'filters[status][$in][1]': 'accepted',
      sort: 'number:asc',
    });
    expect(sentOrAccepted.body.data.map((q: any) => q.title)).toEqual(['B', 'C']);
    const byContact = await api.get('/quotes', {
      'filters[contact][documentId][$eq]': contact.body.documentId,
    });
    expect(byContact.body.data.map((q: any) => q.title)).toEqual(['B']);
    const byProduct = await api.get('/quotes', { 'filters[items][product][documentId][$eq]': p.support });
    expect(byProduct.body.data.map((q: any) => q.title)).toEqual(['A']);
    const bySku = await api.get('/quotes', { 'filters[items][sku][$eq]': 'LT-14' });
    expect(bySku.body.data.map((q: any) => q.title)).toEqual(['B']);
    const valid = await api.get('/quotes', { 'filters[validUntil][$gte]': '2030-12-31' });
    expect(valid.body.data.map((q: any) => q.title)).toEqual(['C']);
    const noCard = await api.get('/quotes', { 'filters[card][$null]': 'true' });
    expect(noCard.body.meta.pagination.total).toBe(3);

    expect((await api.get('/quotes', { 'filters[status][$eq]': 'won' })).status).toBe(400);
    expect((await api.get('/quotes', { 'filters[card][title][$eq]': 'x' })).status).toBe(400);
    expect((await api.get('/quotes', { sort: 'notes:asc' })).status).toBe(400);
  });

  test('deletes a quote; its number is not reused', async () => {
    const { api } = await newTenant();
    const first = await api.post('/quotes', { data: {} });
    const del = await api.delete(`/quotes/${first.body.documentId}`);
    expect(del.body).toEqual({ documentId: first.body.documentId, deleted: true });
    expect((await api.get(`/quotes/${first.body.documentId}`)).status).toBe(404);
    expect((await api.put(`/quotes/${first.body.documentId}`, { data: { title: 'x' } })).status).toBe(404);
    expect((await api.delete(`/quotes/${first.body.documentId}`)).status).toBe(404);
    expect((await api.post('/quotes', { data: {} })).body.number).toBe(2);
  });

  test('concurrent creations get distinct sequential numbers', async () => {
    const { api } = await newTenant();
    const results = await Promise.all(Array.from({ length: 12 }, () => api.post('/quotes', { data: {} })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const numbers = results.map((r) => r.body.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  test('members write quotes; viewers only read them', async () => {
    const tenant = await newTenant();
    const { body } = await tenant.api.post('/quotes', { data: {} });
    const member = await addMember(tenant, 'member');
    expect((await member.api.post('/quotes', { data: {} })).status).toBe(201);
    expect((await member.api.put(`/quotes/${body.documentId}`, { data: { status: 'sent' } })).status).toBe(
      200,
    );
    const viewer = await addMember(tenant, 'viewer');
    expect((await viewer.api.get('/quotes')).body.meta.pagination.total).toBe(2);
    expect(
      (await fetchPdf({ ...tenant, user: viewer.user }, 'GET', `/quotes/${body.documentId}/pdf`)).status,
    ).toBe(200);
    expect((await viewer.api.post('/quotes', { data: {} })).status).toBe(403);
    expect((await viewer.api.put(`/quotes/${body.documentId}`, { data: { title: 'x' } })).status).toBe(403);
    expect((await viewer.api.delete(`/quotes/${body.documentId}`)).status).toBe(403);
  });

  test('a plan without the quotes feature gets a 403 naming it on every route', async () => {
    const tenant = await newTenant();
    const { body } = await tenant.api.post('/quotes', { data: {} });
    const { db } = await getApp();
    await setOrganizationPlan(db.system, tenant.slug, 'free');
    for (const res of [
      await tenant.api.get('/quotes'),
      await tenant.api.get(`/quotes/${body.documentId}`),
      await tenant.api.post('/quotes', { data: {} }),
      await tenant.api.put(`/quotes/${body.documentId}`, { data: { title: 'x' } }),
      await tenant.api.delete(`/quotes/${body.documentId}`),
      await tenant.api.get(`/quotes/${body.documentId}/pdf`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.name).toBe('ForbiddenError');
      expect(res.body.error.details.feature).toBe('quotes');
    }
    await setOrganizationPlan(db.system, tenant.slug, 'pro');
    expect((await tenant.api.get('/quotes')).status).toBe(200);
  });
});

describe('quote PDF', () => {
  beforeAll(async () => {
    await getApp();
  });

  test('renders with the built-in layout when the organization has no default template', async () => {
    const tenant = await newTenant();
    const p = await catalogue(tenant);
    const contact = await tenant.api.post('/contacts', {
      data: { name: 'Carla Dias', email: 'carla@example.com', phone: '+55 11 5555-0000' },
    });
    const { body } = await tenant.api.post('/quotes', {
      data: {
        title: 'Laptops',
        contact: contact.body.documentId,
        validUntil: '2030-02-28',
        notes: 'Payment in 30 days',
        items: [
          { product: p.laptop, quantity: 2, discount: 5 },
          { product: p.support, quantity: 24 },
        ],
      },
    });
    const res = await fetchPdf(tenant, 'GET', `/quotes/${body.documentId}/pdf`);
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/pdf');
    expect(res.buffer.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(res.buffer);
    for (const expected of [
      `Org ${tenant.slug}`,
      'Quote #1 Laptops',
      'Valid until 2030-02-28',
      'Carla Dias',
      'carla@example.com',
      'Laptop 14" 2 $1,200.00 5% $2,280.00',
      'Support plan 24 $99.99 $2,399.76',
      'Subtotal $4,799.76',
      'Discount -$120.00',
      'Total $4,679.76',
      'Payment in 30 days',
      `${tenant.user.username}`,
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('Opportunity');
    expect(text).not.toContain('{{');
  });

  test("renders through the organization's default quote template", async () => {
    const tenant = await newTenant();
    const p = await catalogue(tenant);
    const { body } = await tenant.api.post('/quotes', {
      data: { currency: 'EUR', items: [{ product: p.support, quantity: 2 }] },
    });
    const layout = (heading: string) => ({
      blocks: [
        { type: 'heading', text: heading },
        { type: 'items', columns: ['sku', 'total'], labels: { sku: 'Code', total: 'Amount' } },
        { type: 'totals', labels: { total: 'To pay' } },
      ],
    });
    await tenant.api.post('/pdf-templates', { data: { name: 'Not default', layout: layout('Ignored') } });
    await tenant.api.post('/pdf-templates', {
      data: {
        name: 'House style',
        isDefault: true,
        layout: layout('Proposal {{quote.number}} in {{quote.currency}}'),
      },
    });
    const text = await pdfText((await fetchPdf(tenant, 'GET', `/quotes/${body.documentId}/pdf`)).buffer);
    expect(text).toContain('Proposal 1 in EUR');
    expect(text).toContain('Code Amount');
    expect(text).toContain('SUP-1 €199.98');
    expect(text).toContain('To pay €199.98');
    expect(text).not.toContain('Ignored');
    expect(text).not.toContain('Support plan');

    // A chosen template instead of the default (?template=); an unknown one, or another organization's, is a 404
    // naming the parameter, never the default in its place.
    const chosen = await tenant.api.post('/pdf-templates', {
      data: { name: 'Chosen', layout: layout('Chosen {{quote.number}}') },
    });
    const withChosen = await pdfText(
      (await fetchPdf(tenant, 'GET', `/quotes/${body.documentId}/pdf?template=${chosen.body.documentId}`))
        .buffer,
    );
    expect(withChosen).toContain('Chosen 1');
    expect(withChosen).not.toContain('Proposal');
    const other = await newTenant();
    const theirs = await other.api.post('/pdf-templates', {
      data: { name: 'Theirs', layout: layout('Theirs') },
    });
    for (const id of ['t'.repeat(24), theirs.body.documentId]) {
      const res = await fetchPdf(tenant, 'GET', `/quotes/${body.documentId}/pdf?template=${id}`);
      expect(res.status).toBe(404);
      expect(res.json.error.details.errors[0].path).toEqual(['template']);
    }
    const unknownParam = await fetchPdf(tenant, 'GET', `/quotes/${body.documentId}/pdf?tempalte=x`);
    expect(unknownParam.status).toBe(400);
  });

  test('an unknown quote is a 404 in the JSON error envelope', async () => {
    const tenant = await newTenant();
    const res = await fetchPdf(tenant, 'GET', `/quotes/${'q'.repeat(24)}/pdf`);
    expect(res.status).toBe(404);
    expect(res.json.error.name).toBe('NotFoundError');
  });
});
