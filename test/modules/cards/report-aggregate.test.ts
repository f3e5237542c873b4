import { describe, expect, test } from 'vitest';
import { addMember, newTenant } from '../../helpers/app.js';
import { createCard, createPipeline } from './factory.js';

async function seeded() {
  const t = await newTenant();
  const other = await addMember(t, 'member');
  const p = await createPipeline(t.api);
  await createCard(t.api, p.boardId, {
    value: 100,
    tags: ['hot'],
    assignees: [t.membershipId],
    fields: { name: 'A', email: 'a@x.io', size: 'large' },
  });
  await createCard(t.api, p.boardId, {
    value: 50,
    tags: ['hot', 'cold'],
    assignees: [t.membershipId, other.membershipId],
    fields: { name: 'B', email: 'b@x.io', size: 'small' },
  });
  await createCard(t.api, p.boardId, {
    value: 30,
    currentPhase: 'won',
    fields: { name: 'C', email: 'c@x.io', budget: 30 },
  });
  await createCard(t.api, p.boardId, {
    value: 7,
    currentPhase: 'lost',
    fields: { name: 'D', email: 'd@x.io', size: 'large' },
  });
  return { t, other, ...p };
}

describe('board report', () => {
  test('the flat BoardReport shape with SQL aggregates', async () => {
    const { t, other, boardId, board, phase } = await seeded();
    const res = await t.api.get(`/boards/${boardId}/report`);
    expect(res.status).toBe(200);
    const r = res.body;
    expect(Object.keys(r).sort()).toEqual(
      [
        'assignees',
        'boardId',
        'boardName',
        'createdByDay',
        'currency',
        'dateRange',
        'phases',
        'showValue',
        'summary',
        'tags',
      ].sort(),
    );
    expect(r).toMatchObject({ boardId, boardName: board.name, showValue: true, currency: 'BRL' });
    expect(r.summary).toEqual({
      totalCards: 4,
      wonCount: 1,
      lostCount: 1,
      unassignedCount: 2,
      untaggedCount: 2,
      totalValue: 187,
      wonValue: 30,
      opportunityValue: 150,
    });
    expect(r.phases).toEqual([
      {
        phaseId: phase('lead'),
        name: 'Lead',
        slug: 'lead',
        order: 0,
        count: 2,
        value: 150,
        isWon: false,
        isLost: false,
      },
      {
        phaseId: phase('qualified'),
        name: 'Qualified',
        slug: 'qualified',
        order: 1,
        count: 0,
        value: 0,
        isWon: false,
        isLost: false,
      },
      {
        phaseId: phase('won'),
        name: 'Won',
        slug: 'won',
        order: 2,
        count: 1,
        value: 30,
        isWon: true,
        isLost: false,
      },
      {
        phaseId: phase('lost'),
        name: 'Lost',
        slug: 'lost',
        order: 3,
        count: 1,
        value: 7,
        isWon: false,
        isLost: true,
      },
    ]);
    expect(r.assignees).toEqual(
      [
        { membershipId: t.membershipId, displayName: t.user.username, count: 2, value: 150 },
        { membershipId: null, displayName: 'Unassigned', count: 2, value: 37 },
        { membershipId: other.membershipId, displayName: other.user.username, count: 1, value: 50 },
      ].sort((a, b) => b.count - a.count || a.displayName.localeCompare(b.displayName)),
    );
    expect(r.tags.map((x: any) => [x.name, x.count, x.color]).sort()).toEqual([
      ['Cold', 1, '#0000ff'],
      ['Hot', 2, '#f00'],
    ]);
    const today = new Date().toISOString().slice(0, 10);
    expect(r.createdByDay).toEqual([{ date: today, count: 4 }]);
  });

  test('the date range filters by creation; cards without a phase form the __no_phase__ row', async () => {
    const t = await newTenant();
    const empty = await t.api.post('/boards', { data: { name: 'No phases' } });
    const boardId = empty.body.documentId;
    await t.api.post(`/boards/${boardId}/cards`, { data: { title: 'Loose', value: 3 } });
    const r = (await t.api.get(`/boards/${boardId}/report`)).body;
    expect(r.phases).toEqual([
      {
        phaseId: '__no_phase__',
        name: 'No phase',
        slug: '__no_phase__',
        order: -1,
        count: 1,
        value: 3,
        isWon: false,
        isLost: false,
      },
    ]);
    const past = await t.api.get(`/boards/${boardId}/report`, {
      from: '2000-01-01T00:00:00Z',
      to: '2000-12-31T00:00:00Z',
    });
    expect(past.body.summary.totalCards).toBe(0);
    expect(past.body.dateRange).toEqual({ from: '2000-01-01T00:00:00.000Z', to: '2000-12-31T00:00:00.000Z' });
    expect(
      (
        await t.api.get(`/boards/${boardId}/report`, {
          from: '2001-01-01T00:00:00Z',
          to: '2000-01-01T00:00:00Z',
        })
      ).status,
    ).toBe(400);
    expect((await t.api.get(`/boards/${boardId}/report`, { from: 'yesterday' })).status).toBe(400);
  });
});

describe('card aggregate', () => {
  test('sum, avg, count, min, max with groupBy phase, assignee, tag and a select field, plus filters', async () => {
    const { t, boardId, phase } = await seeded();
    const agg = (q: Record<string, unknown>) => t.api.get(`/boards/${boardId}/cards/aggregate`, q);
    const total = await agg({ field: 'value', fn: 'sum' });
    expect(total.status).toBe(200);
    expect(total.body).toEqual({
      field: 'value',
      fn: 'sum',
      groupBy: null,
      value: 187,
      count: 4,
      groups: [],
    });
    const byPhase = await agg({ fn: 'sum', groupBy: 'phase' });
    expect(byPhase.body.value).toBe(187);
    expect(byPhase.body.groups).toEqual([
      { key: phase('lead'), label: 'Lead', value: 150, count: 2 },
      { key: phase('won'), label: 'Won', value: 30, count: 1 },
      { key: phase('lost'), label: 'Lost', value: 7, count: 1 },
    ]);
    const byTag = await agg({ fn: 'count', groupBy: 'tag' });
    expect(byTag.body.count).toBe(4);
    expect(byTag.body.groups.map((g: any) => [g.label, g.value])).toEqual([
      ['Hot', 2],
      [null, 2],
      ['Cold', 1],
    ]);
    const byAssignee = await agg({ fn: 'max', groupBy: 'assignee' });
    expect(byAssignee.body.groups.find((g: any) => g.key === t.membershipId).value).toBe(100);
    const bySize = await agg({ fn: 'avg', groupBy: 'size' });
    expect(bySize.body.groups.find((g: any) => g.key === 'large')).toMatchObject({
      label: 'Large',
      value: 53.5,
      count: 2,
    });
    const budget = await agg({ field: 'budget', fn: 'min' });
    expect(budget.body.value).toBe(30);
    const filtered = await agg({ fn: 'sum', 'filters[tags][slug][$eq]': 'hot' });
    expect(filtered.body).toMatchObject({ value: 150, count: 2 });
    const none = await agg({ fn: 'sum', groupBy: 'phase', 'filters[title][$eq]': 'nothing' });
    expect(none.body).toMatchObject({ value: null, count: 0, groups: [] });
    const countFilled = await agg({ field: 'size', fn: 'count' });
    expect(countFilled.body.value).toBe(3);
  });

  test('bad aggregate requests are 400', async () => {
    const { t, boardId } = await seeded();
    const agg = (q: Record<string, unknown>) => t.api.get(`/boards/${boardId}/cards/aggregate`, q);
    expect((await agg({ field: 'nope', fn: 'sum' })).status).toBe(400);
    expect((await agg({ field: 'email', fn: 'sum' })).status).toBe(400);
    expect((await agg({ fn: 'median' })).status).toBe(400);
    expect((await agg({ groupBy: 'email' })).status).toBe(400);
    expect((await agg({ 'filters[nope]': 1 })).status).toBe(400);
  });
});
