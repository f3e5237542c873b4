import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant } from '../../helpers/app.js';

beforeAll(async () => {
  await getApp();
});

describe('contact timeline', () => {
  test('create/update/owner/team changes are recorded, newest first', async () => {
    const t = await newTenant();
    const other = await addMember(t, 'member');
    const teamA = await t.api.post('/teams', { data: { name: 'A' } });
    const teamB = await t.api.post('/teams', { data: { name: 'B' } });
    const { body: c } = await t.api.post('/contacts', {
      data: { name: 'Tim', owner: t.membershipId, team: teamA.body.documentId },
    });
    await t.api.put(`/contacts/${c.documentId}`, { data: { city: 'Natal', postal_code: '59000-000' } });
    await t.api.put(`/contacts/${c.documentId}`, {
      data: { owner: other.membershipId, team: teamB.body.documentId },
    });
    await t.api.put(`/contacts/${c.documentId}`, { data: { city: 'Natal' } }); // no change: no entry

    const res = await t.api.get(`/contacts/${c.documentId}/activities`);
    expect(res.status).toBe(200);
    const types = res.body.data.map((a: { activityType: string }) => a.activityType);
    expect(types.slice(0, 2).sort()).toEqual(['owner_changed', 'team_changed']);
    expect(new Set(types)).toEqual(
      new Set([
        'contact_created',
        'owner_assigned',
        'team_assigned',
        'contact_updated',
        'owner_changed',
        'team_changed',
      ]),
    );
    expect(res.body.meta.pagination.total).toBe(6);
    const changed = res.body.data.find((a: { activityType: string }) => a.activityType === 'owner_changed');
    expect(changed.metadata).toEqual({ from: t.membershipId, to: other.membershipId });
    expect(changed.actor.documentId).toBe(t.membershipId);
    expect(changed.contact).toEqual({ documentId: c.documentId, name: 'Tim', email: null, phone: null });
    const updated = res.body.data.find((a: { activityType: string }) => a.activityType === 'contact_updated');
    expect(updated.metadata.fields).toEqual(['city', 'postal_code']);
    const times = res.body.data.map((a: { performedAt: string }) => a.performedAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(types[types.length - 1]).not.toBe('owner_changed');
  });

  test('notes and calls; paginated; filter by type', async () => {
    const t = await newTenant();
    const { body: c } = await t.api.post('/contacts', { data: { name: 'Nota' } });
    const note = await t.api.post(`/contacts/${c.documentId}/notes`, {
      data: { description: 'Gosta de café' },
    });
    expect(note.status).toBe(201);
    expect(note.body).toMatchObject({
      activityType: 'note_added',
      description: 'Gosta de café',
      metadata: {},
    });
    const call = await t.api.post(`/contacts/${c.documentId}/activities`, {
      data: {
        activityType: 'call_completed',
        description: 'Falou sobre o plano',
        performedAt: '2026-01-02T10:00:00Z',
        metadata: { durationSeconds: 120 },
      },
    });
    expect(call.status).toBe(201);
    expect(call.body).toMatchObject({
      activityType: 'call_completed',
      performedAt: '2026-01-02T10:00:00.000Z',
      metadata: { durationSeconds: 120 },
    });
    const attempted = await t.api.post(`/contacts/${c.documentId}/activities`, {
      data: { activityType: 'call_attempted', description: 'Sem resposta' },
    });
    expect(attempted.status).toBe(201);

    const page = await t.api.get(`/contacts/${c.documentId}/activities`, { 'pagination[pageSize]': '2' });
    expect(page.body.meta.pagination).toEqual({ page: 1, pageSize: 2, pageCount: 2, total: 4 });
    // The backdated call is the oldest entry.
    const all = await t.api.get(`/contacts/${c.documentId}/activities`);
    expect(all.body.data.at(-1).activityType).toBe('call_completed');
    const calls = await t.api.get(`/contacts/${c.documentId}/activities`, {
      'filters[activityType][$in][0]': 'call_completed',
      'filters[activityType][$in][1]': 'call_attempted',
    });
    expect(calls.body.data).toHaveLength(2);
  });

  test('errors: other types, empty note, unknown contact, viewer', async () => {
    const t = await newTenant();
    const viewer = await addMember(t, 'viewer');
    const { body: c } = await t.api.post('/contacts', { data: { name: 'E' } });
    const path = `/contacts/${c.documentId}`;
    expect(
      (await t.api.post(`${path}/activities`, { data: { activityType: 'card_won', description: 'x' } }))
        .status,
    ).toBe(400);
    expect((await t.api.post(`${path}/notes`, { data: { description: '  ' } })).status).toBe(400);
    expect(
      (await t.api.post('/contacts/abcdefghijklmnopqrstuvwx/notes', { data: { description: 'x' } })).status,
    ).toBe(404);
    expect((await t.api.get('/contacts/abcdefghijklmnopqrstuvwx/activities')).status).toBe(404);
    expect((await viewer.api.post(`${path}/notes`, { data: { description: 'x' } })).status).toBe(403);
    expect((await viewer.api.get(`${path}/activities`)).status).toBe(200);
  });

  test('deleting a team clears it from its contacts with a team_changed entry', async () => {
    const t = await newTenant();
    const team = await t.api.post('/teams', { data: { name: 'Temp' } });
    const { body: c } = await t.api.post('/contacts', { data: { name: 'T', team: team.body.documentId } });
    expect((await t.api.delete(`/teams/${team.body.documentId}`)).status).toBe(200);
    expect((await t.api.get(`/contacts/${c.documentId}`)).body.team).toBeNull();
    const acts = await t.api.get(`/contacts/${c.documentId}/activities`);
    expect(acts.body.data[0]).toMatchObject({
      activityType: 'team_changed',
      metadata: { from: team.body.documentId, to: null, reason: 'team_deleted' },
    });
  });
});
