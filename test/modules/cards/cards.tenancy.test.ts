import { describe, expect, test } from 'vitest';
import { getApp, newTenant } from '../../helpers/app.js';
import { createCard, createPipeline, errorPaths, multipart } from './factory.js';

async function twoOrgs() {
  const a = await newTenant();
  const b = await newTenant();
  const pa = await createPipeline(a.api);
  const pb = await createPipeline(b.api);
  const contact = (await a.api.post('/contacts', { data: { name: 'Secret contact' } })).body;
  const card = await createCard(a.api, pa.boardId, {
    title: 'Secret deal',
    value: 1000,
    tags: ['hot'],
    assignees: [a.membershipId],
    contact: contact.documentId,
    dueDate: '2000-01-01T00:00:00Z',
  });
  const comment = (
    await a.api.post(`/boards/${pa.boardId}/cards/${card.documentId}/comments`, {
      data: { content: 'secret' },
    })
  ).body;
  return { a, b, pa, pb, card, comment, contact };
}

describe('cards tenancy', () => {
  test('another organization gets 404 on every card route of this one', async () => {
    const { b, pa, card, comment } = await twoOrgs();
    const base = `/boards/${pa.boardId}/cards`;
    const c = `${base}/${card.documentId}`;
    const responses = await Promise.all([
      b.api.get(base),
      b.api.post(base, { data: { title: 'x' } }),
      b.api.get(`${base}/aggregate`),
      b.api.get(c),
      b.api.put(c, { data: { title: 'hijack' } }),
      b.api.delete(c),
      b.api.post(`${c}/move`, { phase: 'qualified' }),
      b.api.get(`${c}/comments`),
      b.api.post(`${c}/comments`, { data: { content: 'x' } }),
      b.api.put(`${c}/comments/${comment.documentId}`, { data: { content: 'x' } }),
      b.api.delete(`${c}/comments/${comment.documentId}`),
      b.api.get(`/boards/${pa.boardId}/report`),
    ]);
    for (const res of responses) {
      expect(res.status).toBe(404);
      expect(res.body.error.name).toBe('NotFoundError');
    }
  });

  test("the card's documentId on the other org's own board is 404 too", async () => {
    const { b, pb, card } = await twoOrgs();
    const c = `/boards/${pb.boardId}/cards/${card.documentId}`;
    for (const res of await Promise.all([
      b.api.get(c),
      b.api.put(c, { data: { title: 'x' } }),
      b.api.delete(c),
    ]))
      expect(res.status).toBe(404);
  });

  test('its cards never count in the other org stats, report or aggregates, and filters cannot reach them', async () => {
    const { a, b, pb, card } = await twoOrgs();
    await createCard(b.api, pb.boardId, { value: 1 });
    const list = await b.api.get(`/boards/${pb.boardId}/cards`);
    expect(list.body.meta.pagination.total).toBe(1);
    expect(list.body.meta.stats).toEqual({ overdueCount: 0, valueSum: 1, phaseSlaBreachedCount: 0 });
    const report = (await b.api.get(`/boards/${pb.boardId}/report`)).body;
    expect(report.summary.totalCards).toBe(1);
    expect(report.summary.totalValue).toBe(1);
    expect(report.assignees.map((r: any) => r.membershipId)).not.toContain(a.membershipId);
    const agg = (await b.api.get(`/boards/${pb.boardId}/cards/aggregate`, { fn: 'sum', groupBy: 'assignee' }))
      .body;
    expect(agg).toMatchObject({ value: 1, count: 1 });
    const probes = [
      { 'filters[documentId][$eq]': card.documentId },
      { 'filters[title][$containsi]': 'secret' },
      { 'filters[assignees][documentId][$eq]': a.membershipId },
      { 'filters[contact][name][$containsi]': 'secret' },
      { 'filters[value][$gte]': 1000 },
      { 'filters[fieldData][value][val][$containsi]': 'ana@' },
    ];
    for (const q of probes) {
      const res = await b.api.get(`/boards/${pb.boardId}/cards`, q);
      expect(res.status).toBe(200);
      expect(res.body.data.filter((c: any) => c.documentId === card.documentId || c.value === 1000)).toEqual(
        [],
      );
    }
  });

  test("another org's cards, members, contacts and files cannot be referenced", async () => {
    const { a, b, pa, pb, card, contact } = await twoOrgs();
    // card_link to a foreign card
    const field = await b.api.post(`/boards/${pb.boardId}/fields`, {
      data: { label: 'Related', slug: 'related', type: 'card_link', phase: 'lead' },
    });
    expect(field.status).toBe(201);
    const link = await b.api.post(`/boards/${pb.boardId}/cards`, {
      data: { fields: { name: 'x', email: 'x@x.io', related: card.documentId } },
    });
    expect(link.status).toBe(400);
    expect(errorPaths(link.body)).toEqual(['fields.related']);
    const refs = await b.api.post(`/boards/${pb.boardId}/cards`, {
      data: {
        fields: { name: 'x', email: 'x@x.io' },
        assignees: [a.membershipId],
        contact: contact.documentId,
      },
    });
    expect(refs.status).toBe(400);
    expect(errorPaths(refs.body).sort()).toEqual(['assignees.0', 'contact']);
    // A file uploaded to org A's board is no reference in org B.
    await a.api.post(`/boards/${pa.boardId}/fields`, {
      data: { label: 'Doc', slug: 'doc', type: 'file', phase: 'lead' },
    });
    await b.api.post(`/boards/${pb.boardId}/fields`, {
      data: { label: 'Doc', slug: 'doc', type: 'file', phase: 'lead' },
    });
    const { app } = await getApp();
    const up = await app.inject({
      method: 'POST',
      url: `/api/boards/${pa.boardId}/public-upload`,
      ...multipart('file', 'a.txt', 'text/plain', Buffer.from('a')),
    });
    expect(up.statusCode).toBe(201);
    const file = await b.api.post(`/boards/${pb.boardId}/cards`, {
      data: { fields: { name: 'x', email: 'x@x.io', doc: up.json().documentId } },
    });
    expect(file.status).toBe(400);
    expect(errorPaths(file.body)).toEqual(['fields.doc']);
  });
});
