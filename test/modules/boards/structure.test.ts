import { beforeAll, describe, expect, test } from 'vitest';
import { newTenant, type Tenant } from '../../helpers/app.js';
import { type Board, createBoard, errorPaths, hasErrorAt } from './factory.js';

let t: Tenant;
beforeAll(async () => {
  t = await newTenant();
});

const order = async (b: Board) =>
  (await t.api.get(`/boards/${b.documentId}/phases`)).body.data.map((p: any) => [
    p.slug,
    p.order,
    p.isPublic,
  ]);

describe('phases', () => {
  test('lists phases in order with their fields; reads one', async () => {
    const b = await createBoard(t.api);
    const res = await t.api.get(`/boards/${b.documentId}/phases`);
    expect(res.status).toBe(200);
    expect(res.body.meta.pagination).toEqual({ page: 1, pageSize: 25, pageCount: 1, total: 3 });
    expect(res.body.data.map((p: any) => p.slug)).toEqual(['lead', 'proposal', 'won']);
    expect(res.body.data[0].fields.map((f: any) => f.slug)).toEqual(['email', 'size']);
    const one = await t.api.get(`/boards/${b.documentId}/phases/${b.phases[1].documentId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ slug: 'proposal', order: 1, maxTimeInPhaseHours: 48, isPublic: false });
    expect((await t.api.get(`/boards/${b.documentId}/phases/${b.tags[0].documentId}`)).status).toBe(404);
    const paged = await t.api.get(`/boards/${b.documentId}/phases`, {
      'pagination[pageSize]': '2',
      'pagination[page]': '2',
    });
    expect(paged.body.data.map((p: any) => p.slug)).toEqual(['won']);
    expect((await t.api.get(`/boards/${b.documentId}/phases`, { sort: 'name' })).status).toBe(400);
  });

  test('appends by default; inserting at order 0 makes the new phase the public entry form', async () => {
    const b = await createBoard(t.api);
    const last = await t.api.post(`/boards/${b.documentId}/phases`, {
      data: { name: 'Lost', description: 'gone', maxTimeInPhaseHours: null },
    });
    expect(last.status).toBe(201);
    expect(last.body).toMatchObject({
      slug: 'lost',
      order: 3,
      isPublic: false,
      description: 'gone',
      fields: [],
    });
    const first = await t.api.post(`/boards/${b.documentId}/phases`, { data: { name: 'Form', order: 0 } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ order: 0, isPublic: true });
    expect(await order(b)).toEqual([
      ['form', 0, true],
      ['lead', 1, true],
      ['proposal', 2, false],
      ['won', 3, false],
      ['lost', 4, false],
    ]);
    const far = await t.api.post(`/boards/${b.documentId}/phases`, { data: { name: 'Far', order: 99 } });
    expect(far.body.order).toBe(5);
  });

  test('moves a phase and renumbers the others', async () => {
    const b = await createBoard(t.api);
    const res = await t.api.put(`/boards/${b.documentId}/phases/${b.phases[2].documentId}`, {
      data: { order: 0, name: 'Closed', maxTimeInPhaseHours: 10 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Closed',
      slug: 'won',
      order: 0,
      isPublic: true,
      maxTimeInPhaseHours: 10,
    });
    expect(await order(b)).toEqual([
      ['won', 0, true],
      ['lead', 1, true],
      ['proposal', 2, false],
    ]);
    const back = await t.api.put(`/boards/${b.documentId}/phases/${b.phases[2].documentId}`, {
      data: { order: 2, isPublic: false, maxTimeInPhaseHours: null },
    });
    expect(back.body).toMatchObject({ order: 2, isPublic: false, maxTimeInPhaseHours: null });
    expect(await order(b)).toEqual([
      ['lead', 0, true],
      ['proposal', 1, false],
      ['won', 2, false],
    ]);
  });

  test('slugs are generated per board, explicit duplicates are a 400', async () => {
    const b = await createBoard(t.api);
    const again = await t.api.post(`/boards/${b.documentId}/phases`, { data: { name: 'Lead' } });
    expect(again.body.slug).toBe('lead-2');
    const third = await t.api.post(`/boards/${b.documentId}/phases`, { data: { name: 'Lead' } });
    expect(third.body.slug).toBe('lead-3');
    const other = await createBoard(t.api);
    expect(other.phases[0].slug).toBe('lead');
    const dup = await t.api.post(`/boards/${b.documentId}/phases`, { data: { name: 'X', slug: 'proposal' } });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details.duplicateKeys).toEqual(['slug']);
    const rename = await t.api.put(`/boards/${b.documentId}/phases/${b.phases[0].documentId}`, {
      data: { slug: 'won' },
    });
    expect(rename.status).toBe(400);
    expect(errorPaths(rename.body)).toEqual(['slug']);
    const ok = await t.api.put(`/boards/${b.documentId}/phases/${b.phases[0].documentId}`, {
      data: { slug: 'intake' },
    });
    expect(ok.body.slug).toBe('intake');
  });

  test('allowed transitions by slug, documentId or { documentId }; read back as { phase: { documentId } }', async () => {
    const b = await createBoard(t.api);
    const [lead, proposal, won] = b.phases;
    const res = await t.api.put(`/boards/${b.documentId}/phases/${lead.documentId}`, {
      data: {
        allowedTransitions: [{ phase: 'won', allowed: false }, { phase: proposal.documentId }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.allowedTransitions).toEqual([
      { phase: { documentId: won.documentId }, allowed: false },
      { phase: { documentId: proposal.documentId }, allowed: true },
    ]);
    const roundTrip = await t.api.put(`/boards/${b.documentId}/phases/${lead.documentId}`, {
      data: { allowedTransitions: res.body.allowedTransitions },
    });
    expect(roundTrip.body.allowedTransitions).toEqual(res.body.allowedTransitions);
    const created = await t.api.post(`/boards/${b.documentId}/phases`, {
      data: { name: 'Lost', allowedTransitions: [{ phase: 'won', allowed: false }] },
    });
    expect(created.body.allowedTransitions).toEqual([
      { phase: { documentId: won.documentId }, allowed: false },
    ]);
  });

  test.each([
    ['an SLA of 0', { maxTimeInPhaseHours: 0 }, 'maxTimeInPhaseHours'],
    ['an SLA above 8760', { maxTimeInPhaseHours: 8761 }, 'maxTimeInPhaseHours'],
    ['a text SLA', { maxTimeInPhaseHours: '5' }, 'maxTimeInPhaseHours'],
    ['a negative order', { order: -1 }, 'order'],
    [
      'an unknown transition target',
      { allowedTransitions: [{ phase: 'nope', allowed: false }] },
      'allowedTransitions.0.phase',
    ],
    ['a transition to itself', { allowedTransitions: [{ phase: 'lead' }] }, 'allowedTransitions.0.phase'],
    [
      'a transition listed twice',
      { allowedTransitions: [{ phase: 'won' }, { phase: 'won', allowed: false }] },
      'allowedTransitions.1.phase',
    ],
    ['a private entry phase', { isPublic: false }, 'isPublic'],
    ['an unknown key', { colour: 'red' }, ''],
  ])('PUT rejects %s with a 400', async (_label, data, path) => {
    const b = await createBoard(t.api);
    const res = await t.api.put(`/boards/${b.documentId}/phases/${b.phases[0].documentId}`, { data });
    expect(res.status).toBe(400);
    if (path) expect(hasErrorAt(res.body, path)).toBe(true);
  });

  test.each([
    ['no name', {}, 'name'],
    ['a private phase at order 0', { name: 'x', order: 0, isPublic: false }, 'isPublic'],
    ['an SLA of 8761', { name: 'x', maxTimeInPhaseHours: 8761 }, 'maxTimeInPhaseHours'],
    ['nested fields (they have their own route)', { name: 'x', fields: [] }, ''],
  ])('POST rejects %s with a 400', async (_label, data, path) => {
    const b = await createBoard(t.api);
    const res = await t.api.post(`/boards/${b.documentId}/phases`, { data });
    expect(res.status).toBe(400);
    if (path) expect(hasErrorAt(res.body, path)).toBe(true);
  });

  test('deleting a phase renumbers, drops transitions to it, clears won/lost and removes its fields', async () => {
    const b = await createBoard(t.api, { boardSettings: { wonPhase: 'won', lostPhase: 'proposal' } });
    const [lead, proposal, won] = b.phases;
    await t.api.put(`/boards/${b.documentId}/phases/${won.documentId}`, {
      data: {
        allowedTransitions: [
          { phase: 'proposal', allowed: false },
          { phase: 'lead', allowed: false },
        ],
      },
    });
    const res = await t.api.delete(`/boards/${b.documentId}/phases/${proposal.documentId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ documentId: proposal.documentId, deleted: true });
    const after = (await t.api.get(`/boards/${b.documentId}`)).body;
    expect(after.phases.map((p: any) => [p.slug, p.order])).toEqual([
      ['lead', 0],
      ['won', 1],
    ]);
    expect(after.phases[1].allowedTransitions).toEqual([
      { phase: { documentId: lead.documentId }, allowed: false },
    ]);
    expect(after.boardSettings).toMatchObject({ wonPhase: won.documentId, lostPhase: null });
    const fields = (await t.api.get(`/boards/${b.documentId}/fields`)).body.data.map((f: any) => f.slug);
    expect(fields).toEqual(['email', 'size']);
    // the entry phase goes: the next one becomes the (public) entry form
    await t.api.delete(`/boards/${b.documentId}/phases/${lead.documentId}`);
    expect(await order(b)).toEqual([['won', 0, true]]);
    expect((await t.api.delete(`/boards/${b.documentId}/phases/${lead.documentId}`)).status).toBe(404);
  });

  test('a phase whose fields drive conditions elsewhere cannot be deleted (422)', async () => {
    const b = await createBoard(t.api);
    await t.api.post(`/boards/${b.documentId}/field-conditions`, {
      data: {
        name: 'Needs amount',
        scope: 'board',
        criteria: [{ expressions: [{ fieldSlug: 'amount', operator: 'gt', value: 10 }] }],
        actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['size'] }],
      },
    });
    const res = await t.api.delete(`/boards/${b.documentId}/phases/${b.phases[1].documentId}`);
    expect(res.status).toBe(422);
    expect(res.body.error.details.conditions.map((c: any) => c.name)).toEqual(['Needs amount']);
  });

  test('a phase that still holds cards cannot be deleted (422)', async () => {
    const b = await createBoard(t.api);
    const card = await t.api.post(`/boards/${b.documentId}/cards`, {
      data: { title: 'c', fields: { email: 'a@b.co' } },
    });
    expect(card.status).toBe(201);
    const res = await t.api.delete(`/boards/${b.documentId}/phases/${b.phases[0].documentId}`);
    expect(res.status).toBe(422);
    expect(res.body.error.details.cardCount).toBe(1);
    await t.api.delete(`/boards/${b.documentId}/cards/${card.body.documentId}`);
    expect((await t.api.delete(`/boards/${b.documentId}/phases/${b.phases[0].documentId}`)).status).toBe(200);
  });
});

describe('fields', () => {
  const ALL_TYPES = [
    'text',
    'textarea',
    'richtext',
    'email',
    'number',
    'date',
    'datetime',
    'select',
    'multiselect',
    'radio',
    'switch',
    'file',
    'url',
    'phone',
    'card_link',
    'hidden',
    'statement',
    'time',
    'currency',
    'document',
    'checkbox',
  ];

  test('accepts each of the 21 types', async () => {
    const b = await createBoard(t.api);
    for (const type of ALL_TYPES) {
      const options = ['select', 'multiselect', 'radio'].includes(type)
        ? ['a', { value: 'b', label: 'B' }]
        : undefined;
      const res = await t.api.post(`/boards/${b.documentId}/fields`, {
        data: { label: `F ${type}`, type, phase: 'proposal', options },
      });
      expect(res.status, type).toBe(201);
      expect(res.body.type).toBe(type);
      expect(res.body.options).toEqual(options ?? []);
    }
    const list = await t.api.get(`/boards/${b.documentId}/fields`, {
      phase: 'proposal',
      'pagination[pageSize]': '100',
    });
    expect(list.body.meta.pagination.total).toBe(22);
    expect(list.body.data.map((f: any) => f.order)).toEqual([...Array(22).keys()]);
  });

  test('creates a field in a phase named by slug or documentId, with every attribute', async () => {
    const b = await createBoard(t.api);
    const res = await t.api.post(`/boards/${b.documentId}/fields`, {
      data: {
        label: 'Priority level',
        type: 'radio',
        phase: b.phases[0].documentId,
        required: true,
        placeholder: 'pick one',
        helpText: 'how urgent',
        defaultValue: 'low',
        options: [
          { value: 'low', label: 'Low' },
          { value: 'high', label: 'High' },
        ],
        order: 7,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      label: 'Priority level',
      slug: 'priority-level',
      type: 'radio',
      order: 7,
      required: true,
      placeholder: 'pick one',
      helpText: 'how urgent',
      defaultValue: 'low',
      phase: { documentId: b.phases[0].documentId, name: 'Lead' },
    });
    const bySlug = await t.api.post(`/boards/${b.documentId}/fields`, {
      data: { label: 'Notes', slug: 'notes_1', type: 'textarea', phase: 'won' },
    });
    expect(bySlug.body).toMatchObject({ slug: 'notes_1', phase: { name: 'Won' } });
    const got = await t.api.get(`/boards/${b.documentId}/fields/${res.body.documentId}`);
    expect(got.body).toEqual(res.body);
    const all = await t.api.get(`/boards/${b.documentId}/fields`);
    expect(all.body.data.map((f: any) => f.slug)).toEqual([
      'email',
      'size',
      'priority-level',
      'amount',
      'notes_1',
    ]);
    const dupLabel = await t.api.post(`/boards/${b.documentId}/fields`, {
      data: { label: 'Email', type: 'email', phase: 'won' },
    });
    expect(dupLabel.body.slug).toBe('email-2');
  });

  test.each([
    ['an unknown phase', { label: 'x', type: 'text', phase: 'nope' }, 'phase'],
    ['no phase', { label: 'x', type: 'text' }, 'phase'],
    ['no label', { type: 'text', phase: 'lead' }, 'label'],
    ['an unknown type', { label: 'x', type: 'colour', phase: 'lead' }, 'type'],
    ['a select without options', { label: 'x', type: 'select', phase: 'lead' }, 'options'],
    [
      'a multiselect with empty options',
      { label: 'x', type: 'multiselect', phase: 'lead', options: [] },
      'options',
    ],
    ['options on a text field', { label: 'x', type: 'text', phase: 'lead', options: ['a'] }, 'options'],
    [
      'duplicate options',
      { label: 'x', type: 'radio', phase: 'lead', options: ['a', { value: 'a', label: 'A' }] },
      'options',
    ],
    [
      'an option object without label',
      { label: 'x', type: 'select', phase: 'lead', options: [{ value: 'a' }] },
      'options.0',
    ],
    ['a numeric option', { label: 'x', type: 'select', phase: 'lead', options: [1] }, 'options.0'],
    [
      'a select default outside the options',
      { label: 'x', type: 'select', phase: 'lead', options: ['a'], defaultValue: 'b' },
      'defaultValue',
    ],
    [
      'a multiselect default outside the options',
      { label: 'x', type: 'multiselect', phase: 'lead', options: ['a', 'b'], defaultValue: 'a,c' },
      'defaultValue',
    ],
    [
      'a non-numeric number default',
      { label: 'x', type: 'number', phase: 'lead', defaultValue: 'ten' },
      'defaultValue',
    ],
    [
      'a non-boolean switch default',
      { label: 'x', type: 'switch', phase: 'lead', defaultValue: 'yes' },
      'defaultValue',
    ],
    ['a duplicate explicit slug', { label: 'x', slug: 'email', type: 'text', phase: 'won' }, 'slug'],
    ['a bad slug', { label: 'x', slug: 'Bad Slug', type: 'text', phase: 'won' }, 'slug'],
  ])('rejects %s with a 400', async (_label, data, path) => {
    const b = await createBoard(t.api);
    const res = await t.api.post(`/boards/${b.documentId}/fields`, { data });
    expect(res.status).toBe(400);
    expect(hasErrorAt(res.body, path)).toBe(true);
  });

  test('a duplicate explicit slug names the key', async () => {
    const b = await createBoard(t.api);
    const res = await t.api.post(`/boards/${b.documentId}/fields`, {
      data: { label: 'x', slug: 'amount', type: 'text', phase: 'lead' },
    });
    expect(res.body.error.details.duplicateKeys).toEqual(['slug']);
  });

  test('updates a field, moves it to another phase, keeps its type', async () => {
    const b = await createBoard(t.api);
    const size = b.phases[0].fields[1];
    const res = await t.api.put(`/boards/${b.documentId}/fields/${size.documentId}`, {
      data: {
        label: 'Company size',
        required: true,
        options: ['s', 'm', 'l'],
        defaultValue: 'm',
        phase: 'proposal',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      label: 'Company size',
      slug: 'size',
      required: true,
      options: ['s', 'm', 'l'],
      defaultValue: 'm',
      phase: { documentId: b.phases[1].documentId },
    });
    const badDefault = await t.api.put(`/boards/${b.documentId}/fields/${size.documentId}`, {
      data: { options: ['x'] },
    });
    expect(badDefault.status).toBe(400);
    expect(errorPaths(badDefault.body)).toEqual(['defaultValue']);
    const typeChange = await t.api.put(`/boards/${b.documentId}/fields/${size.documentId}`, {
      data: { type: 'text' },
    });
    expect(typeChange.status).toBe(422);
    const sameType = await t.api.put(`/boards/${b.documentId}/fields/${size.documentId}`, {
      data: { type: 'select', placeholder: null },
    });
    expect(sameType.status).toBe(200);
    expect(
      (await t.api.put(`/boards/${b.documentId}/fields/${b.tags[0].documentId}`, { data: { label: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (await t.api.put(`/boards/${b.documentId}/fields/${size.documentId}`, { data: { phase: 'nope' } }))
        .status,
    ).toBe(400);
  });

  test('renaming a slug rewrites the conditions that name it; a field in use cannot be deleted', async () => {
    const b = await createBoard(t.api);
    const email = b.phases[0].fields[0];
    const cond = await t.api.post(`/boards/${b.documentId}/field-conditions`, {
      data: {
        name: 'Show size',
        phase: 'lead',
        criteria: [{ expressions: [{ fieldSlug: 'email', operator: 'contains', value: '@corp' }] }],
        actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['size'] }],
        actionsWhenFalse: [{ type: 'hide', targetFieldSlugs: ['size', 'email'] }],
      },
    });
    expect(cond.status).toBe(201);
    const renamed = await t.api.put(`/boards/${b.documentId}/fields/${email.documentId}`, {
      data: { slug: 'work_email' },
    });
    expect(renamed.body.slug).toBe('work_email');
    const c = (await t.api.get(`/boards/${b.documentId}/field-conditions/${cond.body.documentId}`)).body;
    expect(c.criteria[0].expressions[0].fieldSlug).toBe('work_email');
    expect(c.actionsWhenFalse[0].targetFieldSlugs).toEqual(['size', 'work_email']);
    const blocked = await t.api.delete(`/boards/${b.documentId}/fields/${email.documentId}`);
    expect(blocked.status).toBe(422);
    expect(blocked.body.error.details.conditions[0].documentId).toBe(cond.body.documentId);
    const amount = b.phases[1].fields[0];
    const del = await t.api.delete(`/boards/${b.documentId}/fields/${amount.documentId}`);
    expect(del.status).toBe(200);
    expect((await t.api.get(`/boards/${b.documentId}/fields/${amount.documentId}`)).status).toBe(404);
    expect((await t.api.delete(`/boards/${b.documentId}/fields/${amount.documentId}`)).status).toBe(404);
  });

  test('listing by an unknown phase is a 400', async () => {
    const b = await createBoard(t.api);
    const res = await t.api.get(`/boards/${b.documentId}/fields`, { phase: 'nope' });
    expect(res.status).toBe(400);
    expect(errorPaths(res.body)).toEqual(['phase']);
  });
});

describe('tags', () => {
  test('creates, lists, updates and deletes tags', async () => {
    const b = await createBoard(t.api);
    const res = await t.api.post(`/boards/${b.documentId}/tags`, {
      data: { name: 'Follow up!', color: '#A1B2C3' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      documentId: expect.any(String),
      name: 'Follow up!',
      slug: 'follow-up',
      color: '#A1B2C3',
    });
    const again = await t.api.post(`/boards/${b.documentId}/tags`, { data: { name: 'Follow up' } });
    expect(again.body).toMatchObject({ slug: 'follow-up-2', color: null });
    const list = await t.api.get(`/boards/${b.documentId}/tags`);
    expect(list.body.data.map((x: any) => x.slug)).toEqual(['cold', 'follow-up-2', 'follow-up', 'hot']);
    const upd = await t.api.put(`/boards/${b.documentId}/tags/${res.body.documentId}`, {
      data: { name: 'Renamed', color: '#fff', slug: 'renamed' },
    });
    expect(upd.body).toMatchObject({ name: 'Renamed', color: '#fff', slug: 'renamed' });
    const clear = await t.api.put(`/boards/${b.documentId}/tags/${res.body.documentId}`, {
      data: { color: null },
    });
    expect(clear.body.color).toBeNull();
    expect((await t.api.get(`/boards/${b.documentId}/tags/${res.body.documentId}`)).body.name).toBe(
      'Renamed',
    );
    const del = await t.api.delete(`/boards/${b.documentId}/tags/${res.body.documentId}`);
    expect(del.body).toEqual({ documentId: res.body.documentId, deleted: true });
    expect((await t.api.get(`/boards/${b.documentId}/tags/${res.body.documentId}`)).status).toBe(404);
  });

  test.each([
    ['a named color', { name: 'x', color: 'red' }, 'color'],
    ['a color without #', { name: 'x', color: 'ffffff' }, 'color'],
    ['a 5-digit color', { name: 'x', color: '#fffff' }, 'color'],
    ['a non-hex color', { name: 'x', color: '#ggg' }, 'color'],
    ['no name', { color: '#fff' }, 'name'],
    ['a duplicate explicit slug', { name: 'x', slug: 'hot' }, 'slug'],
  ])('rejects %s with a 400', async (_label, data, path) => {
    const b = await createBoard(t.api);
    const res = await t.api.post(`/boards/${b.documentId}/tags`, { data });
    expect(res.status).toBe(400);
    expect(hasErrorAt(res.body, path)).toBe(true);
  });

  test('renaming to a slug in use is a 400; tags of two boards may share slugs', async () => {
    const b = await createBoard(t.api);
    const hot = b.tags.find((x) => x.slug === 'hot')!;
    const res = await t.api.put(`/boards/${b.documentId}/tags/${hot.documentId}`, { data: { slug: 'cold' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.duplicateKeys).toEqual(['slug']);
    const other = await createBoard(t.api);
    expect(other.tags.map((x) => x.slug)).toEqual(b.tags.map((x) => x.slug));
  });
});

describe('field conditions', () => {
  const valid = {
    name: 'Large companies',
    phase: 'lead',
    criteria: [
      {
        operator: 'AND',
        expressions: [
          { fieldSlug: 'size', operator: 'eq', value: 'large' },
          { fieldSlug: 'email', operator: 'notEmpty' },
        ],
      },
      { expressions: [{ fieldSlug: 'size', operator: 'in', value: ['small'] }] },
    ],
    actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['amount'] }],
  };

  test('creates, lists, reads, updates and deletes a condition', async () => {
    const b = await createBoard(t.api);
    const res = await t.api.post(`/boards/${b.documentId}/field-conditions`, { data: valid });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Large companies',
      scope: 'phase',
      order: 0,
      enabled: true,
      phase: { documentId: b.phases[0].documentId, name: 'Lead' },
      actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['amount'] }],
      actionsWhenFalse: [],
    });
    expect(res.body.criteria[1]).toEqual({
      operator: 'AND',
      expressions: [{ fieldSlug: 'size', operator: 'in', value: ['small'] }],
    });
    const second = await t.api.post(`/boards/${b.documentId}/field-conditions`, {
      data: { ...valid, name: 'Board wide', scope: 'board', phase: undefined, enabled: false },
    });
    expect(second.body).toMatchObject({ scope: 'board', phase: null, order: 1, enabled: false });
    const list = await t.api.get(`/boards/${b.documentId}/field-conditions`);
    expect(list.body.data.map((c: any) => c.name)).toEqual(['Large companies', 'Board wide']);
    const upd = await t.api.put(`/boards/${b.documentId}/field-conditions/${res.body.documentId}`, {
      data: { scope: 'board', order: 5, actionsWhenFalse: [{ type: 'hide', targetFieldSlugs: ['amount'] }] },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ scope: 'board', phase: null, order: 5, name: 'Large companies' });
    expect(upd.body.actionsWhenFalse).toEqual([{ type: 'hide', targetFieldSlugs: ['amount'] }]);
    const back = await t.api.put(`/boards/${b.documentId}/field-conditions/${res.body.documentId}`, {
      data: { scope: 'phase', phase: b.phases[1].documentId },
    });
    expect(back.body.phase.name).toBe('Proposal');
    const del = await t.api.delete(`/boards/${b.documentId}/field-conditions/${res.body.documentId}`);
    expect(del.status).toBe(200);
    expect((await t.api.get(`/boards/${b.documentId}/field-conditions/${res.body.documentId}`)).status).toBe(
      404,
    );
  });

  test.each([
    ['a phase scope without a phase', { ...valid, phase: undefined }, 'phase'],
    ['a board scope with a phase', { ...valid, scope: 'board' }, 'phase'],
    ['an unknown phase', { ...valid, phase: 'nope' }, 'phase'],
    ['an unknown scope', { ...valid, scope: 'card' }, 'scope'],
    [
      'an unknown field in criteria',
      { ...valid, criteria: [{ expressions: [{ fieldSlug: 'nope', operator: 'empty' }] }] },
      'criteria.0.expressions.0.fieldSlug',
    ],
    [
      'an unknown operator',
      { ...valid, criteria: [{ expressions: [{ fieldSlug: 'email', operator: 'like', value: 'x' }] }] },
      'criteria.0.expressions.0.operator',
    ],
    [
      'a missing value',
      { ...valid, criteria: [{ expressions: [{ fieldSlug: 'email', operator: 'eq' }] }] },
      'criteria.0.expressions.0.value',
    ],
    [
      'a scalar for in',
      { ...valid, criteria: [{ expressions: [{ fieldSlug: 'size', operator: 'in', value: 'small' }] }] },
      'criteria.0.expressions.0.value',
    ],
    [
      'an OR group operator',
      { ...valid, criteria: [{ operator: 'OR', expressions: [{ fieldSlug: 'email', operator: 'empty' }] }] },
      'criteria.0.operator',
    ],
    ['empty criteria', { ...valid, criteria: [] }, 'criteria'],
    ['an empty group', { ...valid, criteria: [{ expressions: [] }] }, 'criteria.0.expressions'],
    [
      'an unknown target field',
      { ...valid, actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['nope'] }] },
      'actionsWhenTrue.0.targetFieldSlugs.0',
    ],
    [
      'an unknown action type',
      { ...valid, actionsWhenFalse: [{ type: 'require', targetFieldSlugs: ['email'] }] },
      'actionsWhenFalse.0.type',
    ],
  ])('rejects %s with a 400', async (_label, data, path) => {
    const b = await createBoard(t.api);
    const res = await t.api.post(`/boards/${b.documentId}/field-conditions`, { data });
    expect(res.status).toBe(400);
    expect(hasErrorAt(res.body, path)).toBe(true);
  });
});

describe('unknown boards', () => {
  const bodies: Record<string, unknown> = {
    phases: { name: 'x' },
    fields: { label: 'x', type: 'text', phase: 'lead' },
    tags: { name: 'x' },
    'field-conditions': {
      name: 'x',
      scope: 'board',
      criteria: [{ expressions: [{ fieldSlug: 'a', operator: 'empty' }] }],
    },
  };
  test.each(Object.keys(bodies))('/%s of an unknown board is a 404', async (path) => {
    const base = `/boards/nope00000000000000000000/${path}`;
    expect((await t.api.get(base)).status).toBe(404);
    expect((await t.api.post(base, { data: bodies[path] })).status).toBe(404);
    expect((await t.api.put(`${base}/x`, { data: {} })).status).toBe(404);
    expect((await t.api.delete(`${base}/x`)).status).toBe(404);
  });
});
