import { sql } from 'drizzle-orm';
import { describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant } from '../../helpers/app.js';
import { createCard, createPipeline, errorPaths } from './factory.js';

describe('card create, read, update, delete', () => {
  test('creates a card in the entry phase with defaults, tags, assignees and a contact', async () => {
    const t = await newTenant();
    const { boardId, phase, board } = await createPipeline(t.api);
    const contact = await t.api.post('/contacts', { data: { name: 'Ana Lima', email: 'ana@example.com' } });
    expect(contact.status).toBe(201);
    const hot = board.tags.find((x: { slug: string }) => x.slug === 'hot');
    const res = await t.api.post(`/boards/${boardId}/cards`, {
      data: {
        fields: { name: 'Ana', email: 'ana@example.com', size: 'large' },
        tags: [hot.documentId, 'cold'],
        assignees: [t.membershipId],
        contact: contact.body.documentId,
        value: 1500.5,
        description: '<p>Big deal</p>',
      },
    });
    expect(res.status).toBe(201);
    const card = res.body;
    expect(card).toMatchObject({
      title: 'Ana',
      value: 1500.5,
      description: '<p>Big deal</p>',
      creationSource: 'api',
      currentPhase: { documentId: phase('lead'), slug: 'lead', order: 0 },
      fields: { name: 'Ana', email: 'ana@example.com', size: 'large', source: 'website' },
      contact: { documentId: contact.body.documentId, name: 'Ana Lima', email: 'ana@example.com' },
      dueDate: null,
      dueDateSource: null,
    });
    expect(card.fieldData).toBeUndefined();
    expect(card.tags.map((x: { slug: string }) => x.slug).sort()).toEqual(['cold', 'hot']);
    expect(Object.keys(card.tags[0]).sort()).toEqual(['color', 'documentId', 'name', 'slug']);
    expect(card.assignees).toEqual([
      {
        documentId: t.membershipId,
        user: { username: t.user.username, email: t.user.email, blocked: false, name: null },
      },
    ]);
    const got = await t.api.get(`/boards/${boardId}/cards/${card.documentId}`, { populate: 'fieldData' });
    expect(got.status).toBe(200);
    const email = got.body.fieldData.find((f: any) => f.field.slug === 'email');
    expect(email).toMatchObject({
      value: { val: 'ana@example.com' },
      field: { slug: 'email', type: 'email', required: true },
      phase: { documentId: phase('lead'), name: 'Lead' },
    });
    expect(email.documentId).toMatch(/^[a-z0-9]{24}$/);
  });

  test('missing required entry fields → 400 naming each path', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const res = await t.api.post(`/boards/${boardId}/cards`, {
      data: { title: 'x', fields: { size: 'small' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('ValidationError');
    expect(errorPaths(res.body).sort()).toEqual(['fields.email', 'fields.name']);
    const none = await t.api.post(`/boards/${boardId}/cards`, { data: {} });
    expect(errorPaths(none.body).sort()).toEqual(['fields.email', 'fields.name']);
  });

  test('unknown tag → 400 listing the board tags; unknown field, member, contact, phase → 400', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const fields = { name: 'A', email: 'a@example.com' };
    const tag = await t.api.post(`/boards/${boardId}/cards`, { data: { fields, tags: ['hot', 'warm'] } });
    expect(tag.status).toBe(400);
    expect(errorPaths(tag.body)).toEqual(['tags.1']);
    expect(tag.body.error.details.validTags.map((x: { slug: string }) => x.slug).sort()).toEqual([
      'cold',
      'hot',
    ]);
    const field = await t.api.post(`/boards/${boardId}/cards`, { data: { fields: { ...fields, nope: 1 } } });
    expect(field.status).toBe(400);
    expect(errorPaths(field.body)).toEqual(['fields.nope']);
    const member = await t.api.post(`/boards/${boardId}/cards`, {
      data: { fields, assignees: ['abcdefghijklmnopqrstuvwx'] },
    });
    expect(errorPaths(member.body)).toEqual(['assignees.0']);
    const contact = await t.api.post(`/boards/${boardId}/cards`, {
      data: { fields, contact: 'abcdefghijklmnopqrstuvwx' },
    });
    expect(errorPaths(contact.body)).toEqual(['contact']);
    const phase = await t.api.post(`/boards/${boardId}/cards`, { data: { fields, currentPhase: 'nowhere' } });
    expect(errorPaths(phase.body)).toEqual(['currentPhase']);
    const extra = await t.api.post(`/boards/${boardId}/cards`, { data: { fields, color: 'red' } });
    expect(extra.status).toBe(400);
  });

  test('update merges fields by slug, null clears, unsent slugs keep their value', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const card = await createCard(t.api, boardId, {
      fields: { name: 'Ana', email: 'a@example.com', size: 'small' },
    });
    const res = await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, {
      data: { title: 'Renamed', fields: { size: 'large', source: null, seats: '12' }, value: 99.99 },
    });
    expect(res.status).toBe(200);
    expect(res.body.title).toBe('Renamed');
    expect(res.body.value).toBe(99.99);
    expect(res.body.fields).toEqual({ name: 'Ana', email: 'a@example.com', size: 'large', seats: 12 });
    const clear = await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, {
      data: { fields: { email: null } },
    });
    expect(clear.status).toBe(400);
    expect(errorPaths(clear.body)).toEqual(['fields.email']);
    const bad = await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, {
      data: { fields: { size: 'huge' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors[0].message).toMatch(/small, large/);
    const due = await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, {
      data: { dueDate: '2030-01-01T10:00:00Z' },
    });
    expect(due.body).toMatchObject({ dueDate: '2030-01-01T10:00:00.000Z', dueDateSource: 'manual' });
  });

  test('delete is permanent; unknown ids are 404', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const card = await createCard(t.api, boardId);
    const del = await t.api.delete(`/boards/${boardId}/cards/${card.documentId}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ documentId: card.documentId, deleted: true });
    expect((await t.api.get(`/boards/${boardId}/cards/${card.documentId}`)).status).toBe(404);
    expect(
      (await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, { data: { title: 'x' } })).status,
    ).toBe(404);
    expect((await t.api.delete(`/boards/${boardId}/cards/${card.documentId}`)).status).toBe(404);
    expect((await t.api.get(`/boards/abcdefghijklmnopqrstuvwx/cards`)).status).toBe(404);
  });

  test('deleting the board deletes its cards, its comments (user and system), tags and assignees', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const other = await createPipeline(t.api);
    const kept = await createCard(t.api, other.boardId);
    const card = await createCard(t.api, boardId, { tags: ['hot'], assignees: [t.membershipId] });
    const comment = await t.api.post(`/boards/${boardId}/cards/${card.documentId}/comments`, {
      data: { content: 'hello' },
    });
    expect(comment.status).toBe(201);
    const { db } = await getApp();
    const [row] = await queryRows<{ id: number; org: number }>(
      db.system,
      sql`select id, organization_id as org from cards where document_id = ${card.documentId}`,
    );
    const rows = async () => {
      const counts = await Promise.all(
        ['cards', 'comments', 'card_tags', 'card_assignees'].map(async (table) => {
          const col = sql.raw(table === 'cards' ? 'id' : 'card_id');
          const [r] = await queryRows<{ n: number }>(
            db.system,
            sql`select count(*)::int as n from ${sql.raw(table)} where organization_id = ${row.org} and ${col} = ${row.id}`,
          );
          return [table, r.n];
        }),
      );
      return Object.fromEntries(counts);
    };
    expect(await rows()).toEqual({ cards: 1, comments: 2, card_tags: 1, card_assignees: 1 });
    expect((await t.api.delete(`/boards/${boardId}`)).status).toBe(200);
    expect((await t.api.get(`/boards/${boardId}/cards`)).status).toBe(404);
    expect(await rows()).toEqual({ cards: 0, comments: 0, card_tags: 0, card_assignees: 0 });
    expect((await t.api.get(`/boards/${other.boardId}/cards/${kept.documentId}`)).status).toBe(200);
  });
});

describe('card list', () => {
  async function seeded() {
    const t = await newTenant();
    const p = await createPipeline(t.api);
    const a = await createCard(t.api, p.boardId, {
      title: 'Acme renewal',
      value: 100,
      tags: ['hot'],
      assignees: [t.membershipId],
      fields: { name: 'Acme', email: 'buyer@acme.io', size: 'large' },
      dueDate: '2020-01-01T00:00:00Z',
    });
    const b = await createCard(t.api, p.boardId, {
      title: 'Globex new',
      value: 250.25,
      tags: ['cold'],
      fields: { name: 'Globex', email: 'it@globex.com', size: 'small' },
      dueDate: '2999-01-01T00:00:00Z',
    });
    const c = await createCard(t.api, p.boardId, {
      title: 'Initech',
      value: 50,
      currentPhase: 'qualified',
      fields: { name: 'Initech', email: 'peter@initech.com' },
    });
    return { t, ...p, a, b, c };
  }
  const titles = (res: any) => {
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.data.map((c: { title: string }) => c.title).sort();
  };

  test('filters: phase $in, fieldData slug + val, fields map, title $containsi, assignees, tags', async () => {
    const { t, boardId, phase } = await seeded();
    const q = (query: Record<string, unknown>) => t.api.get(`/boards/${boardId}/cards`, query);
    expect(titles(await q({ 'filters[currentPhase][documentId][$in][0]': phase('qualified') }))).toEqual([
      'Initech',
    ]);
    expect(titles(await q({ 'filters[currentPhase][slug][$eq]': 'lead' }))).toEqual([
      'Acme renewal',
      'Globex new',
    ]);
    expect(
      titles(
        await q({
          'filters[fieldData][field][slug]': 'email',
          'filters[fieldData][value][val]': 'it@globex.com',
        }),
      ),
    ).toEqual(['Globex new']);
    expect(
      titles(
        await q({
          'filters[fieldData][field][slug]': 'email',
          'filters[fieldData][value][val][$containsi]': 'ACME',
        }),
      ),
    ).toEqual(['Acme renewal']);
    expect(titles(await q({ 'filters[fieldData][value][val][$eq]': 'large' }))).toEqual(['Acme renewal']);
    expect(
      titles(await q({ 'filters[fields][size][$in][0]': 'small', 'filters[fields][size][$in][1]': 'large' })),
    ).toEqual(['Acme renewal', 'Globex new']);
    expect(titles(await q({ 'filters[title][$containsi]': 'BEX N' }))).toEqual(['Globex new']);
    expect(titles(await q({ 'filters[assignees][documentId][$eq]': t.membershipId }))).toEqual([
      'Acme renewal',
    ]);
    expect(titles(await q({ 'filters[tags][slug][$in][0]': 'cold' }))).toEqual(['Globex new']);
    expect(titles(await q({ 'filters[value][$gte]': 100 }))).toEqual(['Acme renewal', 'Globex new']);
    expect(titles(await q({ 'filters[creationSource][$eq]': 'api' }))).toHaveLength(3);
  });

  test('sort on value and dueDate, pagination, and whole-set valueSum', async () => {
    const { t, boardId } = await seeded();
    const byValue = await t.api.get(`/boards/${boardId}/cards`, { sort: 'value:desc' });
    expect(byValue.body.data.map((c: { value: number }) => c.value)).toEqual([250.25, 100, 50]);
    const byDue = await t.api.get(`/boards/${boardId}/cards`, {
      'sort[0]': 'dueDate:asc',
      'sort[1]': 'title:asc',
    });
    expect(byDue.body.data.map((c: { title: string }) => c.title)).toEqual([
      'Initech',
      'Acme renewal',
      'Globex new',
    ]);
    const page = await t.api.get(`/boards/${boardId}/cards`, {
      sort: 'value:asc',
      'pagination[page]': 2,
      'pagination[pageSize]': 1,
    });
    expect(page.body.data.map((c: { value: number }) => c.value)).toEqual([100]);
    expect(page.body.meta.pagination).toEqual({ page: 2, pageSize: 1, pageCount: 3, total: 3 });
    expect(page.body.meta.stats).toEqual({ overdueCount: 1, valueSum: 400.25, phaseSlaBreachedCount: 0 });
  });

  test('stats: statsTodayStart moves overdue, stats=false skips, SLA breach when one phase is pinned', async () => {
    const { t, boardId, phase, c } = await seeded();
    const later = await t.api.get(`/boards/${boardId}/cards`, { statsTodayStart: '3000-01-01T00:00:00Z' });
    expect(later.body.meta.stats.overdueCount).toBe(2);
    const off = await t.api.get(`/boards/${boardId}/cards`, { stats: 'false' });
    expect(off.body.meta.stats).toBeUndefined();
    // Simulate the card having entered Qualified (SLA 24 h) two days ago.
    const { db } = await getApp();
    await db.system.execute(
      `update cards set current_phase_entered_at = now() - interval '48 hours' where document_id = '${c.documentId}'` as any,
    );
    const pinned = await t.api.get(`/boards/${boardId}/cards`, {
      'filters[currentPhase][documentId][$in][0]': phase('qualified'),
    });
    expect(pinned.body.meta.stats).toEqual({ overdueCount: 0, valueSum: 50, phaseSlaBreachedCount: 1 });
    const unpinned = await t.api.get(`/boards/${boardId}/cards`);
    expect(unpinned.body.meta.stats.phaseSlaBreachedCount).toBe(0);
    const sla = async (query: Record<string, unknown>) =>
      (await t.api.get(`/boards/${boardId}/cards`, query)).body.meta.stats.phaseSlaBreachedCount;
    expect(await sla({ 'filters[currentPhase][slug][$eq]': 'qualified' })).toBe(1);
    expect(await sla({ 'filters[currentPhase][slug]': 'qualified' })).toBe(1);
    // Two phases pinned, or one without an SLA: 0.
    expect(
      await sla({
        'filters[currentPhase][documentId][$in][0]': phase('qualified'),
        'filters[currentPhase][documentId][$in][1]': phase('lead'),
      }),
    ).toBe(0);
    await db.system.execute(
      `update cards set current_phase_entered_at = now() - interval '100 days' where board_id = (select id from boards where document_id = '${boardId}')` as any,
    );
    expect(await sla({ 'filters[currentPhase][slug][$eq]': 'lead' })).toBe(0);
  });

  test('populate in array notation brings fieldData ({ val }-wrapped) to the list; without it, none', async () => {
    const { t, boardId, a } = await seeded();
    const plain = await t.api.get(`/boards/${boardId}/cards`);
    expect(plain.body.data.every((c: any) => c.fieldData === undefined)).toBe(true);
    const res = await t.api.get(`/boards/${boardId}/cards`, {
      'populate[0]': 'fieldData',
      'populate[1]': 'tags',
      'filters[documentId][$eq]': a.documentId,
    });
    expect(res.status).toBe(200);
    const [card] = res.body.data;
    const bySlug = Object.fromEntries(card.fieldData.map((f: any) => [f.field.slug, f.value]));
    expect(bySlug).toMatchObject({
      name: { val: 'Acme' },
      email: { val: 'buyer@acme.io' },
      size: { val: 'large' },
    });
    expect(card.fields).toMatchObject({ name: 'Acme', size: 'large' });
  });

  test('overdueCount counts due dates before the start of the UTC day, not before now', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const dayStart = new Date();
    dayStart.setUTCHours(0, 0, 0, 0);
    const at = (minutes: number) => new Date(dayStart.getTime() + minutes * 60_000).toISOString();
    const fields = { name: 'x', email: 'x@x.io' };
    // One minute into today: already past (unless it is 00:00 UTC) but not overdue; one minute before: overdue.
    await createCard(t.api, boardId, { title: 'today', dueDate: at(1), fields });
    await createCard(t.api, boardId, { title: 'yesterday', dueDate: at(-1), fields });
    await createCard(t.api, boardId, { title: 'dayStart', dueDate: at(0), fields });
    const stats = async (query: Record<string, unknown> = {}) =>
      (await t.api.get(`/boards/${boardId}/cards`, query)).body.meta.stats.overdueCount;
    expect(await stats()).toBe(1);
    expect(await stats({ statsTodayStart: at(1) })).toBe(2);
    expect(await stats({ statsTodayStart: at(2) })).toBe(3);
    expect(await stats({ statsTodayStart: at(-1) })).toBe(0);
    expect((await t.api.get(`/boards/${boardId}/cards`, { statsTodayStart: 'today' })).status).toBe(400);
  });

  test('sorts on every card attribute, both directions', async () => {
    const { t, boardId } = await seeded();
    const sorted = async (attr: string, dir: 'asc' | 'desc') => {
      const res = await t.api.get(`/boards/${boardId}/cards`, {
        'sort[0]': `${attr}:${dir}`,
        'sort[1]': 'title:asc',
      });
      expect(res.status, `${attr}:${dir} ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.data.map((c: Record<string, unknown>) => c[attr]);
    };
    const distinct = ['documentId', 'title', 'value', 'createdAt', 'updatedAt', 'currentPhaseEnteredAt'];
    for (const attr of distinct) {
      const asc = await sorted(attr, 'asc');
      const expected = [...asc].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(asc, attr).toEqual(expected);
      expect(await sorted(attr, 'desc'), attr).toEqual([...asc].reverse());
    }
    for (const attr of ['description', 'dueDate', 'dueDateSource', 'creationSource'])
      for (const dir of ['asc', 'desc'] as const) expect(await sorted(attr, dir)).toHaveLength(3);
  });

  test('bad list queries are 400, never ignored', async () => {
    const { t, boardId } = await seeded();
    const q = (query: Record<string, unknown>) => t.api.get(`/boards/${boardId}/cards`, query);
    expect((await q({ 'filters[nope][$eq]': 1 })).status).toBe(400);
    expect((await q({ 'filters[fields][nope][$eq]': 1 })).status).toBe(400);
    expect((await q({ 'filters[fieldData][field][label]': 'x' })).status).toBe(400);
    expect((await q({ 'filters[id][$eq]': 1 })).status).toBe(400);
    expect((await q({ sort: 'fields:asc' })).status).toBe(400);
    expect((await q({ 'pagination[pageSize]': 101 })).status).toBe(400);
    expect((await q({ populate: 'secrets' })).status).toBe(400);
    expect((await q({ stats: 'maybe' })).status).toBe(400);
    expect((await q({ whatever: 1 })).status).toBe(400);
  });
});
