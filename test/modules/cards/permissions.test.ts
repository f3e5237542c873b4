import { describe, expect, test } from 'vitest';
import { addMember, newTenant } from '../../helpers/app.js';
import { createCard, createPipeline } from './factory.js';

describe('card permissions', () => {
  test('viewers read but cannot write (403); members not on the board get 404', async () => {
    const t = await newTenant();
    const viewer = await addMember(t, 'viewer');
    const outsider = await addMember(t, 'member');
    const { boardId } = await createPipeline(t.api, {}, { members: [viewer.membershipId] });
    const card = await createCard(t.api, boardId);
    const base = `/boards/${boardId}/cards`;
    expect((await viewer.api.get(base)).status).toBe(200);
    expect((await viewer.api.get(`${base}/${card.documentId}`)).status).toBe(200);
    expect((await viewer.api.get(`/boards/${boardId}/report`)).status).toBe(200);
    expect((await viewer.api.get(`${base}/aggregate`)).status).toBe(200);
    const write = [
      viewer.api.post(base, { data: { fields: { name: 'x', email: 'x@x.io' } } }),
      viewer.api.put(`${base}/${card.documentId}`, { data: { title: 'x' } }),
      viewer.api.delete(`${base}/${card.documentId}`),
      viewer.api.post(`${base}/${card.documentId}/move`, { phase: 'qualified' }),
    ];
    for (const res of await Promise.all(write)) expect(res.status).toBe(403);
    for (const res of await Promise.all([
      outsider.api.get(base),
      outsider.api.get(`${base}/${card.documentId}`),
      outsider.api.put(`${base}/${card.documentId}`, { data: { title: 'x' } }),
      outsider.api.get(`/boards/${boardId}/report`),
      outsider.api.get(`${base}/${card.documentId}/comments`),
    ]))
      expect(res.status).toBe(404);
  });

  test('board editors with the member role write cards; board members only read', async () => {
    const t = await newTenant();
    const editor = await addMember(t, 'member');
    const reader = await addMember(t, 'member');
    const { boardId } = await createPipeline(
      t.api,
      {},
      { editors: [editor.membershipId], members: [reader.membershipId] },
    );
    const made = await editor.api.post(`/boards/${boardId}/cards`, {
      data: { fields: { name: 'E', email: 'e@x.io' } },
    });
    expect(made.status).toBe(201);
    expect(
      (
        await reader.api.post(`/boards/${boardId}/cards`, {
          data: { fields: { name: 'R', email: 'r@x.io' } },
        })
      ).status,
    ).toBe(403);
    expect((await reader.api.get(`/boards/${boardId}/cards/${made.body.documentId}`)).status).toBe(200);
  });

  test('restrictViewToAssignees narrows lists, stats, reports and reads for non-admins', async () => {
    const t = await newTenant();
    const editor = await addMember(t, 'member');
    const { boardId } = await createPipeline(
      t.api,
      { restrictViewToAssignees: true },
      { editors: [editor.membershipId] },
    );
    const mine = await createCard(t.api, boardId, { value: 10, assignees: [editor.membershipId] });
    const theirs = await createCard(t.api, boardId, { value: 90 });
    const list = await editor.api.get(`/boards/${boardId}/cards`);
    expect(list.body.data.map((c: any) => c.documentId)).toEqual([mine.documentId]);
    expect(list.body.meta.stats.valueSum).toBe(10);
    expect((await editor.api.get(`/boards/${boardId}/cards/${theirs.documentId}`)).status).toBe(404);
    expect(
      (await editor.api.put(`/boards/${boardId}/cards/${theirs.documentId}`, { data: { title: 'x' } }))
        .status,
    ).toBe(404);
    expect((await editor.api.get(`/boards/${boardId}/report`)).body.summary.totalCards).toBe(1);
    expect((await editor.api.get(`/boards/${boardId}/cards/aggregate`, { fn: 'sum' })).body.value).toBe(10);
    // The admin (owner) sees everything.
    expect((await t.api.get(`/boards/${boardId}/cards`)).body.meta.pagination.total).toBe(2);
  });

  test('restrictEditToAssignees: non-assignees see the card but cannot change it (403)', async () => {
    const t = await newTenant();
    const editor = await addMember(t, 'member');
    const { boardId } = await createPipeline(
      t.api,
      { restrictEditToAssignees: true },
      { editors: [editor.membershipId] },
    );
    const mine = await createCard(t.api, boardId, { assignees: [editor.membershipId] });
    const theirs = await createCard(t.api, boardId);
    expect((await editor.api.get(`/boards/${boardId}/cards/${theirs.documentId}`)).status).toBe(200);
    expect(
      (await editor.api.put(`/boards/${boardId}/cards/${theirs.documentId}`, { data: { title: 'x' } }))
        .status,
    ).toBe(403);
    expect(
      (await editor.api.post(`/boards/${boardId}/cards/${theirs.documentId}/move`, { phase: 'qualified' }))
        .status,
    ).toBe(403);
    expect((await editor.api.delete(`/boards/${boardId}/cards/${theirs.documentId}`)).status).toBe(403);
    expect(
      (await editor.api.put(`/boards/${boardId}/cards/${mine.documentId}`, { data: { title: 'mine' } }))
        .status,
    ).toBe(200);
  });
});
