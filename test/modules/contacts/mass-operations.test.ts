import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';

beforeAll(async () => {
  await getApp();
});

async function seed(t: Tenant, n: number, extra: (i: number) => Record<string, unknown> = () => ({})) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.api.post('/contacts', { data: { name: `C${i}`, ...extra(i) } });
    ids.push(res.body.documentId);
  }
  return ids;
}

describe('bulk delete', () => {
  test('by ids, reporting the ids that are not contacts here', async () => {
    const t = await newTenant();
    const ids = await seed(t, 3);
    const res = await t.api.post('/contacts/bulk-delete', {
      ids: [ids[0], ids[1], 'abcdefghijklmnopqrstuvwx'],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ matched: 2, deleted: 2, notFound: ['abcdefghijklmnopqrstuvwx'] });
    const left = await t.api.get('/contacts');
    expect(left.body.data.map((c: { documentId: string }) => c.documentId)).toEqual([ids[2]]);
  });

  test('by filters and by q', async () => {
    const t = await newTenant();
    await seed(t, 4, (i) => ({ name: `Pessoa ${i}`, city: i % 2 ? 'Recife' : 'Natal' }));
    const res = await t.api.post('/contacts/bulk-delete', { filters: { city: { $eq: 'Recife' } } });
    expect(res.body).toMatchObject({ matched: 2, deleted: 2 });
    const byQ = await t.api.post('/contacts/bulk-delete', { q: 'pessoa 0' });
    expect(byQ.body).toMatchObject({ deleted: 1 });
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(1);
  });

  test('errors: neither or both selections, empty filters, bad filter, member role', async () => {
    const t = await newTenant();
    const member = await addMember(t, 'member');
    for (const body of [{}, { ids: ['x'], filters: { city: 'a' } }, { filters: {} }, { ids: [] }]) {
      expect((await t.api.post('/contacts/bulk-delete', body)).status, JSON.stringify(body)).toBe(400);
    }
    const bad = await t.api.post('/contacts/bulk-delete', { filters: { password: { $eq: 'x' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors[0].path).toEqual(['filters', 'password']);
    expect((await member.api.post('/contacts/bulk-delete', { ids: ['x'] })).status).toBe(403);
  });
});

describe('a selection of every contact needs all: true', () => {
  const everything = [
    {},
    { $and: [{}] },
    { $or: [{}, {}] },
    { $and: [{ $or: [{}] }, {}] },
    { name: {} },
    { $not: {} },
  ];

  test('bulk-delete: a filter without any condition is a 400 naming all: true, and deletes nothing', async () => {
    const t = await newTenant();
    await seed(t, 3);
    for (const filters of everything) {
      const res = await t.api.post('/contacts/bulk-delete', { filters });
      expect(res.status, JSON.stringify(filters)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
      expect(res.body.error.message).toMatch(/all: true/);
      expect(res.body.error.details.errors[0].path).toEqual(['all']);
      const unconfirmed = await t.api.post('/contacts/bulk-delete', { filters, all: false });
      expect(unconfirmed.status, JSON.stringify(filters)).toBe(400);
    }
    for (const body of [{ all: false }, { ids: ['abcdefghijklmnopqrstuvwx'], all: true }, { all: 'yes' }]) {
      expect((await t.api.post('/contacts/bulk-delete', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(3);
  });

  test('bulk-delete with all: true deletes every contact of this organization only', async () => {
    const a = await newTenant();
    const b = await newTenant();
    await seed(a, 3);
    await seed(b, 2);
    const res = await a.api.post('/contacts/bulk-delete', { all: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ matched: 3, deleted: 3, notFound: [] });
    expect((await a.api.get('/contacts')).body.meta.pagination.total).toBe(0);
    expect((await b.api.get('/contacts')).body.meta.pagination.total).toBe(2);
    // an empty filter confirmed by all: true is the same selection
    const again = await b.api.post('/contacts/bulk-delete', { filters: { $and: [{}] }, all: true });
    expect(again.body).toMatchObject({ deleted: 2 });
  });

  test('a narrowing filter or q needs no all: true, and all: true does not widen it', async () => {
    const t = await newTenant();
    await seed(t, 4, (i) => ({ name: `Pessoa ${i}`, city: i % 2 ? 'Recife' : 'Natal' }));
    const res = await t.api.post('/contacts/bulk-delete', {
      filters: { $and: [{}, { city: 'Recife' }] },
      all: true,
    });
    expect(res.body).toMatchObject({ deleted: 2 });
    // a relation test narrows too, even with no condition inside it
    const byOwner = await t.api.post('/contacts/bulk-update', {
      filters: { owner: {} },
      data: { city: 'x' },
    });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toMatchObject({ matched: 0 });
    expect((await t.api.post('/contacts/bulk-delete', { q: 'pessoa 0' })).body).toMatchObject({
      deleted: 1,
    });
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(1);
  });

  test('bulk-update: same rule', async () => {
    const a = await newTenant();
    const b = await newTenant();
    await seed(a, 2);
    await seed(b, 1);
    for (const filters of everything) {
      const res = await a.api.post('/contacts/bulk-update', { filters, data: { city: 'Olinda' } });
      expect(res.status, JSON.stringify(filters)).toBe(400);
      expect(res.body.error.message).toMatch(/all: true/);
    }
    expect(
      (await a.api.get('/contacts', { 'filters[city][$eq]': 'Olinda' })).body.meta.pagination.total,
    ).toBe(0);
    const all = await a.api.post('/contacts/bulk-update', { all: true, data: { city: 'Olinda' } });
    expect(all.body).toEqual({ matched: 2, updated: 2, notFound: [] });
    expect(
      (await a.api.get('/contacts', { 'filters[city][$eq]': 'Olinda' })).body.meta.pagination.total,
    ).toBe(2);
    expect(
      (await b.api.get('/contacts', { 'filters[city][$eq]': 'Olinda' })).body.meta.pagination.total,
    ).toBe(0);
  });

  test('the OpenAPI body schemas describe all', async () => {
    const { app } = await getApp();
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    for (const path of ['/api/contacts/bulk-delete', '/api/contacts/bulk-update']) {
      const schema = doc.paths[path].post.requestBody.content['application/json'].schema;
      expect(schema.properties.all.type).toBe('boolean');
      expect(schema.properties.all.description).toMatch(/every contact/);
    }
  });
});

describe('bulk update', () => {
  test('sets owner, team, fields and custom fields; timeline per contact', async () => {
    const t = await newTenant();
    const other = await addMember(t, 'member');
    const team = await t.api.post('/teams', { data: { name: 'Sul' } });
    const ids = await seed(t, 3, (i) => ({
      owner: i === 0 ? t.membershipId : undefined,
      customFields: { keep: i },
    }));
    const res = await other.api.post('/contacts/bulk-update', {
      ids: [ids[0], ids[1]],
      data: {
        owner: other.membershipId,
        team: team.body.documentId,
        city: 'Porto Alegre',
        customFields: { origem: 'feira', keep: null },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ matched: 2, updated: 2, notFound: [] });
    const first = (await t.api.get(`/contacts/${ids[0]}`)).body;
    expect(first).toMatchObject({
      city: 'Porto Alegre',
      owner: { documentId: other.membershipId },
      team: { documentId: team.body.documentId },
      customFields: { origem: 'feira' },
    });
    expect(first.ownedAt).not.toBeNull();
    const untouched = (await t.api.get(`/contacts/${ids[2]}`)).body;
    expect(untouched).toMatchObject({ city: null, owner: null, customFields: { keep: 2 } });

    const acts0 = (await t.api.get(`/contacts/${ids[0]}/activities`)).body.data;
    const byType = (acts: { activityType: string }[], type: string) =>
      acts.find((a) => a.activityType === type);
    expect(byType(acts0, 'owner_changed')).toMatchObject({
      metadata: { from: t.membershipId, to: other.membershipId, bulk: true },
      actor: { documentId: other.membershipId },
    });
    expect(byType(acts0, 'team_assigned')).toMatchObject({ metadata: { to: team.body.documentId } });
    expect(byType(acts0, 'contact_updated')).toMatchObject({
      metadata: { fields: ['city', 'customFields'] },
    });
    const acts1 = (await t.api.get(`/contacts/${ids[1]}/activities`)).body.data;
    expect(byType(acts1, 'owner_assigned')).toBeTruthy();
  });

  test('by filters; removing the owner', async () => {
    const t = await newTenant();
    await seed(t, 3, (i) => ({ owner: t.membershipId, state: i < 2 ? 'PE' : 'RN' }));
    const res = await t.api.post('/contacts/bulk-update', {
      filters: { state: 'PE' },
      data: { owner: null },
    });
    expect(res.body).toMatchObject({ matched: 2, updated: 2 });
    const noOwner = await t.api.get('/contacts', { 'filters[owner][$null]': 'true' });
    expect(noOwner.body.meta.pagination.total).toBe(2);
    expect(noOwner.body.data[0].ownedAt).toBeNull();
  });

  test('errors: unknown owner/team, fields not allowed in bulk, empty data, viewer', async () => {
    const t = await newTenant();
    const viewer = await addMember(t, 'viewer');
    const [id] = await seed(t, 1);
    for (const data of [
      { owner: 'abcdefghijklmnopqrstuvwx' },
      { team: 'abcdefghijklmnopqrstuvwx' },
      { cpf: '52998224725' },
      { name: 'x' },
      {},
    ]) {
      expect(
        (await t.api.post('/contacts/bulk-update', { ids: [id], data })).status,
        JSON.stringify(data),
      ).toBe(400);
    }
    expect((await viewer.api.post('/contacts/bulk-update', { ids: [id], data: { city: 'x' } })).status).toBe(
      403,
    );
  });
});

describe('merge', () => {
  test('survivor keeps its values, gets blanks filled, timeline moved, merged deleted', async () => {
    const t = await newTenant();
    const survivor = await t.api.post('/contacts', {
      data: { name: 'Maria', email: 'maria@x.com', customFields: { a: 'survivor' } },
    });
    const dup1 = await t.api.post('/contacts', {
      data: {
        name: 'Maria S.',
        email: 'maria.s@x.com',
        cpf: '52998224725',
        phone: '+5511987654321',
        owner: t.membershipId,
        customFields: { a: 'dup', b: 'dup' },
      },
    });
    const dup2 = await t.api.post('/contacts', { data: { name: 'M. Silva', city: 'Recife' } });
    await t.api.post(`/contacts/${dup1.body.documentId}/notes`, {
      data: { description: 'nota do duplicado' },
    });
    // Another area's row pointing at a merged contact (quotes have contact_id) moves to the survivor.
    const quote = await t.api.post('/quotes', { data: { title: 'Proposta', contact: dup1.body.documentId } });
    expect(quote.status).toBe(201);
    // A card linked to a merged contact moves to the survivor too.
    const board = await t.api.post('/boards', {
      data: { name: 'Funil', phases: [{ name: 'Lead', slug: 'lead' }] },
    });
    expect(board.status).toBe(201);
    const cards = `/boards/${board.body.documentId}/cards`;
    const card = await t.api.post(cards, { data: { title: 'Negócio', contact: dup2.body.documentId } });
    expect(card.status).toBe(201);

    const res = await t.api.post('/contacts/merge', {
      survivor: survivor.body.documentId,
      merged: [dup1.body.documentId, dup2.body.documentId],
    });
    expect(res.status).toBe(200);
    expect(res.body.merged).toEqual([dup1.body.documentId, dup2.body.documentId]);
    expect(res.body.contact).toMatchObject({
      documentId: survivor.body.documentId,
      name: 'Maria',
      email: 'maria@x.com',
      cpf: '52998224725',
      phone: '+5511987654321',
      city: 'Recife',
      owner: { documentId: t.membershipId },
      customFields: { a: 'survivor', b: 'dup' },
    });
    expect(res.body.moved.contact_activities).toBeGreaterThanOrEqual(3);
    expect(res.body.moved.quotes).toBe(1);
    const movedQuote = await t.api.get(`/quotes/${quote.body.documentId}`);
    expect(movedQuote.body.contact.documentId).toBe(survivor.body.documentId);
    expect(res.body.moved.cards).toBe(1);
    const movedCard = await t.api.get(`${cards}/${card.body.documentId}`);
    expect(movedCard.body.contact.documentId).toBe(survivor.body.documentId);
    const linked = await t.api.get(cards, { 'filters[contact][documentId][$eq]': survivor.body.documentId });
    expect(linked.body.data.map((c: { documentId: string }) => c.documentId)).toEqual([card.body.documentId]);
    expect((await t.api.get(`/contacts/${dup1.body.documentId}`)).status).toBe(404);
    expect((await t.api.get(`/contacts/${dup2.body.documentId}`)).status).toBe(404);
    const acts = (await t.api.get(`/contacts/${survivor.body.documentId}/activities`)).body.data;
    expect(acts.some((a: { description: string }) => a.description === 'nota do duplicado')).toBe(true);
    const mergeEntry = acts.find((a: { metadata: { action?: string } }) => a.metadata.action === 'merge');
    expect(mergeEntry.activityType).toBe('contact_updated');
    expect(mergeEntry.metadata.merged.map((m: { documentId: string }) => m.documentId)).toEqual([
      dup1.body.documentId,
      dup2.body.documentId,
    ]);
    expect(acts.some((a: { activityType: string }) => a.activityType === 'owner_assigned')).toBe(true);
    expect(acts.some((a: { activityType: string }) => a.activityType === 'card_created')).toBe(true);
    // The cpf moved with the merge: it is unique again, on the survivor.
    const dup = await t.api.post('/contacts', { data: { name: 'x', cpf: '52998224725' } });
    expect(dup.body.error.details.duplicateKeys).toEqual(['cpf']);
  });

  test('errors: survivor in merged, unknown ids (404 naming them), empty list, viewer', async () => {
    const t = await newTenant();
    const viewer = await addMember(t, 'viewer');
    const [a, b] = await seed(t, 2);
    expect((await t.api.post('/contacts/merge', { survivor: a, merged: [a] })).status).toBe(400);
    expect((await t.api.post('/contacts/merge', { survivor: a, merged: [] })).status).toBe(400);
    const missing = await t.api.post('/contacts/merge', {
      survivor: a,
      merged: [b, 'abcdefghijklmnopqrstuvwx'],
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.details.missing).toEqual(['abcdefghijklmnopqrstuvwx']);
    expect((await t.api.get(`/contacts/${b}`)).status).toBe(200);
    expect((await viewer.api.post('/contacts/merge', { survivor: a, merged: [b] })).status).toBe(403);
  });
});
