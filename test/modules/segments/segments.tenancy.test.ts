import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, newTenant, type Tenant } from '../../helpers/app.js';
import { cond, type Fixture, names, preview, seedContacts } from './fixtures.js';

/** Organization A owns data; organization B holds look-alike contacts that every condition below also fits. */
let a: Fixture;
let b: Fixture;
let segA: { documentId: string; contactCount: number };
const everyone = { logic: 'AND', conditions: [cond('name', 'notEmpty')] };

beforeAll(async () => {
  const ta = await newTenant();
  const tb = await newTenant();
  a = await seedContacts(ta, (await addMember(ta, 'member')).membershipId);
  b = await seedContacts(tb, (await addMember(tb, 'member')).membershipId);
  const res = await ta.api.post('/segments', { data: { name: 'A everyone', filters: everyone } });
  expect(res.status).toBe(201);
  segA = res.body;
});

const A = () => a.t;
const B = (): Tenant => b.t;

describe('segments of another organization', () => {
  test('are invisible: 404 on get, count, contacts, put and delete; absent from lists and options', async () => {
    const id = segA.documentId;
    expect((await B().api.get(`/segments/${id}`)).status).toBe(404);
    expect((await B().api.get(`/segments/${id}/count`)).status).toBe(404);
    expect((await B().api.get(`/segments/${id}/contacts`)).status).toBe(404);
    expect((await B().api.put(`/segments/${id}`, { data: { name: 'stolen' } })).status).toBe(404);
    expect((await B().api.delete(`/segments/${id}`)).status).toBe(404);
    expect((await B().api.get('/segments')).body.data).toEqual([]);
    expect(
      (await B().api.get('/segments', { 'filters[documentId][$eq]': id })).body.meta.pagination.total,
    ).toBe(0);
    const options = (await B().api.get('/segments/filter-options')).body;
    expect(options.segments).toEqual([]);
    expect(options.owners.map((o: { documentId: string }) => o.documentId)).not.toContain(A().membershipId);
    expect(options.teams.map((o: { documentId: string }) => o.documentId)).not.toContain(a.teamA);
    // A's segment is untouched.
    expect((await A().api.get(`/segments/${id}`)).body.name).toBe('A everyone');
  });

  test('cannot be required or excluded by a segment or a preview of B', async () => {
    const res = await B().api.post('/segments', {
      data: { name: 'B uses A', filters: everyone, requiredSegments: [segA.documentId] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors[0].path).toEqual(['requiredSegments', '0']);
    const pre = await preview(B(), everyone.conditions, 'AND', { excludedSegments: [segA.documentId] });
    expect(pre.status).toBe(400);
    expect(pre.body.error.details.errors[0].path).toEqual(['excludedSegments', '0']);
  });

  test("A's members and teams cannot be used in B's relation conditions", async () => {
    for (const [field, documentId] of [
      ['owner', A().membershipId],
      ['team', a.teamA],
    ]) {
      const res = await preview(B(), [{ kind: 'relation', field, documentId }]);
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors[0].path).toEqual(['filters', 'conditions', '0', 'documentId']);
    }
  });
});

describe("a segment never matches or counts another organization's contacts", () => {
  test('counts, contacts and previews stay inside the organization', async () => {
    expect(segA.contactCount).toBe(5);
    expect((await A().api.get(`/segments/${segA.documentId}/count`)).body.count).toBe(5);
    const contacts = await A().api.get(`/segments/${segA.documentId}/contacts`);
    expect(contacts.body.meta.pagination.total).toBe(5);
    expect(contacts.body.data.map((c: { documentId: string }) => c.documentId).sort()).toEqual(
      Object.values(a.ids).sort(),
    );
    const pre = await preview(B(), [cond('email', 'contains', '@')], 'OR');
    expect(pre.body.count).toBe(4);
    expect(pre.body.data.map((c: { documentId: string }) => c.documentId).sort()).toEqual(
      [b.ids.Ana, b.ids.Bruno, b.ids.Diego, b.ids.Eva].sort(),
    );
  });

  test('identical conditions in both organizations count each its own contacts', async () => {
    const extra = await A().api.post('/contacts', { data: { name: 'Only in A', city: 'Manaus' } });
    expect(extra.status).toBe(201);
    const filters = { logic: 'AND', conditions: [cond('city', 'eq', 'manaus')] };
    const inA = await A().api.post('/segments', { data: { name: 'Manaus', filters } });
    const inB = await B().api.post('/segments', { data: { name: 'Manaus', filters } });
    expect(inA.body.contactCount).toBe(1);
    expect(inB.body.contactCount).toBe(0);
    expect(names(await B().api.get(`/segments/${inB.body.documentId}/contacts`))).toEqual([]);
    expect(names(await preview(B(), filters.conditions))).toEqual([]);
  });

  test('custom-field keys of another organization are not offered', async () => {
    await A().api.post('/contacts', { data: { name: 'Secret', customFields: { secret_key_a: 'x' } } });
    const keys = (await B().api.get('/segments/filter-options')).body.customFields.keys.map(
      (k: { slug: string }) => k.slug,
    );
    expect(keys).not.toContain('secret_key_a');
    const pre = await preview(B(), [{ kind: 'custom', slug: 'secret_key_a', op: 'notEmpty' }]);
    expect(pre.body.count).toBe(0);
  });
});
