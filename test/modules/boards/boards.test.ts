import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { createBoard, errorPaths, hasErrorAt } from './factory.js';

let t: Tenant;
beforeAll(async () => {
  t = await newTenant();
});

describe('POST /boards', () => {
  test('creates a board with the defaults and reads it back', async () => {
    const res = await t.api.post('/boards', { data: { name: 'Fundraising Q3' } });
    expect(res.status).toBe(201);
    const b = res.body;
    expect(b).toMatchObject({
      name: 'Fundraising Q3',
      slug: 'fundraising-q3',
      active: true,
      boardType: 'kanban',
      icon: null,
      color: null,
      template: null,
      taskStatuses: ['pending', 'in-progress', 'completed', 'cancelled'],
      boardSettings: {
        showValue: false,
        currency: 'USD',
        wonPhase: null,
        lostPhase: null,
        restrictEditToAssignees: false,
        restrictViewToAssignees: false,
        enableProducts: false,
        autoUpdateCardValue: false,
        autoUpdateDueDateFromPhase: false,
      },
      phases: [],
      tags: [],
      members: [],
      editors: [],
    });
    expect(b.owner.documentId).toBe(t.membershipId);
    expect(b.owner.user.email).toBe(t.user.email);
    expect(b.documentId).toMatch(/^[a-z0-9]{24}$/);
    const got = await t.api.get(`/boards/${b.documentId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(b);
  });

  test('creates phases with fields, transitions and tags in one body', async () => {
    const member = await addMember(t, 'member');
    const editor = await addMember(t, 'member');
    const res = await t.api.post('/boards', {
      data: {
        name: 'Deals',
        boardType: 'hybrid',
        icon: 'star',
        color: '#123456',
        taskStatuses: ['todo', 'done'],
        boardSettings: { showValue: true, currency: 'eur', wonPhase: 'won', lostPhase: 'lost' },
        members: [member.membershipId],
        editors: [editor.membershipId],
        phases: [
          {
            name: 'Inbox',
            description: 'entry',
            fields: [
              { label: 'Name', type: 'text', required: true, placeholder: 'Jane', helpText: 'full name' },
            ],
            allowedTransitions: [{ phase: 'won', allowed: false }, { phase: 'lost' }],
          },
          { name: 'Won', maxTimeInPhaseHours: 8760 },
          { name: 'Lost', isPublic: true, maxTimeInPhaseHours: 1 },
        ],
        tags: [{ name: 'VIP', color: '#ABCDEF' }, { name: 'VIP' }],
      },
    });
    expect(res.status).toBe(201);
    const b = res.body;
    expect(b.boardType).toBe('hybrid');
    expect(b.taskStatuses).toEqual(['todo', 'done']);
    expect(b.boardSettings.currency).toBe('EUR');
    expect(b.phases.map((p: any) => [p.slug, p.order, p.isPublic])).toEqual([
      ['inbox', 0, true],
      ['won', 1, false],
      ['lost', 2, true],
    ]);
    const [inbox, won, lost] = b.phases;
    expect(b.boardSettings.wonPhase).toBe(won.documentId);
    expect(b.boardSettings.lostPhase).toBe(lost.documentId);
    expect(inbox.allowedTransitions).toEqual([
      { phase: { documentId: won.documentId }, allowed: false },
      { phase: { documentId: lost.documentId }, allowed: true },
    ]);
    expect(inbox.fields[0]).toMatchObject({
      label: 'Name',
      slug: 'name',
      type: 'text',
      required: true,
      placeholder: 'Jane',
      helpText: 'full name',
      defaultValue: null,
      options: [],
      phase: { documentId: inbox.documentId, name: 'Inbox' },
    });
    expect(b.tags.map((x: any) => [x.slug, x.color])).toEqual([
      ['vip', '#ABCDEF'],
      ['vip-2', null],
    ]);
    expect(b.members.map((m: any) => m.documentId)).toEqual([member.membershipId]);
    expect(b.editors.map((m: any) => m.documentId)).toEqual([editor.membershipId]);
  });

  test('nested phases are placed by their order', async () => {
    const b = await createBoard(t.api, {
      phases: [
        { name: 'Second', order: 1 },
        { name: 'First', order: 0 },
      ],
    });
    expect(b.phases.map((p) => [p.slug, p.order])).toEqual([
      ['first', 0],
      ['second', 1],
    ]);
  });

  test('slugs from names get -2, -3 on clash; an explicit duplicate is a 400 naming the key', async () => {
    const a = await createBoard(t.api, { name: 'Same Name' });
    const b = await createBoard(t.api, { name: 'Same Name' });
    const c = await createBoard(t.api, { name: 'Same Name' });
    expect([a.slug, b.slug, c.slug]).toEqual(['same-name', 'same-name-2', 'same-name-3']);
    const dup = await t.api.post('/boards', { data: { name: 'Other', slug: 'same-name' } });
    expect(dup.status).toBe(400);
    expect(dup.body.error.name).toBe('ValidationError');
    expect(dup.body.error.details.duplicateKeys).toEqual(['slug']);
    const dupPhase = await t.api.post('/boards', {
      data: {
        name: 'P',
        phases: [
          { name: 'A', slug: 'x' },
          { name: 'B', slug: 'x' },
        ],
      },
    });
    expect(dupPhase.status).toBe(400);
    expect(errorPaths(dupPhase.body)).toEqual(['phases.1.slug']);
    const dupField = await t.api.post('/boards', {
      data: {
        name: 'F',
        phases: [
          { name: 'A', fields: [{ label: 'X', type: 'text' }] },
          { name: 'B', fields: [{ label: 'Y', slug: 'x', type: 'text' }] },
        ],
      },
    });
    expect(dupField.status).toBe(400);
    expect(errorPaths(dupField.body)).toEqual(['phases.1.fields.0.slug']);
  });

  test('concurrent creates of the same name all get their own slug', async () => {
    const org = await newTenant();
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => org.api.post('/boards', { data: { name: 'Race' } })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(results.map((r) => r.body.slug).sort()).toEqual(['race', 'race-2', 'race-3', 'race-4']);
  });

  test.each([
    ['no name', {}, 'name'],
    ['an unknown key', { name: 'x', bogus: 1 }, ''],
    ['a bad boardType', { name: 'x', boardType: 'table' }, 'boardType'],
    ['duplicate task statuses', { name: 'x', taskStatuses: ['a', 'a'] }, 'taskStatuses'],
    ['empty task statuses', { name: 'x', taskStatuses: [] }, 'taskStatuses'],
    ['a bad currency', { name: 'x', boardSettings: { currency: 'dollars' } }, 'boardSettings.currency'],
    ['an unknown won phase', { name: 'x', boardSettings: { wonPhase: 'nope' } }, 'boardSettings.wonPhase'],
    ['an unknown member', { name: 'x', members: ['nobody'] }, 'members.0'],
    ['an unknown editor', { name: 'x', editors: ['nobody'] }, 'editors.0'],
    ['an unknown owner', { name: 'x', owner: 'nobody' }, 'owner'],
    ['an unknown template', { name: 'x', template: 'nope' }, 'template'],
    ['a bad slug', { name: 'x', slug: 'Not A Slug!' }, 'slug'],
    [
      'an SLA of 0',
      { name: 'x', phases: [{ name: 'a', maxTimeInPhaseHours: 0 }] },
      'phases.0.maxTimeInPhaseHours',
    ],
    [
      'an SLA of 8761',
      { name: 'x', phases: [{ name: 'a', maxTimeInPhaseHours: 8761 }] },
      'phases.0.maxTimeInPhaseHours',
    ],
    [
      'a fractional SLA',
      { name: 'x', phases: [{ name: 'a', maxTimeInPhaseHours: 1.5 }] },
      'phases.0.maxTimeInPhaseHours',
    ],
    ['a private entry phase', { name: 'x', phases: [{ name: 'a', isPublic: false }] }, 'phases.0.isPublic'],
    ['a bad tag color', { name: 'x', tags: [{ name: 'a', color: 'red' }] }, 'tags.0.color'],
    ['a 4-digit tag color', { name: 'x', tags: [{ name: 'a', color: '#abcd' }] }, 'tags.0.color'],
    [
      'a select without options',
      { name: 'x', phases: [{ name: 'a', fields: [{ label: 's', type: 'select' }] }] },
      'phases.0.fields.0.options',
    ],
    [
      'an unknown field type',
      { name: 'x', phases: [{ name: 'a', fields: [{ label: 's', type: 'color' }] }] },
      'phases.0.fields.0.type',
    ],
    [
      'a transition to an unknown phase',
      { name: 'x', phases: [{ name: 'a', allowedTransitions: [{ phase: 'zzz', allowed: false }] }] },
      'phases.0.allowedTransitions.0.phase',
    ],
    [
      'a transition to itself',
      { name: 'x', phases: [{ name: 'a', allowedTransitions: [{ phase: 'a', allowed: false }] }] },
      'phases.0.allowedTransitions.0.phase',
    ],
  ])('rejects %s with a 400', async (_label, data, path) => {
    const res = await t.api.post('/boards', { data });
    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('ValidationError');
    if (path) expect(hasErrorAt(res.body, path)).toBe(true);
  });

  test('a body without the data envelope is a 400', async () => {
    const res = await t.api.post('/boards', { name: 'x' });
    expect(res.status).toBe(400);
  });
});

describe('GET /boards', () => {
  test('paginates, filters and sorts', async () => {
    const org = await newTenant();
    for (const name of ['Alpha', 'Bravo', 'Charlie']) await createBoard(org.api, { name, phases: [] });
    await org.api.post('/boards', { data: { name: 'Delta', active: false, boardType: 'chat' } });
    const all = await org.api.get('/boards', { 'pagination[pageSize]': '2', sort: 'name:desc' });
    expect(all.status).toBe(200);
    expect(all.body.meta.pagination).toEqual({ page: 1, pageSize: 2, pageCount: 2, total: 4 });
    expect(all.body.data.map((b: any) => b.name)).toEqual(['Delta', 'Charlie']);
    expect(all.body.data[1].tags).toHaveLength(2);
    const page2 = await org.api.get('/boards', {
      'pagination[pageSize]': '2',
      'pagination[page]': '2',
      sort: 'name:desc',
    });
    expect(page2.body.data.map((b: any) => b.name)).toEqual(['Bravo', 'Alpha']);
    const filtered = await org.api.get('/boards', { 'filters[name][$containsi]': 'AR' });
    expect(filtered.body.data.map((b: any) => b.name)).toEqual(['Charlie']);
    const inactive = await org.api.get('/boards', { 'filters[active][$eq]': 'false' });
    expect(inactive.body.data.map((b: any) => b.name)).toEqual(['Delta']);
    const chat = await org.api.get('/boards', { 'filters[boardType]': 'chat' });
    expect(chat.body.meta.pagination.total).toBe(1);
  });

  test('filters on the owner and accepts populate of what boards always carry', async () => {
    const org = await newTenant();
    const admin = await addMember(org, 'admin');
    await createBoard(org.api, { name: 'Mine' });
    await createBoard(org.api, { name: 'Theirs', owner: admin.membershipId });
    await createBoard(org.api, { name: 'Nobody', owner: null });
    const theirs = await org.api.get('/boards', { 'filters[owner][documentId][$eq]': admin.membershipId });
    expect(theirs.body.data.map((b: any) => b.name)).toEqual(['Theirs']);
    const byEmail = await org.api.get('/boards', { 'filters[owner][user][email][$eq]': org.user.email });
    expect(byEmail.body.data.map((b: any) => b.name)).toEqual(['Mine']);
    const none = await org.api.get('/boards', { 'filters[owner][$null]': 'true' });
    expect(none.body.data.map((b: any) => b.name)).toEqual(['Nobody']);
    const populated = await org.api.get('/boards', { 'populate[0]': 'phases', 'populate[1]': 'owner' });
    expect(populated.status).toBe(200);
    expect(populated.body.data[0].phases).toHaveLength(3);
    expect((await org.api.get('/boards', { populate: 'cards' })).status).toBe(400);
  });

  test.each([
    ['an unknown filter', { 'filters[secret][$eq]': 'x' }],
    ['an unknown sort', { sort: 'secret:asc' }],
    ['a bad sort direction', { sort: 'name:up' }],
    ['pageSize above 100', { 'pagination[pageSize]': '101' }],
    ['page 0', { 'pagination[page]': '0' }],
    ['an unknown parameter', { foo: 'bar' }],
    ['a bad enum value', { 'filters[boardType][$eq]': 'table' }],
  ])('rejects %s with a 400', async (_label, query) => {
    const res = await t.api.get('/boards', query);
    expect(res.status).toBe(400);
  });

  test('an unknown board is a 404', async () => {
    expect((await t.api.get('/boards/doesnotexist00000000000')).status).toBe(404);
  });
});

describe('PUT /boards/{id}', () => {
  test('changes attributes, merges settings and replaces people', async () => {
    const b = await createBoard(t.api);
    const m1 = await addMember(t, 'member');
    const m2 = await addMember(t, 'viewer');
    const res = await t.api.put(`/boards/${b.documentId}`, {
      data: {
        name: 'Renamed',
        active: false,
        taskStatuses: ['open', 'closed'],
        boardSettings: { showValue: true, wonPhase: b.phases[2].documentId, restrictViewToAssignees: true },
        members: [m1.membershipId, m2.membershipId],
        editors: [m1.membershipId],
        owner: m1.membershipId,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      slug: b.slug,
      active: false,
      taskStatuses: ['open', 'closed'],
      boardSettings: {
        showValue: true,
        currency: 'USD',
        wonPhase: b.phases[2].documentId,
        lostPhase: null,
        restrictViewToAssignees: true,
      },
    });
    expect(res.body.owner.documentId).toBe(m1.membershipId);
    expect(res.body.members.map((m: any) => m.documentId).sort()).toEqual(
      [m1.membershipId, m2.membershipId].sort(),
    );
    expect(res.body.editors.map((m: any) => m.documentId)).toEqual([m1.membershipId]);
    expect(res.body.phases).toHaveLength(3);
    // wonPhase by slug, owner removed, members emptied
    const again = await t.api.put(`/boards/${b.documentId}`, {
      data: { boardSettings: { wonPhase: 'lead', lostPhase: null }, owner: null, members: [] },
    });
    expect(again.body.boardSettings.wonPhase).toBe(b.phases[0].documentId);
    expect(again.body.owner).toBeNull();
    expect(again.body.members).toEqual([]);
    expect(again.body.editors).toHaveLength(1);
  });

  test.each([
    ['an unknown phase in settings', { boardSettings: { lostPhase: 'nope' } }, 'boardSettings.lostPhase'],
    ['phases (structure has its own routes)', { phases: [] }, ''],
    ['an empty name', { name: '' }, 'name'],
    ['an unknown editor', { editors: ['zzz'] }, 'editors.0'],
  ])('rejects %s with a 400', async (_label, data, path) => {
    const b = await createBoard(t.api);
    const res = await t.api.put(`/boards/${b.documentId}`, { data });
    expect(res.status).toBe(400);
    if (path) expect(hasErrorAt(res.body, path)).toBe(true);
  });

  test('a slug taken by another board is a 400 naming the key', async () => {
    const a = await createBoard(t.api, { name: 'Taken slug' });
    const b = await createBoard(t.api);
    const res = await t.api.put(`/boards/${b.documentId}`, { data: { slug: a.slug } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.duplicateKeys).toEqual(['slug']);
  });

  test('an unknown board is a 404', async () => {
    expect((await t.api.put('/boards/doesnotexist00000000000', { data: { name: 'x' } })).status).toBe(404);
  });
});

describe('DELETE /boards/{id}', () => {
  test('removes the board and everything under it in one go', async () => {
    const { db } = await getApp();
    const m = await addMember(t, 'member');
    const b = await createBoard(t.api, { members: [m.membershipId] });
    const cond = await t.api.post(`/boards/${b.documentId}/field-conditions`, {
      data: {
        name: 'c',
        phase: 'lead',
        criteria: [{ expressions: [{ fieldSlug: 'email', operator: 'notEmpty' }] }],
        actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['size'] }],
      },
    });
    expect(cond.status).toBe(201);
    const cards = await t.api.post(`/boards/${b.documentId}/cards`, {
      data: { title: 'A card', fields: { email: 'a@b.co' }, tags: ['hot'] },
    });
    expect(cards.status).toBe(201);
    const comment = await t.api.post(`/boards/${b.documentId}/cards/${cards.body.documentId}/comments`, {
      data: { content: 'hello' },
    });
    expect(comment.status).toBe(201);
    const res = await t.api.delete(`/boards/${b.documentId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ documentId: b.documentId, deleted: true });
    expect((await t.api.get(`/boards/${b.documentId}/cards/${cards.body.documentId}`)).status).toBe(404);
    expect((await t.api.get(`/boards/${b.documentId}`)).status).toBe(404);
    expect((await t.api.get(`/boards/${b.documentId}/phases`)).status).toBe(404);
    expect((await t.api.delete(`/boards/${b.documentId}`)).status).toBe(404);
    const [left] = await queryRows<Record<string, number>>(
      db.system,
      sql`select
        (select count(*)::int from boards where document_id = ${b.documentId}) as boards,
        (select count(*)::int from phases where document_id in ${b.phases.map((p) => p.documentId)}) as phases,
        (select count(*)::int from field_definitions where document_id in ${b.phases.flatMap((p) => p.fields.map((f) => f.documentId))}) as fields,
        (select count(*)::int from tags where document_id in ${b.tags.map((x) => x.documentId)}) as tags,
        (select count(*)::int from board_members bm join memberships m on m.organization_id = bm.organization_id and m.id = bm.membership_id where m.document_id = ${m.membershipId}) as members,
        (select count(*)::int from field_conditions where document_id = ${cond.body.documentId}) as conditions`,
    );
    expect(left).toEqual({ boards: 0, phases: 0, fields: 0, tags: 0, members: 0, conditions: 0 });
    const [c] = await queryRows<{ cards: number; comments: number; tags: number }>(
      db.system,
      sql`select (select count(*)::int from cards where document_id = ${cards.body.documentId}) as cards,
        (select count(*)::int from comments where document_id = ${comment.body.documentId}) as comments,
        (select count(*)::int from card_tags ct join tags g on g.organization_id = ct.organization_id
          and g.id = ct.tag_id where g.document_id in ${b.tags.map((x) => x.documentId)}) as tags`,
    );
    expect(c).toEqual({ cards: 0, comments: 0, tags: 0 });
    const [audit] = await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from audit_log where action = 'board.deleted' and entity_document_id = ${b.documentId}`,
    );
    expect(audit.n).toBe(1);
  });
});

describe('board templates', () => {
  test('lists the catalogue and reads one', async () => {
    const list = await t.api.get('/board-templates');
    expect(list.status).toBe(200);
    const ids = list.body.data.map((x: any) => x.id);
    expect(ids).toEqual(
      expect.arrayContaining(['sales-funnel', 'recruiting', 'customer-support', 'onboarding']),
    );
    for (const tpl of list.body.data) {
      expect(tpl.phases.length).toBeGreaterThan(2);
      expect(tpl.tags.length).toBeGreaterThan(1);
      expect(tpl.phases[0].isPublic).toBe(true);
      expect(new Set(tpl.phases.flatMap((p: any) => p.fields.map((f: any) => f.type))).size).toBeGreaterThan(
        5,
      );
    }
    const one = await t.api.get('/board-templates/recruiting');
    expect(one.status).toBe(200);
    expect(one.body.name).toBe('Recruiting');
    expect((await t.api.get('/board-templates/nope')).status).toBe(404);
    expect((await t.api.get('/board-templates', { 'pagination[pageSize]': '1' })).body.data).toHaveLength(1);
  });

  test('pt-BR versions: own ids, same shape as the English ones, BRL; `locale` lists one language', async () => {
    const pairs = [
      ['sales-funnel', 'funil-de-vendas'],
      ['recruiting', 'recrutamento'],
      ['customer-support', 'atendimento-ao-cliente'],
      ['onboarding', 'implantacao-de-clientes'],
    ];
    for (const [en, pt] of pairs) {
      const a = (await t.api.get(`/board-templates/${en}`)).body;
      const b = (await t.api.get(`/board-templates/${pt}`)).body;
      expect([a.locale, b.locale]).toEqual(['en', 'pt-BR']);
      expect(b.boardSettings.currency).toBe('BRL');
      expect(b.name).not.toBe(a.name);
      // The same phases with the same SLAs; the pt-BR funnel adds a CPF/CNPJ and a payment-terms field.
      const sla = (x: any) => x.phases.map((p: any) => p.maxTimeInPhaseHours);
      expect(sla(b)).toEqual(sla(a));
      // Every phase has a colour (the Kanban column's stripe), the same in both languages.
      const colors = (x: any) => x.phases.map((p: any) => p.color);
      expect(colors(a).every((c: unknown) => typeof c === 'string' && /^#[0-9A-F]{6}$/.test(c))).toBe(true);
      expect(colors(b)).toEqual(colors(a));
      a.phases.forEach((p: any, i: number) => {
        const types = b.phases[i].fields.map((f: any) => f.type);
        for (const f of p.fields) expect(types, `${pt} ${i} ${f.type}`).toContain(f.type);
      });
      expect(b.phases.map((p: any) => p.allowedTransitions.length)).toEqual(
        a.phases.map((p: any) => p.allowedTransitions.length),
      );
    }
    const pt = await t.api.get('/board-templates', { locale: 'pt-BR' });
    expect(pt.body.data.map((x: any) => x.id)).toEqual(pairs.map((p) => p[1]));
    expect(pt.body.meta.pagination.total).toBe(4);
    const en = await t.api.get('/board-templates', { locale: 'en' });
    expect(en.body.data.map((x: any) => x.id)).toEqual(pairs.map((p) => p[0]));
    const bad = await t.api.get('/board-templates', { locale: 'fr' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.name).toBe('ValidationError');
  });

  test.each([
    'sales-funnel',
    'recruiting',
    'customer-support',
    'onboarding',
    'funil-de-vendas',
    'recrutamento',
    'atendimento-ao-cliente',
    'implantacao-de-clientes',
  ])('builds a board from %s', async (id) => {
    const tpl = (await t.api.get(`/board-templates/${id}`)).body;
    const res = await t.api.post('/boards', { data: { name: `From ${id}`, template: id } });
    expect(res.status).toBe(201);
    const b = res.body;
    expect(b.template).toBe(id);
    expect(b.boardType).toBe(tpl.boardType);
    expect(b.phases.map((p: any) => p.slug)).toEqual(tpl.phases.map((p: any) => p.slug));
    expect(b.phases.map((p: any) => p.color)).toEqual(tpl.phases.map((p: any) => p.color));
    expect(b.phases.map((p: any) => p.fields.map((f: any) => [f.slug, f.type, f.required]))).toEqual(
      tpl.phases.map((p: any) => p.fields.map((f: any) => [f.slug, f.type, f.required])),
    );
    expect(b.tags.map((x: any) => x.slug).sort()).toEqual(tpl.tags.map((x: any) => x.slug).sort());
    const bySlug = new Map(b.phases.map((p: any) => [p.slug, p.documentId]));
    expect(b.boardSettings.wonPhase).toBe(
      tpl.boardSettings.wonPhase ? bySlug.get(tpl.boardSettings.wonPhase) : null,
    );
    expect(b.boardSettings.lostPhase).toBe(
      tpl.boardSettings.lostPhase ? bySlug.get(tpl.boardSettings.lostPhase) : null,
    );
    expect(b.boardSettings.showValue).toBe(tpl.boardSettings.showValue);
  });

  test('body keys override the template', async () => {
    const res = await t.api.post('/boards', {
      data: {
        name: 'Custom sales',
        template: 'sales-funnel',
        boardType: 'chat',
        boardSettings: { currency: 'BRL' },
        tags: [{ name: 'Only tag' }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.boardType).toBe('chat');
    expect(res.body.boardSettings).toMatchObject({ currency: 'BRL', showValue: true });
    expect(res.body.tags.map((x: any) => x.slug)).toEqual(['only-tag']);
    expect(res.body.phases[0].slug).toBe('new-lead');
    const own = await t.api.post('/boards', {
      data: { name: 'Own phases', template: 'sales-funnel', phases: [{ name: 'Just one' }] },
    });
    expect(own.status).toBe(201);
    expect(own.body.phases.map((p: any) => p.slug)).toEqual(['just-one']);
    expect(own.body.boardSettings.wonPhase).toBeNull();
  });
});

describe('permissions', () => {
  test('only admins and owners create and delete boards', async () => {
    const viewer = await addMember(t, 'viewer');
    const member = await addMember(t, 'member');
    const admin = await addMember(t, 'admin');
    expect((await viewer.api.post('/boards', { data: { name: 'v' } })).status).toBe(403);
    expect((await member.api.post('/boards', { data: { name: 'm' } })).status).toBe(403);
    const made = await admin.api.post('/boards', { data: { name: 'a' } });
    expect(made.status).toBe(201);
    expect(made.body.owner.documentId).toBe(admin.membershipId);
    const owned = await createBoard(t.api, { owner: member.membershipId });
    expect((await member.api.delete(`/boards/${owned.documentId}`)).status).toBe(403);
    expect((await admin.api.delete(`/boards/${made.body.documentId}`)).status).toBe(200);
  });

  test('members see only boards they own, are members or editors of', async () => {
    const org = await newTenant();
    const member = await addMember(org, 'member');
    const viewer = await addMember(org, 'viewer');
    const hidden = await createBoard(org.api, { name: 'Hidden' });
    const shared = await createBoard(org.api, {
      name: 'Shared',
      members: [member.membershipId, viewer.membershipId],
    });
    const edited = await createBoard(org.api, { name: 'Edited', editors: [member.membershipId] });
    const owned = await createBoard(org.api, { name: 'Owned', owner: member.membershipId });
    const list = await member.api.get('/boards', { sort: 'name:asc' });
    expect(list.body.data.map((b: any) => b.name)).toEqual(['Edited', 'Owned', 'Shared']);
    expect(list.body.meta.pagination.total).toBe(3);
    expect((await viewer.api.get('/boards')).body.data.map((b: any) => b.name)).toEqual(['Shared']);
    expect((await member.api.get(`/boards/${hidden.documentId}`)).status).toBe(404);
    expect((await member.api.get(`/boards/${hidden.documentId}/phases`)).status).toBe(404);
    expect((await member.api.get(`/boards/${hidden.documentId}/fields`)).status).toBe(404);
    expect((await member.api.get(`/boards/${hidden.documentId}/tags`)).status).toBe(404);
    expect((await member.api.put(`/boards/${hidden.documentId}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await member.api.post(`/boards/${hidden.documentId}/tags`, { data: { name: 'x' } })).status).toBe(
      404,
    );
    expect((await member.api.get(`/boards/${shared.documentId}`)).status).toBe(200);
    expect((await member.api.get(`/boards/${shared.documentId}/phases`)).status).toBe(200);
    expect((await member.api.get(`/boards/${edited.documentId}/tags`)).status).toBe(200);
    // admins see everything
    const admin = await addMember(org, 'admin');
    expect((await admin.api.get('/boards')).body.meta.pagination.total).toBe(4);
    expect((await admin.api.get(`/boards/${owned.documentId}`)).status).toBe(200);
  });

  test('members and editors of a board cannot configure it; its owner can', async () => {
    const org = await newTenant();
    const member = await addMember(org, 'member');
    const editor = await addMember(org, 'member');
    const owner = await addMember(org, 'member');
    const viewerOwner = await addMember(org, 'viewer');
    const b = await createBoard(org.api, {
      members: [member.membershipId],
      editors: [editor.membershipId],
      owner: owner.membershipId,
    });
    const phaseId = b.phases[1].documentId;
    for (const who of [member, editor]) {
      expect((await who.api.put(`/boards/${b.documentId}`, { data: { name: 'x' } })).status).toBe(403);
      expect((await who.api.post(`/boards/${b.documentId}/phases`, { data: { name: 'x' } })).status).toBe(
        403,
      );
      expect(
        (await who.api.put(`/boards/${b.documentId}/phases/${phaseId}`, { data: { name: 'x' } })).status,
      ).toBe(403);
      expect((await who.api.delete(`/boards/${b.documentId}/phases/${phaseId}`)).status).toBe(403);
      expect(
        (
          await who.api.post(`/boards/${b.documentId}/fields`, {
            data: { label: 'x', type: 'text', phase: 'lead' },
          })
        ).status,
      ).toBe(403);
      expect((await who.api.post(`/boards/${b.documentId}/tags`, { data: { name: 'x' } })).status).toBe(403);
      expect((await who.api.delete(`/boards/${b.documentId}/tags/${b.tags[0].documentId}`)).status).toBe(403);
      expect(
        (
          await who.api.post(`/boards/${b.documentId}/field-conditions`, {
            data: {
              name: 'x',
              phase: 'lead',
              criteria: [{ expressions: [{ fieldSlug: 'email', operator: 'empty' }] }],
            },
          })
        ).status,
      ).toBe(403);
    }
    expect((await owner.api.put(`/boards/${b.documentId}`, { data: { name: 'Mine' } })).status).toBe(200);
    expect(
      (await owner.api.post(`/boards/${b.documentId}/tags`, { data: { name: 'Owned tag' } })).status,
    ).toBe(201);
    expect((await owner.api.post(`/boards/${b.documentId}/phases`, { data: { name: 'Extra' } })).status).toBe(
      201,
    );
    // a viewer never configures, even as the board's owner
    const vb = await createBoard(org.api, { owner: viewerOwner.membershipId });
    expect((await viewerOwner.api.get(`/boards/${vb.documentId}`)).status).toBe(200);
    expect((await viewerOwner.api.put(`/boards/${vb.documentId}`, { data: { name: 'x' } })).status).toBe(403);
    expect(
      (await viewerOwner.api.post(`/boards/${vb.documentId}/tags`, { data: { name: 'x' } })).status,
    ).toBe(403);
  });

  test('a viewer of the organization gets 403 on every write, an admin configures any board', async () => {
    const org = await newTenant();
    const viewer = await addMember(org, 'viewer');
    const admin = await addMember(org, 'admin');
    const b = await createBoard(org.api, { members: [viewer.membershipId] });
    const writes = [
      viewer.api.put(`/boards/${b.documentId}`, { data: { name: 'x' } }),
      viewer.api.delete(`/boards/${b.documentId}`),
      viewer.api.post(`/boards/${b.documentId}/phases`, { data: { name: 'x' } }),
      viewer.api.post(`/boards/${b.documentId}/tags`, { data: { name: 'x' } }),
      viewer.api.put(`/boards/${b.documentId}/tags/${b.tags[0].documentId}`, { data: { name: 'x' } }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status).toBe(403);
      expect(res.body.error.name).toBe('ForbiddenError');
    }
    expect((await admin.api.put(`/boards/${b.documentId}`, { data: { color: '#fff' } })).status).toBe(200);
    expect(
      (await admin.api.post(`/boards/${b.documentId}/tags`, { data: { name: 'By admin' } })).status,
    ).toBe(201);
  });
});
