import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, apiClient, newTenant, type Tenant } from '../../helpers/app.js';
import { cond, type Fixture, names, preview, seedContacts } from './fixtures.js';

let f: Fixture;
let t: Tenant;

beforeAll(async () => {
  t = await newTenant();
  const seller = await addMember(t, 'member');
  f = await seedContacts(t, seller.membershipId);
});

describe('string field operators', () => {
  test('contains is case-insensitive and treats % and _ literally', async () => {
    expect(names(await preview(t, [cond('email', 'contains', 'CORP')]))).toEqual(['Bruno', 'Eva']);
    expect(names(await preview(t, [cond('name', 'contains', '100%')]))).toEqual(['Diego']);
    expect(names(await preview(t, [cond('email', 'contains', 'o_x')]))).toEqual(['Diego']);
    expect(names(await preview(t, [cond('email', 'contains', 'o%x')]))).toEqual([]);
  });

  test('eq compares the whole value, case-insensitively', async () => {
    expect(names(await preview(t, [cond('city', 'eq', 'são paulo')]))).toEqual(['Ana', 'Carla']);
    expect(names(await preview(t, [cond('city', 'eq', 'São')]))).toEqual([]);
    expect(names(await preview(t, [cond('email', 'eq', 'ana.silva@example.com')]))).toEqual(['Ana']);
  });

  test('startsWith and endsWith', async () => {
    expect(names(await preview(t, [cond('name', 'startsWith', 'b')]))).toEqual(['Bruno']);
    expect(names(await preview(t, [cond('name', 'startsWith', 'Silva')]))).toEqual([]);
    expect(names(await preview(t, [cond('email', 'endsWith', '.IO')]))).toEqual(['Bruno', 'Eva']);
    expect(names(await preview(t, [cond('postal_code', 'endsWith', '-000')]))).toEqual(['Ana']);
  });

  test('empty and notEmpty (null and blank are empty)', async () => {
    expect(names(await preview(t, [cond('email', 'empty')]))).toEqual(['Carla']);
    expect(names(await preview(t, [cond('phone', 'notEmpty')]))).toEqual(['Ana', 'Eva']);
    expect(names(await preview(t, [cond('address', 'notEmpty')]))).toEqual(['Ana']);
    expect(names(await preview(t, [cond('cnpj', 'empty')]))).toEqual(['Ana', 'Carla', 'Diego', 'Eva']);
  });

  test('cpf, cnpj and phone compare by their stored digits, masks in the value are ignored', async () => {
    expect(names(await preview(t, [cond('cpf', 'eq', '529.982.247-25')]))).toEqual(['Ana']);
    expect(names(await preview(t, [cond('cpf', 'startsWith', '111.444')]))).toEqual(['Carla']);
    expect(names(await preview(t, [cond('cnpj', 'contains', '222.333/0001')]))).toEqual(['Bruno']);
    expect(names(await preview(t, [cond('phone', 'contains', '(11) 98765')]))).toEqual(['Ana']);
    expect(names(await preview(t, [cond('phone', 'startsWith', '+55')]))).toEqual(['Ana']);
  });

  test('contact_type, state and country', async () => {
    expect(names(await preview(t, [cond('contact_type', 'eq', 'empresa')]))).toEqual(['Bruno']);
    expect(names(await preview(t, [cond('state', 'eq', 'sp')]))).toEqual(['Ana', 'Carla']);
    expect(names(await preview(t, [cond('country', 'eq', 'US')]))).toEqual(['Eva']);
  });
});

describe('logic, relations and custom fields', () => {
  test('AND needs every condition, OR any', async () => {
    const conditions = [cond('city', 'eq', 'São Paulo'), cond('email', 'notEmpty')];
    expect(names(await preview(t, conditions, 'AND'))).toEqual(['Ana']);
    expect(names(await preview(t, conditions, 'OR'))).toEqual(['Ana', 'Bruno', 'Carla', 'Diego', 'Eva']);
    const two = [cond('city', 'eq', 'Curitiba'), cond('country', 'eq', 'US')];
    expect(names(await preview(t, two, 'OR'))).toEqual(['Diego', 'Eva']);
  });

  test('owner and team by documentId; empty / notEmpty', async () => {
    const rel = (field: string, documentId?: string, op?: string) => ({
      kind: 'relation',
      field,
      ...(documentId && { documentId }),
      ...(op && { op }),
    });
    expect(names(await preview(t, [rel('owner', f.sellerId)]))).toEqual(['Bruno', 'Eva']);
    expect(names(await preview(t, [rel('owner', t.membershipId, 'eq')]))).toEqual(['Ana']);
    expect(names(await preview(t, [rel('team', f.teamA)]))).toEqual(['Ana', 'Diego']);
    expect(names(await preview(t, [rel('owner', undefined, 'empty')]))).toEqual(['Carla', 'Diego']);
    expect(names(await preview(t, [rel('team', undefined, 'notEmpty')]))).toEqual(['Ana', 'Bruno', 'Diego']);
    expect(names(await preview(t, [rel('team', f.teamA), rel('owner', undefined, 'notEmpty')]))).toEqual([
      'Ana',
    ]);
  });

  test('custom-field conditions over customFields', async () => {
    const custom = (slug: string, op: string, value?: unknown) => ({ kind: 'custom', slug, op, value });
    expect(names(await preview(t, [custom('plan', 'eq', 'gold')]))).toEqual(['Ana']);
    expect(names(await preview(t, [custom('plan', 'contains', 'L')]))).toEqual(['Ana', 'Bruno']);
    expect(names(await preview(t, [custom('plan', 'empty')]))).toEqual(['Carla', 'Diego', 'Eva']);
    expect(names(await preview(t, [custom('plan', 'notEmpty')]))).toEqual(['Ana', 'Bruno']);
    expect(names(await preview(t, [custom('score', 'eq', 42)]))).toEqual(['Ana']);
    expect(names(await preview(t, [custom('source', 'startsWith', 'ad')]))).toEqual(['Ana']);
    expect(names(await preview(t, [custom('plan', 'endsWith', 'VER')]))).toEqual(['Bruno']);
  });
});

describe('preview', () => {
  test('the spec shape { rules: { condition, rules: [{ field, operator, value }] } }', async () => {
    const res = await t.api.post('/segments/preview', {
      rules: {
        condition: 'OR',
        rules: [
          { field: 'city', operator: 'equal', value: 'Curitiba' },
          { field: 'customFields.plan', operator: 'eq', value: 'silver' },
          { field: 'owner', operator: 'eq', value: t.membershipId },
        ],
      },
    });
    expect(names(res)).toEqual(['Ana', 'Bruno', 'Diego']);
    expect(res.body.count).toBe(3);
    const empty = await t.api.post('/segments/preview', {
      rules: { condition: 'AND', rules: [{ field: 'email', operator: 'is_empty' }] },
    });
    expect(names(empty)).toEqual(['Carla']);
  });

  test('returns the total count, one page of contacts in the contact shape, and pagination meta', async () => {
    const res = await preview(t, [cond('name', 'notEmpty')], 'AND', { pagination: { page: 2, pageSize: 2 } });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(5);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.meta.pagination).toEqual({ page: 2, pageSize: 2, pageCount: 3, total: 5 });
    const ana = (await preview(t, [cond('cpf', 'eq', '52998224725')])).body.data[0];
    expect(ana).toMatchObject({
      documentId: f.ids.Ana,
      cpf: '52998224725',
      owner: { documentId: t.membershipId },
      team: { documentId: f.teamA, name: 'Team A' },
      customFields: { plan: 'Gold' },
    });
  });

  test('takes requiredSegments and excludedSegments', async () => {
    const sp = await t.api.post('/segments', {
      data: { name: 'preview-sp', filters: { logic: 'AND', conditions: [cond('state', 'eq', 'SP')] } },
    });
    const res = await preview(t, [cond('name', 'notEmpty')], 'AND', {
      excludedSegments: [sp.body.documentId],
    });
    expect(names(res)).toEqual(['Bruno', 'Diego', 'Eva']);
    const spec = await t.api.post('/segments/preview', {
      rules: { condition: 'AND', rules: [{ field: 'email', operator: 'is_not_empty' }] },
      requiredSegments: [sp.body.documentId],
    });
    expect(names(spec)).toEqual(['Ana']);
  });

  test('invalid spec rules name the rule and key', async () => {
    const res = await t.api.post('/segments/preview', {
      rules: {
        condition: 'AND',
        rules: [
          { field: 'city', operator: 'eq', value: 'x' },
          { field: 'city', operator: 'between', value: 'x' },
          { field: 'shoeSize', operator: 'eq', value: '42' },
          { field: 'city', operator: 'contains' },
        ],
      },
    });
    expect(res.status).toBe(400);
    const paths = res.body.error.details.errors.map((e: { path: string[] }) => e.path.join('.'));
    expect(paths).toEqual(['rules.rules.1.operator', 'rules.rules.2.field', 'rules.rules.3.value']);
    const owner = await t.api.post('/segments/preview', {
      rules: { condition: 'AND', rules: [{ field: 'owner', operator: 'eq', value: 'a'.repeat(24) }] },
    });
    expect(owner.status).toBe(400);
    expect(owner.body.error.details.errors[0].path).toEqual(['rules', 'rules', '0', 'value']);
  });

  test('needs exactly one of rules or filters', async () => {
    expect((await t.api.post('/segments/preview', {})).status).toBe(400);
    const both = await t.api.post('/segments/preview', {
      rules: { condition: 'AND', rules: [{ field: 'city', operator: 'eq', value: 'x' }] },
      filters: { logic: 'AND', conditions: [cond('city', 'eq', 'x')] },
    });
    expect(both.status).toBe(400);
  });

  test('a viewer may preview', async () => {
    const viewer = await addMember(t, 'viewer');
    expect(
      (
        await viewer.api.post('/segments/preview', {
          filters: { logic: 'AND', conditions: [cond('city', 'eq', 'x')] },
        })
      ).status,
    ).toBe(200);
  });
});

describe('CRUD', () => {
  test('creates, reads, lists, updates and deletes a segment with a live contactCount', async () => {
    const created = await t.api.post('/segments', {
      data: {
        name: 'Corp e-mails',
        description: 'B2B',
        filters: { logic: 'AND', conditions: [cond('email', 'endsWith', '@corp.io')] },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Corp e-mails',
      description: 'B2B',
      active: true,
      contactCount: 2,
      requiredSegments: [],
      excludedSegments: [],
      filters: { logic: 'AND', conditions: [{ field: 'email', op: 'endsWith', value: '@corp.io' }] },
    });
    const id = created.body.documentId;
    expect((await t.api.get(`/segments/${id}`)).body.contactCount).toBe(2);
    const list = await t.api.get('/segments', { 'filters[name][$eq]': 'Corp e-mails' });
    expect(
      list.body.data.map((s: { documentId: string; contactCount: number }) => [s.documentId, s.contactCount]),
    ).toEqual([[id, 2]]);

    const updated = await t.api.put(`/segments/${id}`, { data: { active: false, description: null } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      active: false,
      description: null,
      name: 'Corp e-mails',
      contactCount: 2,
    });
    const refiltered = await t.api.put(`/segments/${id}`, {
      data: {
        filters: {
          logic: 'OR',
          conditions: [cond('email', 'endsWith', '@corp.io'), cond('city', 'eq', 'Curitiba')],
        },
      },
    });
    expect(refiltered.body.contactCount).toBe(3);

    const del = await t.api.delete(`/segments/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ documentId: id, deleted: true });
    expect((await t.api.get(`/segments/${id}`)).status).toBe(404);
  });

  test('count and contacts of a stored segment', async () => {
    const s = await t.api.post('/segments', {
      data: { name: 'SP', filters: { logic: 'AND', conditions: [cond('state', 'eq', 'SP')] } },
    });
    const count = await t.api.get(`/segments/${s.body.documentId}/count`);
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ documentId: s.body.documentId, count: 2 });
    const contacts = await t.api.get(`/segments/${s.body.documentId}/contacts`, { sort: 'name:asc' });
    expect(contacts.body.data.map((c: { name: string }) => c.name)).toEqual(['Ana Silva', 'Carla Dias']);
    expect(contacts.body.meta.pagination).toEqual({ page: 1, pageSize: 25, pageCount: 1, total: 2 });
    const narrowed = await t.api.get(`/segments/${s.body.documentId}/contacts`, {
      'filters[email][$notNull]': 'true',
      'pagination[pageSize]': '1',
    });
    expect(names(narrowed)).toEqual(['Ana']);
    expect(narrowed.body.meta.pagination.total).toBe(1);
    expect(
      (await t.api.get(`/segments/${s.body.documentId}/contacts`, { 'filters[nope][$eq]': 'x' })).status,
    ).toBe(400);
    expect((await t.api.get(`/segments/${'z'.repeat(24)}/count`)).status).toBe(404);
    expect((await t.api.get(`/segments/${'z'.repeat(24)}/contacts`)).status).toBe(404);
  });

  test('contactCount follows contact changes', async () => {
    const tenant = await newTenant();
    const s = await tenant.api.post('/segments', {
      data: { name: 'Recife', filters: { logic: 'AND', conditions: [cond('city', 'eq', 'Recife')] } },
    });
    expect(s.body.contactCount).toBe(0);
    const c = await tenant.api.post('/contacts', { data: { name: 'Zé', city: 'Recife' } });
    expect((await tenant.api.get(`/segments/${s.body.documentId}`)).body.contactCount).toBe(1);
    await tenant.api.put(`/contacts/${c.body.documentId}`, { data: { city: 'Olinda' } });
    expect((await tenant.api.get(`/segments/${s.body.documentId}/count`)).body.count).toBe(0);
    await tenant.api.put(`/contacts/${c.body.documentId}`, { data: { city: 'recife' } });
    expect((await tenant.api.get('/segments')).body.data[0].contactCount).toBe(1);
    await tenant.api.delete(`/contacts/${c.body.documentId}`);
    expect((await tenant.api.get(`/segments/${s.body.documentId}/count`)).body.count).toBe(0);
  });

  test('a duplicate name is a 400 naming the key', async () => {
    const body = { data: { name: 'Twice', filters: { logic: 'AND', conditions: [cond('city', 'empty')] } } };
    expect((await t.api.post('/segments', body)).status).toBe(201);
    const dup = await t.api.post('/segments', body);
    expect(dup.status).toBe(400);
    expect(dup.body.error.details.duplicateKeys).toEqual(['name']);
  });

  test('a viewer reads but cannot write', async () => {
    const viewer = await addMember(t, 'viewer');
    const body = {
      data: { name: 'By viewer', filters: { logic: 'AND', conditions: [cond('city', 'empty')] } },
    };
    expect((await viewer.api.post('/segments', body)).status).toBe(403);
    expect((await viewer.api.get('/segments')).status).toBe(200);
    const member = await addMember(t, 'member');
    expect((await member.api.post('/segments', body)).status).toBe(201);
  });
});

describe('required and excluded segments', () => {
  test('a contact must match every required segment and none of the excluded ones', async () => {
    const mk = async (name: string, conditions: unknown[], extra: Record<string, unknown> = {}) => {
      const res = await t.api.post('/segments', {
        data: { name, filters: { logic: 'AND', conditions }, ...extra },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const br = await mk('link-br', [cond('country', 'eq', 'BR')]);
    const corp = await mk('link-corp', [cond('email', 'contains', 'corp')]);
    const all = await mk('link-all', [cond('name', 'notEmpty')], {
      requiredSegments: [br.documentId],
      excludedSegments: [corp.documentId],
    });
    expect(all.contactCount).toBe(1); // Ana: BR and not corp
    expect(all.requiredSegments).toEqual([br.documentId]);
    expect(all.excludedSegments).toEqual([corp.documentId]);
    const notCorp = await mk('link-not-corp', [cond('name', 'notEmpty')], {
      excludedSegments: [corp.documentId],
    });
    // Contacts without an e-mail are outside "corp", so inside "not corp".
    expect(notCorp.contactCount).toBe(3);
    // Nested: requires a segment that itself excludes another.
    const nested = await mk('link-nested', [cond('city', 'eq', 'São Paulo')], {
      requiredSegments: [notCorp.documentId],
    });
    expect(nested.contactCount).toBe(2);
    expect((await t.api.get(`/segments/${nested.documentId}/contacts`)).body.data).toHaveLength(2);

    // Changing a linked segment changes its dependents.
    await t.api.put(`/segments/${corp.documentId}`, {
      data: { filters: { logic: 'AND', conditions: [cond('city', 'eq', 'São Paulo')] } },
    });
    expect((await t.api.get(`/segments/${nested.documentId}/count`)).body.count).toBe(0);

    // A linked segment cannot be deleted while others use it.
    const del = await t.api.delete(`/segments/${corp.documentId}`);
    expect(del.status).toBe(422);
    expect(del.body.error.details.dependents.map((d: { name: string }) => d.name).sort()).toEqual([
      'link-all',
      'link-not-corp',
    ]);
    // Removing the links frees it.
    await t.api.put(`/segments/${all.documentId}`, { data: { excludedSegments: [] } });
    await t.api.put(`/segments/${notCorp.documentId}`, { data: { excludedSegments: [] } });
    expect((await t.api.delete(`/segments/${corp.documentId}`)).status).toBe(200);
  });

  test('cycles, self links, unknown and repeated segments are 400s naming the entry', async () => {
    const base = { filters: { logic: 'AND', conditions: [cond('name', 'notEmpty')] } };
    const a = (await t.api.post('/segments', { data: { name: 'cyc-a', ...base } })).body;
    const b = (
      await t.api.post('/segments', { data: { name: 'cyc-b', ...base, requiredSegments: [a.documentId] } })
    ).body;
    const c = (
      await t.api.post('/segments', { data: { name: 'cyc-c', ...base, excludedSegments: [b.documentId] } })
    ).body;

    const cycle = await t.api.put(`/segments/${a.documentId}`, {
      data: { excludedSegments: [c.documentId] },
    });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error.details.errors[0].path).toEqual(['excludedSegments', '0']);
    expect(cycle.body.error.message).toMatch(/cycle/);

    const self = await t.api.put(`/segments/${a.documentId}`, { data: { requiredSegments: [a.documentId] } });
    expect(self.status).toBe(400);
    expect(self.body.error.details.errors[0].path).toEqual(['requiredSegments', '0']);

    const unknown = await t.api.post('/segments', {
      data: { name: 'cyc-d', ...base, requiredSegments: [a.documentId, 'q'.repeat(24)] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.errors[0].path).toEqual(['requiredSegments', '1']);

    const both = await t.api.post('/segments', {
      data: { name: 'cyc-e', ...base, requiredSegments: [a.documentId], excludedSegments: [a.documentId] },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.details.errors[0].path).toEqual(['excludedSegments', '0']);
    // Nothing was written by the failed attempts.
    expect((await t.api.get(`/segments/${a.documentId}`)).body.excludedSegments).toEqual([]);
  });
});

describe('invalid conditions', () => {
  const post = (conditions: unknown, logic: unknown = 'AND') =>
    t.api.post('/segments', { data: { name: 'bad', filters: { logic, conditions } } });
  const firstPath = (res: { status: number; body: any }) => {
    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('ValidationError');
    return res.body.error.details.errors[0].path.join('.');
  };

  test('each problem names the condition and the key', async () => {
    const ok = cond('city', 'eq', 'x');
    expect(firstPath(await post([ok, ok, { field: 'city', op: 'like', value: 'x' }]))).toBe(
      'filters.conditions.2.op',
    );
    expect(firstPath(await post([ok, { field: 'city', value: 'x' }]))).toBe('filters.conditions.1.op');
    expect(firstPath(await post([{ field: 'birthdate', op: 'eq', value: 'x' }]))).toBe(
      'filters.conditions.0.field',
    );
    expect(firstPath(await post([cond('city', 'contains')]))).toBe('filters.conditions.0.value');
    expect(firstPath(await post([cond('city', 'contains', '   ')]))).toBe('filters.conditions.0.value');
    expect(firstPath(await post([cond('city', 'empty', 'x')]))).toBe('filters.conditions.0.value');
    expect(firstPath(await post([cond('contact_type', 'eq', 'robot')]))).toBe('filters.conditions.0.value');
    expect(firstPath(await post([cond('cpf', 'eq', 'abc')]))).toBe('filters.conditions.0.value');
    expect(firstPath(await post([{ ...ok, extra: 1 }]))).toBe('filters.conditions.0.extra');
    expect(firstPath(await post([{ kind: 'custom', op: 'eq', value: 'x' }]))).toBe(
      'filters.conditions.0.slug',
    );
    expect(firstPath(await post([{ kind: 'relation', field: 'owner' }]))).toBe(
      'filters.conditions.0.documentId',
    );
    expect(firstPath(await post([{ kind: 'relation', field: 'boss', documentId: t.membershipId }]))).toBe(
      'filters.conditions.0.field',
    );
    expect(
      firstPath(await post([{ kind: 'relation', field: 'team', op: 'contains', documentId: f.teamA }])),
    ).toBe('filters.conditions.0.op');
    expect(firstPath(await post([{ kind: 'relation', field: 'owner', documentId: 'b'.repeat(24) }]))).toBe(
      'filters.conditions.0.documentId',
    );
    expect(firstPath(await post([ok, { kind: 'relation', field: 'team', documentId: t.membershipId }]))).toBe(
      'filters.conditions.1.documentId',
    );
    expect(firstPath(await post([]))).toBe('filters.conditions');
    expect(firstPath(await post([ok], 'XOR'))).toBe('filters.logic');
    expect(firstPath(await t.api.post('/segments', { data: { name: 'bad' } }))).toBe('filters');
  });

  test('fields and relations named after Object.prototype members are unknown; as custom keys they are data', async () => {
    for (const name of Object.getOwnPropertyNames(Object.prototype).filter((n) => n !== '__proto__')) {
      expect(firstPath(await post([cond(name, 'eq', 'x')])), name).toBe('filters.conditions.0.field');
      expect(
        firstPath(await post([{ kind: 'relation', field: name, documentId: t.membershipId }])),
        name,
      ).toBe('filters.conditions.0.field');
      expect((await preview(t, [cond(name, 'eq', 'x')])).status, name).toBe(400);
      // a customFields key may be called anything: nobody has one named so
      expect(names(await preview(t, [{ kind: 'custom', slug: name, op: 'notEmpty' }]))).toEqual([]);
    }
    // the contacts of a stored segment take the list query: prototype names there are 400s too
    const seg = await t.api.post('/segments', {
      data: { name: 'proto-keys', filters: { logic: 'AND', conditions: [cond('name', 'notEmpty')] } },
    });
    expect(seg.status).toBe(201);
    for (const query of ['sort=constructor', 'sort[toString]=desc', 'filters[valueOf]=x', 'sort[name]=up']) {
      const res = await t.api.request({
        method: 'GET',
        url: `/api/segments/${seg.body.documentId}/contacts?${query}`,
      });
      expect(res.status, query).toBe(400);
    }
    const sorted = await t.api.request({
      method: 'GET',
      url: `/api/segments/${seg.body.documentId}/contacts?sort[name]=desc`,
    });
    expect(sorted.body.data.map((c: { name: string }) => c.name.split(' ')[0])).toEqual([
      'Eva',
      'Diego',
      'Carla',
      'Bruno',
      'Ana',
    ]);
  });

  test('the stored preview shape reports paths without the data wrapper', async () => {
    const res = await preview(t, [cond('city', 'eq', 'x'), cond('city', 'startsWith')]);
    expect(firstPath(res)).toBe('filters.conditions.1.value');
  });
});

describe('filter options', () => {
  test('lists fields, operators, owners, teams, custom-field keys and segments of the organization', async () => {
    const res = await t.api.get('/segments/filter-options');
    expect(res.status).toBe(200);
    const o = res.body;
    expect(o.logic).toEqual(['AND', 'OR']);
    expect(o.operators.map((x: { op: string }) => x.op)).toEqual([
      'contains',
      'eq',
      'startsWith',
      'endsWith',
      'empty',
      'notEmpty',
    ]);
    expect(o.fields.map((x: { field: string }) => x.field)).toContain('postal_code');
    expect(o.fields.find((x: { field: string }) => x.field === 'contact_type').values).toEqual([
      'pessoa',
      'empresa',
    ]);
    expect(o.relations.map((x: { field: string }) => x.field)).toEqual(['owner', 'team']);
    expect(o.owners.map((x: { documentId: string }) => x.documentId)).toEqual(
      expect.arrayContaining([t.membershipId, f.sellerId]),
    );
    expect(o.teams.map((x: { name: string }) => x.name)).toEqual(['Team A', 'Team B']);
    expect(o.customFields.keys).toEqual([
      { slug: 'plan', contacts: 3 },
      { slug: 'score', contacts: 1 },
      { slug: 'source', contacts: 1 },
    ]);
    expect(Array.isArray(o.segments)).toBe(true);
  });
});

describe('edge cases', () => {
  test('SQL-looking values are plain text', async () => {
    const res = await preview(t, [cond('name', 'contains', "'; delete from contacts; --")]);
    expect(res.body.count).toBe(0);
    expect((await preview(t, [cond('name', 'notEmpty')])).body.count).toBe(5);
  });

  test('an inactive segment still evaluates as a required segment', async () => {
    const off = await t.api.post('/segments', {
      data: {
        name: 'edge-off',
        active: false,
        filters: { logic: 'AND', conditions: [cond('city', 'eq', 'Curitiba')] },
      },
    });
    expect(off.body).toMatchObject({ active: false, contactCount: 1 });
    const res = await preview(t, [cond('name', 'notEmpty')], 'AND', {
      requiredSegments: [off.body.documentId],
    });
    expect(names(res)).toEqual(['Diego']);
  });

  test('a page past the end is empty but keeps the count', async () => {
    const res = await preview(t, [cond('name', 'notEmpty')], 'AND', { pagination: { page: 9, pageSize: 2 } });
    expect(res.body.count).toBe(5);
    expect(res.body.data).toEqual([]);
  });

  test('a removed owner membership matches nobody and counts as no owner', async () => {
    const tenant = await newTenant();
    const seller = await addMember(tenant, 'member');
    await tenant.api.post('/contacts', { data: { name: 'Owned', owner: seller.membershipId } });
    const byOwner = await tenant.api.post('/segments', {
      data: {
        name: 'by seller',
        filters: {
          logic: 'AND',
          conditions: [{ kind: 'relation', field: 'owner', documentId: seller.membershipId }],
        },
      },
    });
    expect(byOwner.body.contactCount).toBe(1);
    expect((await tenant.api.delete(`/memberships/${seller.membershipId}`)).status).toBe(200);
    expect((await tenant.api.get(`/segments/${byOwner.body.documentId}/count`)).body.count).toBe(0);
    const noOwner = await preview(tenant, [{ kind: 'relation', field: 'owner', op: 'empty' }]);
    expect(names(noOwner)).toEqual(['Owned']);
  });
});

describe('removed relations', () => {
  test('a segment whose team was deleted matches nobody and can still be renamed', async () => {
    const tenant = await newTenant();
    const team = (await tenant.api.post('/teams', { data: { name: 'Gone soon' } })).body.documentId;
    await tenant.api.post('/contacts', { data: { name: 'In team', team } });
    const s = await tenant.api.post('/segments', {
      data: {
        name: 'team seg',
        filters: { logic: 'AND', conditions: [{ kind: 'relation', field: 'team', documentId: team }] },
      },
    });
    expect(s.body.contactCount).toBe(1);
    expect((await tenant.api.delete(`/teams/${team}`)).status).toBe(200);
    const renamed = await tenant.api.put(`/segments/${s.body.documentId}`, { data: { name: 'renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed', contactCount: 0 });
    // Sending the filters again re-checks them.
    const resent = await tenant.api.put(`/segments/${s.body.documentId}`, {
      data: { filters: s.body.filters },
    });
    expect(resent.status).toBe(400);
    expect(resent.body.error.details.errors[0].path).toEqual(['filters', 'conditions', '0', 'documentId']);
  });
});

describe('token scopes', () => {
  test('segments:read reads segments; previews and resolves also need contacts:read; writes need segments:write', async () => {
    const token = async (scopes: string[]) => {
      const res = await t.userApi.post('/users/generate-token', { expiration: '1d', scopes });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return apiClient(t.app, { authorization: `Bearer ${res.body.token}`, 'x-tenant-id': t.slug });
    };
    const body = { data: { name: 'scoped', filters: { logic: 'AND', conditions: [cond('city', 'empty')] } } };
    const id = (await t.api.post('/segments', { data: { ...body.data, name: 'scoped-owner' } })).body
      .documentId;
    const readOnly = await token(['segments:read']);
    expect((await readOnly.get('/segments')).status).toBe(200);
    expect((await readOnly.get(`/segments/${id}/count`)).status).toBe(200);
    expect((await readOnly.get(`/segments/${id}/contacts`)).status).toBe(403);
    expect((await readOnly.post('/segments/preview', { filters: body.data.filters })).status).toBe(403);
    expect((await readOnly.post('/segments', body)).status).toBe(403);
    const both = await token(['segments:read', 'contacts:read']);
    expect((await both.get(`/segments/${id}/contacts`)).status).toBe(200);
    expect((await (await token(['segments:write'])).post('/segments', body)).status).toBe(201);
  });
});
