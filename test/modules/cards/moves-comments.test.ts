import { describe, expect, test } from 'vitest';
import { addMember, newTenant } from '../../helpers/app.js';
import { createCard, createPipeline, errorPaths } from './factory.js';

const history = async (api: any, boardId: string, cardId: string) =>
  (await api.get(`/boards/${boardId}/cards/${cardId}/comments`, { 'pagination[pageSize]': 100 })).body.data;

describe('moves', () => {
  test('POST move by slug or documentId updates the phase, enteredAt and history', async () => {
    const t = await newTenant();
    const { boardId, phase } = await createPipeline(t.api);
    const card = await createCard(t.api, boardId);
    const moved = await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, {
      phase: 'qualified',
    });
    expect(moved.status).toBe(200);
    expect(moved.body.currentPhase).toMatchObject({ documentId: phase('qualified'), slug: 'qualified' });
    expect(Date.parse(moved.body.currentPhaseEnteredAt)).toBeGreaterThan(
      Date.parse(card.currentPhaseEnteredAt),
    );
    expect(moved.body.dueDate).toBeNull();
    const entries = await history(t.api, boardId, card.documentId);
    const change = entries.find((c: any) => c.activityType === 'phase_changed');
    expect(change).toMatchObject({
      type: 'system',
      metadata: { from: { documentId: phase('lead') }, to: { documentId: phase('qualified') } },
    });
    const back = await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, {
      phase: phase('lead'),
    });
    expect(back.status).toBe(422);
    expect(back.body.error.details.missingFields).toEqual(['budget']);
    expect(errorPaths(back.body)).toEqual(['fields.budget']);
  });

  test('a transition listed allowed:false is 422, through move and PUT alike', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const card = await createCard(t.api, boardId, {
      currentPhase: 'qualified',
      fields: { name: 'A', email: 'a@x.io', budget: 10 },
    });
    const move = await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, { phase: 'lost' });
    expect(move.status).toBe(422);
    expect(move.body.error.name).toBe('UnprocessableEntityError');
    const put = await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, {
      data: { currentPhase: 'lost' },
    });
    expect(put.status).toBe(422);
    const ok = await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, {
      data: { currentPhase: 'won' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.currentPhase.slug).toBe('won');
    const unknown = await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, {
      phase: 'nowhere',
    });
    expect(unknown.status).toBe(400);
    expect(errorPaths(unknown.body)).toEqual(['phase']);
  });

  test('fields sent with the move count for the required check', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const card = await createCard(t.api, boardId, { currentPhase: 'qualified' });
    const res = await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, {
      data: { currentPhase: 'won', fields: { budget: '1200.50' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.fields.budget).toBe(1200.5);
  });

  test('autoUpdateDueDateFromPhase sets dueDate = entered + SLA with source phase', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api, { autoUpdateDueDateFromPhase: true });
    const card = await createCard(t.api, boardId);
    const moved = await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, {
      phase: 'qualified',
    });
    expect(moved.body.dueDateSource).toBe('phase');
    expect(Date.parse(moved.body.dueDate) - Date.parse(moved.body.currentPhaseEnteredAt)).toBe(
      24 * 3600 * 1000,
    );
  });

  test('won and lost phases reach the contact timeline, as does card creation', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const contact = (await t.api.post('/contacts', { data: { name: 'Bea' } })).body;
    const won = await createCard(t.api, boardId, {
      contact: contact.documentId,
      currentPhase: 'qualified',
      fields: { name: 'W', email: 'w@x.io', budget: 5 },
    });
    await t.api.post(`/boards/${boardId}/cards/${won.documentId}/move`, { phase: 'won' });
    const lost = await createCard(t.api, boardId, { contact: contact.documentId });
    await t.api.post(`/boards/${boardId}/cards/${lost.documentId}/move`, { phase: 'lost' });
    const timeline = await t.api.get(`/contacts/${contact.documentId}/activities`, {
      'pagination[pageSize]': 100,
    });
    expect(timeline.status).toBe(200);
    const types = timeline.body.data.map((a: { activityType: string }) => a.activityType);
    expect(types.filter((x: string) => x === 'card_created')).toHaveLength(2);
    expect(types).toContain('card_won');
    expect(types).toContain('card_lost');
  });
});

describe('history and comments', () => {
  test('every change writes a system comment in the same request', async () => {
    const t = await newTenant();
    const other = await addMember(t, 'member');
    const { boardId } = await createPipeline(t.api);
    const card = await createCard(t.api, boardId, { tags: ['hot'], assignees: [t.membershipId] });
    await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, {
      data: {
        tags: ['cold'],
        assignees: [other.membershipId],
        value: 10,
        fields: { size: 'small' },
        title: 'T2',
      },
    });
    const entries = await history(t.api, boardId, card.documentId);
    const types = entries.map((c: any) => c.activityType).sort();
    expect(types).toEqual(
      [
        'card_created',
        'assignee_added',
        'assignee_removed',
        'tag_added',
        'tag_removed',
        'value_changed',
        'field_changed',
        'title_changed',
      ].sort(),
    );
    const field = entries.find((c: any) => c.activityType === 'field_changed');
    expect(field.metadata).toMatchObject({ field: { slug: 'size' }, from: null, to: 'small' });
    expect(field.author.documentId).toBe(t.membershipId);
    // A PUT that changes nothing records nothing.
    await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, { data: { value: 10 } });
    expect(await history(t.api, boardId, card.documentId)).toHaveLength(entries.length);
  });

  test('a refused change leaves neither the card nor its history changed', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const card = await createCard(t.api, boardId, {
      currentPhase: 'qualified',
      fields: { name: 'A', email: 'a@x.io', budget: 10 },
    });
    const path = `/boards/${boardId}/cards/${card.documentId}`;
    const before = await history(t.api, boardId, card.documentId);
    const blocked = await t.api.put(path, {
      data: { title: 'Renamed', value: 5, tags: ['hot'], fields: { seats: 3 }, currentPhase: 'lost' },
    });
    expect(blocked.status).toBe(422);
    const invalid = await t.api.put(path, { data: { title: 'Renamed', fields: { size: 'huge' } } });
    expect(invalid.status).toBe(400);
    const after = (await t.api.get(path)).body;
    expect(after).toMatchObject({ title: card.title, value: card.value, tags: [] });
    expect(after.currentPhase.slug).toBe('qualified');
    expect(after.fields.seats).toBeUndefined();
    expect(await history(t.api, boardId, card.documentId)).toEqual(before);
  });

  test('user comments: create with mentions, edit by the author, delete; errors', async () => {
    const t = await newTenant();
    const member = await addMember(t, 'member');
    const viewer = await addMember(t, 'viewer');
    const { boardId } = await createPipeline(
      t.api,
      {},
      { members: [member.membershipId, viewer.membershipId] },
    );
    const card = await createCard(t.api, boardId);
    const path = `/boards/${boardId}/cards/${card.documentId}/comments`;
    const made = await t.api.post(path, {
      data: { content: '<p>Hi @bob</p>', contentFormat: 'html', mentions: [member.membershipId] },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      content: '<p>Hi @bob</p>',
      contentFormat: 'html',
      type: 'user',
      activityType: null,
      mentions: [member.membershipId],
      author: { documentId: t.membershipId },
    });
    const edited = await t.api.put(`${path}/${made.body.documentId}`, { data: { content: 'edited' } });
    expect(edited.status).toBe(200);
    expect(edited.body.content).toBe('edited');
    expect((await member.api.put(`${path}/${made.body.documentId}`, { data: { content: 'x' } })).status).toBe(
      403,
    );
    expect((await member.api.delete(`${path}/${made.body.documentId}`)).status).toBe(403);
    const memberComment = await member.api.post(path, { data: { content: 'from a board member' } });
    expect(memberComment.status).toBe(201);
    expect((await viewer.api.post(path, { data: { content: 'viewer' } })).status).toBe(403);
    expect((await viewer.api.get(path)).status).toBe(200);
    const badMention = await t.api.post(path, {
      data: { content: 'x', mentions: ['abcdefghijklmnopqrstuvwx'] },
    });
    expect(badMention.status).toBe(400);
    expect((await t.api.post(path, { data: { content: '' } })).status).toBe(400);
    const system = (await history(t.api, boardId, card.documentId)).find((c: any) => c.type === 'system');
    expect((await t.api.put(`${path}/${system.documentId}`, { data: { content: 'rewrite' } })).status).toBe(
      403,
    );
    expect((await t.api.delete(`${path}/${system.documentId}`)).status).toBe(403);
    // The admin (owner) may delete another member's comment.
    expect((await t.api.delete(`${path}/${memberComment.body.documentId}`)).status).toBe(200);
    expect((await t.api.delete(`${path}/${made.body.documentId}`)).status).toBe(200);
    expect((await t.api.put(`${path}/${made.body.documentId}`, { data: { content: 'x' } })).status).toBe(404);
    const list = await t.api.get(path);
    expect(list.body.data.every((c: any) => c.type === 'system')).toBe(true);
  });
});
