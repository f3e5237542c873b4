import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, newTenant, type Tenant } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';

const titles = (res: { body: { data: { title: string }[] } }) => res.body.data.map((c) => c.title).sort();

describe('saved filters', () => {
  let t: Tenant;
  let boardId: string;

  beforeAll(async () => {
    t = await newTenant();
    ({ boardId } = await createPipeline(t.api));
    for (const [title, value, size] of [
      ['small cheap', 100, 'small'],
      ['large cheap', 200, 'large'],
      ['large dear', 9000, 'large'],
    ] as const)
      await createCard(t.api, boardId, { title, value, fields: { name: title, email: 'a@x.io', size } });
    for (const name of ['Ana Silva', 'Bruno Silva', 'Carla Souza'])
      expect((await t.api.post('/contacts', { data: { name } })).status).toBe(201);
  });

  test('a cards filter on a dynamic field, used with ?savedFilter= and ANDed with the request filters', async () => {
    const res = await t.api.post('/saved-filters', {
      data: {
        name: 'Large deals',
        resource: 'cards',
        board: boardId,
        query: { filters: { fields: { size: { $eq: 'large' } } }, sort: 'value:desc' },
        visibility: 'organization',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Large deals', resource: 'cards', visibility: 'organization' });
    expect(res.body.board.documentId).toBe(boardId);
    const id = res.body.documentId;
    const list = await t.api.get(`/boards/${boardId}/cards?savedFilter=${id}`);
    expect(list.status).toBe(200);
    // The saved sort applies when the request has none.
    expect(list.body.data.map((c: { title: string }) => c.title)).toEqual(['large dear', 'large cheap']);
    expect(list.body.meta.pagination.total).toBe(2);
    const both = await t.api.get(`/boards/${boardId}/cards?savedFilter=${id}&filters[value][$lt]=1000`);
    expect(titles(both)).toEqual(['large cheap']);
    const sorted = await t.api.get(`/boards/${boardId}/cards?savedFilter=${id}&sort=value:asc`);
    expect(sorted.body.data.map((c: { title: string }) => c.title)).toEqual(['large cheap', 'large dear']);
  });

  test('the query is validated as its list validates it; paths under query', async () => {
    const unknown = await t.api.post('/saved-filters', {
      data: { name: 'x', resource: 'cards', board: boardId, query: { filters: { nope: { $eq: 1 } } } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.errors[0].path).toEqual(['query', 'filters', 'nope']);
    const op = await t.api.post('/saved-filters', {
      data: { name: 'x', resource: 'contacts', query: { filters: { name: { $like: 'a' } } } },
    });
    expect(op.status).toBe(400);
    const noBoard = await t.api.post('/saved-filters', {
      data: { name: 'x', resource: 'cards', query: { filters: {} } },
    });
    expect(noBoard.status).toBe(400);
    expect(noBoard.body.error.details.errors[0].path).toEqual(['board']);
    const boardOnContacts = await t.api.post('/saved-filters', {
      data: { name: 'x', resource: 'contacts', board: boardId, query: {} },
    });
    expect(boardOnContacts.status).toBe(400);
    const badSort = await t.api.post('/saved-filters', {
      data: { name: 'x', resource: 'tasks', query: { sort: 'nope:asc' } },
    });
    expect(badSort.status).toBe(400);
  });

  test('contacts and tasks lists; a filter of another list or a missing one is a 400 naming it', async () => {
    const silva = await t.api.post('/saved-filters', {
      data: { name: 'Silvas', resource: 'contacts', query: { filters: { name: { $containsi: 'silva' } } } },
    });
    expect(silva.status).toBe(201);
    expect(silva.body.visibility).toBe('private');
    const list = await t.api.get(`/contacts?savedFilter=${silva.body.documentId}&sort=name:asc`);
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['Ana Silva', 'Bruno Silva']);
    const wrongList = await t.api.get(`/tasks?savedFilter=${silva.body.documentId}`);
    expect(wrongList.status).toBe(400);
    expect(wrongList.body.error.message).toContain('filters contacts, not tasks');
    const missing = await t.api.get(`/contacts?savedFilter=${'a'.repeat(24)}`);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.errors[0].path).toEqual(['savedFilter']);
    const other = await createPipeline(t.api);
    const cardsFilter = await t.api.get('/saved-filters?resource=cards');
    const onOtherBoard = await t.api.get(
      `/boards/${other.boardId}/cards?savedFilter=${cardsFilter.body.data[0].documentId}`,
    );
    expect(onOtherBoard.status).toBe(400);
    expect(onOtherBoard.body.error.message).toContain('another board');
    const tasks = await t.api.post('/saved-filters', {
      data: { name: 'Urgent', resource: 'tasks', query: { filters: { priority: { $eq: 'high' } } } },
    });
    expect(tasks.status).toBe(201);
    expect((await t.api.get(`/tasks?savedFilter=${tasks.body.documentId}`)).status).toBe(200);
  });

  test("private filters are their author's; organization filters are every member's and the admins' to change", async () => {
    const member = await addMember(t, 'member');
    const viewer = await addMember(t, 'viewer');
    const mine = await member.api.post('/saved-filters', {
      data: { name: 'Mine', resource: 'contacts', query: { filters: { name: { $eq: 'Ana Silva' } } } },
    });
    expect(mine.status).toBe(201);
    const id = mine.body.documentId;
    // The owner of the organization does not see a member's private filter, nor use, change or delete it.
    expect((await t.api.get(`/saved-filters/${id}`)).status).toBe(404);
    expect((await t.api.get(`/contacts?savedFilter=${id}`)).status).toBe(400);
    expect((await t.api.put(`/saved-filters/${id}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await t.api.delete(`/saved-filters/${id}`)).status).toBe(404);
    const listed = await t.api.get('/saved-filters');
    expect(listed.body.data.map((f: { documentId: string }) => f.documentId)).not.toContain(id);
    // Organization-wide: a member sees and uses it, cannot make, change or delete one.
    const org = (await t.api.get('/saved-filters?resource=cards')).body.data[0];
    // A cards filter is hidden from who cannot see its board (its name and query would tell about the board).
    expect((await member.api.get(`/saved-filters/${org.documentId}`)).status).toBe(404);
    expect((await member.api.get('/saved-filters?resource=cards')).body.meta.pagination.total).toBe(0);
    expect((await t.api.put(`/boards/${boardId}`, { data: { members: [member.membershipId] } })).status).toBe(
      200,
    );
    expect((await member.api.get(`/saved-filters/${org.documentId}`)).status).toBe(200);
    expect((await member.api.get(`/boards/${boardId}/cards?savedFilter=${org.documentId}`)).status).toBe(200);
    expect((await member.api.put(`/saved-filters/${org.documentId}`, { data: { name: 'x' } })).status).toBe(
      403,
    );
    expect((await member.api.delete(`/saved-filters/${org.documentId}`)).status).toBe(403);
    const promote = await member.api.put(`/saved-filters/${id}`, { data: { visibility: 'organization' } });
    expect(promote.status).toBe(403);
    expect(
      (
        await member.api.post('/saved-filters', {
          data: { name: 'Org', resource: 'contacts', query: {}, visibility: 'organization' },
        })
      ).status,
    ).toBe(403);
    // Viewers read (here, with no board: an organization contacts filter); they save nothing.
    const shared = await t.api.post('/saved-filters', {
      data: { name: 'All', resource: 'contacts', query: {}, visibility: 'organization' },
    });
    expect((await viewer.api.get(`/saved-filters/${shared.body.documentId}`)).status).toBe(200);
    expect(
      (await viewer.api.post('/saved-filters', { data: { name: 'V', resource: 'tasks', query: {} } })).status,
    ).toBe(403);
    // The author renames and deletes their own.
    const renamed = await member.api.put(`/saved-filters/${id}`, { data: { name: 'Renamed' } });
    expect(renamed.body.name).toBe('Renamed');
    expect((await member.api.delete(`/saved-filters/${id}`)).status).toBe(200);
    expect((await member.api.get(`/saved-filters/${id}`)).status).toBe(404);
  });

  test('another organization cannot read, use, change, count or delete them', async () => {
    const other = await newTenant(t.app);
    const org = (await t.api.get('/saved-filters?resource=cards')).body.data[0];
    expect((await other.api.get(`/saved-filters/${org.documentId}`)).status).toBe(404);
    expect((await other.api.put(`/saved-filters/${org.documentId}`, { data: { name: 'x' } })).status).toBe(
      404,
    );
    expect((await other.api.delete(`/saved-filters/${org.documentId}`)).status).toBe(404);
    expect((await other.api.get(`/contacts?savedFilter=${org.documentId}`)).status).toBe(400);
    const listed = await other.api.get('/saved-filters');
    expect(listed.body.meta.pagination.total).toBe(0);
    // Its own cards filter cannot name this organization's board: the same 400 as a board that exists nowhere.
    const foreignBoard = await other.api.post('/saved-filters', {
      data: { name: 'x', resource: 'cards', board: boardId, query: {} },
    });
    expect(foreignBoard.status).toBe(400);
    expect(foreignBoard.body.error.details.errors[0].path).toEqual(['board']);
  });

  test('deleting the board deletes its filters', async () => {
    const p = await createPipeline(t.api);
    const f = await t.api.post('/saved-filters', {
      data: { name: 'B', resource: 'cards', board: p.boardId, query: {} },
    });
    expect(f.status).toBe(201);
    expect((await t.api.delete(`/boards/${p.boardId}`)).status).toBe(200);
    expect((await t.api.get(`/saved-filters/${f.body.documentId}`)).status).toBe(404);
  });
});
