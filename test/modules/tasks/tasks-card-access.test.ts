import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';

/**
 * Card-level access for tasks: a task on a card is visible only to who sees the card
 * (restrictViewToAssignees) and changed only by who may edit the card (restrictEditToAssignees).
 */

type Member = Awaited<ReturnType<typeof addMember>>;

let t: Tenant;
let editor: Member;
let admin: Member;
let boardOwner: Member;

beforeAll(async () => {
  await getApp();
  t = await newTenant();
  editor = await addMember(t, 'member');
  admin = await addMember(t, 'admin');
  boardOwner = await addMember(t, 'member');
});

/** A board with the setting, `editor` as editor and `boardOwner` as owner; one card assigned to `editor`. */
async function boardWith(setting: 'restrictViewToAssignees' | 'restrictEditToAssignees') {
  const board = await t.api.post('/boards', {
    data: {
      name: `Deals ${setting} ${Math.random().toString(36).slice(2, 8)}`,
      owner: boardOwner.membershipId,
      editors: [editor.membershipId],
      boardSettings: { [setting]: true },
    },
  });
  expect(board.status).toBe(201);
  const boardId: string = board.body.documentId;
  const card = async (title: string, assignees: string[]) => {
    const res = await t.api.post(`/boards/${boardId}/cards`, { data: { title, assignees } });
    expect(res.status).toBe(201);
    return res.body.documentId as string;
  };
  return {
    boardId,
    mine: await card('Assigned to the editor', [editor.membershipId]),
    theirs: await card('Assigned to someone else', [admin.membershipId]),
  };
}

const createTask = async (data: Record<string, unknown>) => {
  const res = await t.api.post('/tasks', { data });
  expect(res.status).toBe(201);
  return res.body.documentId as string;
};

const listNames = async (m: { api: Tenant['api'] }, query: Record<string, unknown> = {}) => {
  const res = await m.api.get('/tasks', { 'pagination[pageSize]': 100, ...query });
  expect(res.status).toBe(200);
  return { names: res.body.data.map((x: { name: string }) => x.name), total: res.body.meta.pagination.total };
};

describe('restrictViewToAssignees', () => {
  let board: Awaited<ReturnType<typeof boardWith>>;
  let hidden: string;
  let visible: string;
  const tag = Math.random().toString(36).slice(2, 8);

  beforeAll(async () => {
    board = await boardWith('restrictViewToAssignees');
    // Assigning the task to the editor does not reveal it: a task is visible when its card is.
    hidden = await createTask({
      name: `hidden ${tag}`,
      card: board.theirs,
      assignees: [editor.membershipId],
    });
    visible = await createTask({ name: `visible ${tag}`, card: board.mine });
    await createTask({ name: `free ${tag}` });
  });

  test('tasks on a card hidden from the caller are a 404 on read and every write', async () => {
    expect((await editor.api.get(`/tasks/${hidden}`)).status).toBe(404);
    expect((await editor.api.put(`/tasks/${hidden}`, { data: { name: 'x' } })).status).toBe(404);
    expect(
      (await editor.api.put(`/tasks/${hidden}/status`, { data: { taskStatus: 'completed' } })).status,
    ).toBe(404);
    expect((await editor.api.delete(`/tasks/${hidden}`)).status).toBe(404);
    expect((await editor.api.get(`/tasks/${visible}`)).status).toBe(200);
    expect((await t.api.get(`/tasks/${hidden}`)).body.name).toBe(`hidden ${tag}`);
  });

  test('they are absent from lists, counts and filter matches; tasks without a card are unaffected', async () => {
    const all = await listNames(editor, { 'filters[name][$endsWith]': tag });
    expect(all.names.sort()).toEqual([`free ${tag}`, `visible ${tag}`]);
    expect(all.total).toBe(2);
    const byCard = await listNames(editor, { 'filters[card][documentId][$eq]': board.theirs });
    expect(byCard).toEqual({ names: [], total: 0 });
    const byTitle = await listNames(editor, {
      'filters[card][title][$eq]': 'Assigned to someone else',
      'filters[name][$endsWith]': tag,
    });
    expect(byTitle.total).toBe(0);
  });

  test('admins and the board owner see every task', async () => {
    for (const m of [admin, boardOwner]) {
      expect((await m.api.get(`/tasks/${hidden}`)).status).toBe(200);
      const { total } = await listNames(m, { 'filters[name][$endsWith]': tag });
      expect(total).toBe(3);
    }
  });

  test('linking a task to a hidden card is refused like an unknown card', async () => {
    const unknown = await editor.api.post('/tasks', { data: { name: 'x', card: 'no-such-card' } });
    const create = await editor.api.post('/tasks', { data: { name: 'x', card: board.theirs } });
    expect(unknown.status).toBe(400);
    expect(create.status).toBe(400);
    expect(create.body.error.name).toBe(unknown.body.error.name);
    expect(create.body.error.details.errors).toEqual([
      { path: ['card'], message: `no card ${board.theirs}` },
    ]);
    const own = await editor.api.post('/tasks', { data: { name: `own ${tag}` } });
    const link = await editor.api.put(`/tasks/${own.body.documentId}`, { data: { card: board.theirs } });
    expect(link.status).toBe(400);
    expect(link.body.error.details.errors[0].path).toEqual(['card']);
    const ok = await editor.api.put(`/tasks/${own.body.documentId}`, { data: { card: board.mine } });
    expect(ok.status).toBe(200);
    expect(ok.body.card.documentId).toBe(board.mine);
  });

  test('assigning the caller to the card reveals its tasks', async () => {
    const res = await t.api.put(`/boards/${board.boardId}/cards/${board.theirs}`, {
      data: { assignees: [admin.membershipId, editor.membershipId] },
    });
    expect(res.status).toBe(200);
    expect((await editor.api.get(`/tasks/${hidden}`)).status).toBe(200);
    expect(
      (await editor.api.post('/tasks', { data: { name: `linked ${tag}`, card: board.theirs } })).status,
    ).toBe(201);
  });
});

describe('restrictEditToAssignees', () => {
  let board: Awaited<ReturnType<typeof boardWith>>;
  let locked: string;
  let editable: string;

  beforeAll(async () => {
    board = await boardWith('restrictEditToAssignees');
    locked = await createTask({
      name: 'On their card',
      card: board.theirs,
      assignees: [editor.membershipId],
    });
    editable = await createTask({ name: 'On my card', card: board.mine });
  });

  test('the task on a card the caller may not edit is visible but every change is a 403', async () => {
    expect((await editor.api.get(`/tasks/${locked}`)).status).toBe(200);
    expect((await listNames(editor, { 'filters[documentId][$eq]': locked })).total).toBe(1);
    for (const res of [
      await editor.api.put(`/tasks/${locked}`, { data: { name: 'x' } }),
      await editor.api.put(`/tasks/${locked}`, { data: { card: null } }),
      await editor.api.put(`/tasks/${locked}/status`, { data: { taskStatus: 'completed' } }),
      await editor.api.delete(`/tasks/${locked}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.name).toBe('ForbiddenError');
    }
    expect((await t.api.get(`/tasks/${locked}`)).body).toMatchObject({
      name: 'On their card',
      taskStatus: 'pending',
    });
  });

  test('linking a task to that card is a 403; to an editable card it works', async () => {
    expect((await editor.api.post('/tasks', { data: { name: 'x', card: board.theirs } })).status).toBe(403);
    expect((await editor.api.put(`/tasks/${editable}`, { data: { card: board.theirs } })).status).toBe(403);
    expect((await editor.api.post('/tasks', { data: { name: 'y', card: board.mine } })).status).toBe(201);
    expect((await editor.api.put(`/tasks/${editable}`, { data: { name: 'Renamed' } })).status).toBe(200);
    expect(
      (await editor.api.put(`/tasks/${editable}/status`, { data: { taskStatus: 'completed' } })).status,
    ).toBe(200);
  });

  test('admins and the board owner change it', async () => {
    expect((await boardOwner.api.put(`/tasks/${locked}`, { data: { name: 'Owner edit' } })).status).toBe(200);
    expect(
      (await admin.api.put(`/tasks/${locked}/status`, { data: { taskStatus: 'in-progress' } })).status,
    ).toBe(200);
    expect((await admin.api.delete(`/tasks/${locked}`)).status).toBe(200);
  });
});

describe('boards the caller only reads', () => {
  test('a board member who is not an editor reads tasks on its cards but cannot add or change them', async () => {
    const reader = await addMember(t, 'member');
    const board = await t.api.post('/boards', {
      data: { name: `Read only ${Math.random().toString(36).slice(2, 8)}`, members: [reader.membershipId] },
    });
    expect(board.status).toBe(201);
    const card = await t.api.post(`/boards/${board.body.documentId}/cards`, { data: { title: 'Deal' } });
    const task = await createTask({ name: 'Call back', card: card.body.documentId });
    expect((await reader.api.get(`/tasks/${task}`)).status).toBe(200);
    const add = await reader.api.post('/tasks', { data: { name: 'Mine', card: card.body.documentId } });
    expect(add.status).toBe(403);
    expect((await reader.api.put(`/tasks/${task}`, { data: { name: 'Renamed' } })).status).toBe(403);
    expect(
      (await reader.api.put(`/tasks/${task}/status`, { data: { taskStatus: 'completed' } })).status,
    ).toBe(403);
    expect((await reader.api.get(`/tasks/${task}`)).body.name).toBe('Call back');
  });
});
