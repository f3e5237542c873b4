import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, apiClient, getApp, newTenant, unique } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';

beforeAll(async () => {
  await getApp();
});

describe('display names (issue 31 item 4)', () => {
  test('sign-up may set a name; PUT /users/me sets, trims and clears it', async () => {
    const { app } = await getApp();
    const username = unique('u');
    const reg = await apiClient(app, {}).post('/auth/local/register', {
      username,
      email: `${username}@test.example`,
      password: 'correct-horse-battery',
      name: '  Carla Mendes ',
    });
    expect(reg.status).toBe(200);
    expect(reg.body.user).toMatchObject({ username, name: 'Carla Mendes' });
    const me = apiClient(app, { authorization: `Bearer ${reg.body.jwt}` });
    expect((await me.get('/users/me')).body).toMatchObject({ username, name: 'Carla Mendes' });

    const set = await me.put('/users/me', { name: ' Carla M. Mendes ' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ username, name: 'Carla M. Mendes' });
    const cleared = await me.put('/users/me', { name: null });
    expect(cleared.body.name).toBeNull();
    expect((await me.get('/users/me')).body.name).toBeNull();
  });

  test('a bad name is a 400 naming the field; nothing changes', async () => {
    const t = await newTenant();
    await t.userApi.put('/users/me', { name: 'Ana' });
    for (const body of [
      { name: '   ' },
      { name: 'x'.repeat(121) },
      { name: 5 },
      {},
      { name: 'A', role: 'x' },
    ]) {
      const res = await t.userApi.put('/users/me', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
    }
    const blank = await t.userApi.put('/users/me', { name: '' });
    expect(JSON.stringify(blank.body.error)).toContain('name');
    expect((await t.userApi.get('/users/me')).body.name).toBe('Ana');
    expect((await t.userApi.put('/users/me', { name: 'x'.repeat(120) })).status).toBe(200);
    const { app } = await getApp();
    expect((await apiClient(app, {}).put('/api/users/me', { name: 'x' })).status).toBe(401);
  });

  test('mention e-mails: on by default; PUT /users/me turns them off and on without touching the name', async () => {
    const t = await newTenant();
    expect((await t.userApi.get('/users/me')).body.mentionEmails).toBe(true);
    await t.userApi.put('/users/me', { name: 'Ana' });
    const off = await t.userApi.put('/users/me', { mentionEmails: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toMatchObject({ name: 'Ana', mentionEmails: false });
    expect((await t.userApi.get('/users/me')).body).toMatchObject({ name: 'Ana', mentionEmails: false });
    // The name alone keeps the choice; both at once set both.
    expect((await t.userApi.put('/users/me', { name: 'Ana B.' })).body.mentionEmails).toBe(false);
    const both = await t.userApi.put('/users/me', { name: null, mentionEmails: true });
    expect(both.body).toMatchObject({ name: null, mentionEmails: true });
    for (const body of [{ mentionEmails: 'no' }, { mentionEmails: null }, {}]) {
      const res = await t.userApi.put('/users/me', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
    }
    expect(JSON.stringify((await t.userApi.put('/users/me', {})).body.error)).toContain('mentionEmails');
    expect((await t.userApi.get('/users/me')).body.mentionEmails).toBe(true);
  });

  test('MembershipRefs carry the name: members, card assignees, contact owners, the report', async () => {
    const t = await newTenant();
    const m = await addMember(t, 'member');
    expect((await m.api.put('/users/me', { name: 'Bruno Lima' })).status).toBe(200);

    const members = (await t.api.get('/memberships')).body.data;
    const bruno = members.find((x: any) => x.documentId === m.membershipId);
    expect(bruno.user).toMatchObject({ username: m.user.username, name: 'Bruno Lima' });
    expect(members.find((x: any) => x.documentId === t.membershipId).user.name).toBeNull();

    const { boardId } = await createPipeline(t.api);
    const card = await createCard(t.api, boardId, { assignees: [m.membershipId] });
    expect(card.assignees[0].user).toMatchObject({ username: m.user.username, name: 'Bruno Lima' });
    expect((await t.api.get(`/boards/${boardId}/cards/${card.documentId}`)).body.assignees[0].user.name).toBe(
      'Bruno Lima',
    );
    const listed = await t.api.get(`/boards/${boardId}/cards`);
    expect(listed.body.data[0].assignees[0].user.name).toBe('Bruno Lima');

    const contact = await t.api.post('/contacts', { data: { name: 'Cliente', owner: m.membershipId } });
    expect(contact.status).toBe(201);
    expect(contact.body.owner.user.name).toBe('Bruno Lima');

    const report = (await t.api.get(`/boards/${boardId}/report`)).body;
    expect(report.assignees).toContainEqual(expect.objectContaining({ displayName: 'Bruno Lima', count: 1 }));

    // Cleared: the refs say null and the report falls back to the username.
    await m.api.put('/users/me', { name: null });
    expect(
      (await t.api.get(`/boards/${boardId}/cards/${card.documentId}`)).body.assignees[0].user.name,
    ).toBeNull();
    const after = (await t.api.get(`/boards/${boardId}/report`)).body;
    expect(after.assignees).toContainEqual(expect.objectContaining({ displayName: m.user.username }));
  });

  test("another organization learns no member's name through refs", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const m = await addMember(a, 'member');
    const secret = `Nome Secreto ${unique()}`;
    await m.api.put('/users/me', { name: secret });

    const { boardId } = await createPipeline(b.api);
    const refused = await b.api.post(`/boards/${boardId}/cards`, {
      data: { fields: { name: 'Ana', email: 'ana@example.com' }, assignees: [m.membershipId] },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).not.toContain(secret);
    const contact = await b.api.post('/contacts', { data: { name: 'x', owner: m.membershipId } });
    expect(contact.status).toBe(400);
    expect(JSON.stringify(contact.body)).not.toContain(secret);
    const members = await b.api.get('/memberships');
    expect(JSON.stringify(members.body)).not.toContain(secret);
    const byName = await b.api.get('/memberships', { 'filters[user][name][$eq]': secret });
    expect(byName.status).toBe(200);
    expect(byName.body.data).toEqual([]);
    const own = await a.api.get('/memberships', { 'filters[user][name][$eq]': secret });
    expect(own.body.data.map((x: { documentId: string }) => x.documentId)).toEqual([m.membershipId]);
    // In A, where the person is a member, the name is shown.
    expect(JSON.stringify((await a.api.get('/memberships')).body)).toContain(secret);
  });
});
