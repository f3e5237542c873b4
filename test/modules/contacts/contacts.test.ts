import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';

const CPF = '52998224725';
const CPF_MASKED = '529.982.247-25';
const CPF2 = '11144477735';
const CNPJ = '11222333000181';
const CNPJ_MASKED = '11.222.333/0001-81';
const CNPJ_ALNUM_MASKED = '12.ABC.345/01DE-35';

beforeAll(async () => {
  await getApp();
});

async function create(t: Tenant, data: Record<string, unknown>) {
  return t.api.post('/contacts', { data });
}

describe('contacts CRUD', () => {
  test('creates a contact with every field and reads it back', async () => {
    const t = await newTenant();
    const team = await t.api.post('/teams', { data: { name: 'Vendas' } });
    const res = await create(t, {
      name: 'Maria Silva',
      email: '  Maria.Silva@Example.COM ',
      phone: '(11) 98765-4321',
      contact_type: 'pessoa',
      cpf: CPF_MASKED,
      address: 'Rua A, 1',
      city: 'São Paulo',
      state: 'SP',
      country: 'BR',
      postal_code: '01000-000',
      birthdate: '1990-05-17',
      first_buy_date: '2024-01-02',
      owner: t.membershipId,
      team: team.body.documentId,
      customFields: { segmento: 'varejo', score: 7 },
    });
    expect(res.status).toBe(201);
    const c = res.body;
    expect(c).toMatchObject({
      name: 'Maria Silva',
      email: 'maria.silva@example.com',
      phone: '+5511987654321',
      contact_type: 'pessoa',
      cpf: CPF,
      cnpj: null,
      city: 'São Paulo',
      postal_code: '01000-000',
      birthdate: '1990-05-17',
      first_buy_date: '2024-01-02',
      owner: { documentId: t.membershipId, user: { username: t.user.username } },
      team: { documentId: team.body.documentId, name: 'Vendas' },
      customFields: { segmento: 'varejo', score: 7 },
    });
    expect(c.documentId).toMatch(/^[a-z0-9]{24}$/);
    expect(typeof c.ownedAt).toBe('string');
    const got = await t.api.get(`/contacts/${c.documentId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(c);
  });

  test('defaults: contact_type pessoa, nulls, empty customFields, no owner', async () => {
    const t = await newTenant();
    const res = await create(t, { name: 'Só nome' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      contact_type: 'pessoa',
      email: null,
      phone: null,
      owner: null,
      ownedAt: null,
      team: null,
      customFields: {},
    });
  });

  test('updates partially; customFields merge, null removes a key; owner change sets ownedAt', async () => {
    const t = await newTenant();
    const other = await addMember(t, 'member');
    const { body } = await create(t, { name: 'A', customFields: { a: 1, b: 2 }, owner: t.membershipId });
    const res = await t.api.put(`/contacts/${body.documentId}`, {
      data: { city: 'Recife', customFields: { b: null, c: 3 }, owner: other.membershipId },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'A', city: 'Recife', customFields: { a: 1, c: 3 } });
    expect(res.body.owner.documentId).toBe(other.membershipId);
    expect(res.body.ownedAt >= body.ownedAt).toBe(true);
    const cleared = await t.api.put(`/contacts/${body.documentId}`, { data: { owner: null, city: null } });
    expect(cleared.body).toMatchObject({ owner: null, ownedAt: null, city: null });
  });

  test('deletes permanently', async () => {
    const t = await newTenant();
    const { body } = await create(t, { name: 'Gone' });
    const del = await t.api.delete(`/contacts/${body.documentId}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ documentId: body.documentId, deleted: true });
    expect((await t.api.get(`/contacts/${body.documentId}`)).status).toBe(404);
    expect((await t.api.delete(`/contacts/${body.documentId}`)).status).toBe(404);
  });

  test('validation errors are 400 with paths; unknown owner/team are 400', async () => {
    const t = await newTenant();
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name'],
      [{ name: 'x', email: 'not-an-email' }, 'email'],
      [{ name: 'x', contact_type: 'robo' }, 'contact_type'],
      [{ name: 'x', birthdate: '17/05/1990' }, 'birthdate'],
      [{ name: 'x', unknownField: 1 }, 'unknownField'],
      [{ name: 'x', owner: 'nosuchmembership000000000' }, 'owner'],
      [{ name: 'x', team: 'nosuchteam00000000000000' }, 'team'],
      [{ name: 'x', phone: '12', country: 'BR' }, 'phone'],
      [{ name: 'x', phone: 'call me' }, 'phone'],
    ];
    for (const [data, field] of cases) {
      const res = await create(t, data);
      expect(res.status, JSON.stringify(data)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
      expect(JSON.stringify(res.body.error.details.errors)).toContain(field);
    }
    expect((await t.api.post('/contacts', { name: 'no data envelope' })).status).toBe(400);
  });

  test('unknown contact → 404 on get, put, delete', async () => {
    const t = await newTenant();
    const id = 'abcdefghijklmnopqrstuvwx';
    expect((await t.api.get(`/contacts/${id}`)).status).toBe(404);
    expect((await t.api.put(`/contacts/${id}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await t.api.delete(`/contacts/${id}`)).status).toBe(404);
  });

  test('roles: viewer reads but cannot write', async () => {
    const t = await newTenant();
    const viewer = await addMember(t, 'viewer');
    const { body } = await create(t, { name: 'Seen' });
    expect((await viewer.api.get(`/contacts/${body.documentId}`)).status).toBe(200);
    expect((await viewer.api.get('/contacts')).status).toBe(200);
    expect((await viewer.api.post('/contacts', { data: { name: 'x' } })).status).toBe(403);
    expect((await viewer.api.put(`/contacts/${body.documentId}`, { data: { name: 'x' } })).status).toBe(403);
    expect((await viewer.api.delete(`/contacts/${body.documentId}`)).status).toBe(403);
  });
});

describe('CPF and CNPJ', () => {
  test('valid samples with and without masks are stored bare', async () => {
    const t = await newTenant();
    const samples: [Record<string, string>, Record<string, string>][] = [
      [{ cpf: CPF }, { cpf: CPF }],
      [{ cpf: '111.444.777-35' }, { cpf: CPF2 }],
      [{ cpf: '123 456 789 09' }, { cpf: '12345678909' }],
      [{ cnpj: CNPJ }, { cnpj: CNPJ }],
      [{ cnpj: '12.345.678/0001-95' }, { cnpj: '12345678000195' }],
      [{ cnpj: CNPJ_ALNUM_MASKED }, { cnpj: '12ABC34501DE35' }],
      [{ cnpj: '12abc34501de35' }, { cnpj: '12ABC34501DE35' }],
    ];
    for (const [input, stored] of samples) {
      const res = await create(t, { name: 'Doc', ...input });
      expect(res.status, JSON.stringify(input)).toBe(201);
      expect(res.body).toMatchObject(stored);
      await t.api.delete(`/contacts/${res.body.documentId}`);
    }
  });

  test('invalid samples are 400 naming the field', async () => {
    const t = await newTenant();
    const samples: Record<string, string>[] = [
      { cpf: '529.982.247-24' }, // wrong check digit, masked
      { cpf: '52998224724' }, // wrong check digit, bare
      { cpf: '111.111.111-11' }, // repeated digits
      { cpf: '5299822472' }, // too short
      { cpf: '529982247250' }, // too long
      { cpf: '529a8224725' }, // letters
      { cnpj: '11.222.333/0001-82' }, // wrong check digit, masked
      { cnpj: '11222333000180' }, // wrong check digit, bare
      { cnpj: '00000000000000' }, // repeated digits
      { cnpj: '1122233300018' }, // too short
      { cnpj: '12.ABC.345/01DE-36' }, // alphanumeric with a wrong check digit
    ];
    for (const input of samples) {
      const res = await create(t, { name: 'Doc', ...input });
      expect(res.status, JSON.stringify(input)).toBe(400);
      const [field] = Object.keys(input);
      expect(res.body.error.details.errors[0].path).toContain(field);
      expect(res.body.error.details.errors[0].message).toMatch(/not a valid/);
    }
  });

  test('unique per organization: a duplicate is 400 naming the key, masked or not', async () => {
    const t = await newTenant();
    expect((await create(t, { name: 'A', cpf: CPF, cnpj: CNPJ })).status).toBe(201);
    const dupCpf = await create(t, { name: 'B', cpf: CPF_MASKED });
    expect(dupCpf.status).toBe(400);
    expect(dupCpf.body.error.details.duplicateKeys).toEqual(['cpf']);
    const dupCnpj = await create(t, { name: 'C', cnpj: CNPJ_MASKED });
    expect(dupCnpj.status).toBe(400);
    expect(dupCnpj.body.error.details.duplicateKeys).toEqual(['cnpj']);
    const other = await create(t, { name: 'D', cpf: CPF2 });
    const dupOnUpdate = await t.api.put(`/contacts/${other.body.documentId}`, { data: { cpf: CPF } });
    expect(dupOnUpdate.status).toBe(400);
    expect(dupOnUpdate.body.error.details.duplicateKeys).toEqual(['cpf']);
  });

  test('the same CPF and CNPJ are fine in another organization', async () => {
    const a = await newTenant();
    const b = await newTenant();
    expect((await create(a, { name: 'A', cpf: CPF, cnpj: CNPJ })).status).toBe(201);
    expect((await create(b, { name: 'B', cpf: CPF_MASKED, cnpj: CNPJ_MASKED })).status).toBe(201);
  });

  test('several contacts without cpf/cnpj are fine (null is not a duplicate)', async () => {
    const t = await newTenant();
    expect((await create(t, { name: 'A', cpf: null })).status).toBe(201);
    expect((await create(t, { name: 'B', cpf: '' })).status).toBe(201);
    expect((await create(t, { name: 'C' })).status).toBe(201);
  });
});

describe('phone normalisation', () => {
  test("E.164 in the contact's country (Brazil by default) and for international numbers", async () => {
    const t = await newTenant();
    const cases: [Record<string, string>, string][] = [
      [{ phone: '(11) 98765-4321', country: 'BR' }, '+5511987654321'],
      [{ phone: '11 3456-7890', country: 'Brasil' }, '+551134567890'],
      [{ phone: '011 98765-4321', country: 'brazil' }, '+5511987654321'],
      [{ phone: '0 21 11 98765-4321', country: 'BR' }, '+5511987654321'],
      [{ phone: '55 11 98765 4321', country: 'BR' }, '+5511987654321'],
      [{ phone: '+55 (11) 98765-4321' }, '+5511987654321'],
      [{ phone: '+1 415-555-0100', country: 'US' }, '+14155550100'],
      [{ phone: '00351 912 345 678' }, '+351912345678'],
      [{ phone: ' 415  555 0100 ', country: 'US' }, '+14155550100'],
      [{ phone: '(11) 8765-4321' }, '+551187654321'],
      [{ phone: '912 345 678', country: 'Portugal' }, '+351912345678'],
    ];
    for (const [input, phone] of cases) {
      const res = await create(t, { name: 'P', ...input });
      expect(res.status, JSON.stringify(input)).toBe(201);
      expect(res.body.phone).toBe(phone);
    }
  });

  test('updating the phone uses the stored country', async () => {
    const t = await newTenant();
    const { body } = await create(t, { name: 'P', country: 'BR' });
    const res = await t.api.put(`/contacts/${body.documentId}`, { data: { phone: '(21) 2222-3333' } });
    expect(res.body.phone).toBe('+552122223333');
  });
});

describe('list, filters, sort, search', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant();
    const team = await t.api.post('/teams', { data: { name: 'Norte' } });
    await create(t, {
      name: 'Ana Souza',
      email: 'ana@a.com',
      city: 'Recife',
      cpf: CPF,
      customFields: { tier: 'gold' },
    });
    await create(t, {
      name: 'Bruno Lima',
      email: 'bruno@b.com',
      phone: '+55 11 91234-5678',
      city: 'Natal',
      owner: t.membershipId,
    });
    await create(t, {
      name: 'Carla Empresa',
      contact_type: 'empresa',
      cnpj: CNPJ,
      city: 'Recife',
      team: team.body.documentId,
      customFields: { tier: 'silver' },
    });
  });

  const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((c) => c.name).sort();

  test('lists with pagination meta', async () => {
    const res = await t.api.get('/contacts', { 'pagination[pageSize]': '2', sort: 'name:asc' });
    expect(res.status).toBe(200);
    expect(res.body.meta.pagination).toEqual({ page: 1, pageSize: 2, pageCount: 2, total: 3 });
    expect(res.body.data.map((c: { name: string }) => c.name)).toEqual(['Ana Souza', 'Bruno Lima']);
  });

  test('filters on fields, relations and custom fields', async () => {
    expect(names(await t.api.get('/contacts', { 'filters[city][$eq]': 'Recife' }))).toEqual([
      'Ana Souza',
      'Carla Empresa',
    ]);
    expect(names(await t.api.get('/contacts', { 'filters[contact_type]': 'empresa' }))).toEqual([
      'Carla Empresa',
    ]);
    expect(
      names(await t.api.get('/contacts', { 'filters[owner][documentId][$eq]': t.membershipId })),
    ).toEqual(['Bruno Lima']);
    expect(names(await t.api.get('/contacts', { 'filters[team][name][$eq]': 'Norte' }))).toEqual([
      'Carla Empresa',
    ]);
    expect(names(await t.api.get('/contacts', { 'filters[owner][$null]': 'true' }))).toEqual([
      'Ana Souza',
      'Carla Empresa',
    ]);
    expect(names(await t.api.get('/contacts', { 'filters[customFields][tier][$eq]': 'gold' }))).toEqual([
      'Ana Souza',
    ]);
    expect(names(await t.api.get('/contacts', { 'filters[name][$containsi]': 'LIMA' }))).toEqual([
      'Bruno Lima',
    ]);
  });

  test('bad filters, sorts and params are 400', async () => {
    for (const query of [
      { 'filters[nope][$eq]': 'x' },
      { 'filters[contact_type][$eq]': 'robo' },
      { 'filters[searchText][$eq]': 'x' },
      { sort: 'nope:asc' },
      { 'pagination[pageSize]': '101' },
      { q: 'a' },
      { q: 'ab' },
      { q: 'ab (11)' },
      { unknown: '1' },
    ]) {
      const res = await t.api.get('/contacts', query);
      expect(res.status, JSON.stringify(query)).toBe(400);
    }
  });

  test('q searches name, email, phone, cpf and cnpj, ignoring masks', async () => {
    const cases: [string, string[]][] = [
      ['souza', ['Ana Souza']],
      ['ANA', ['Ana Souza']],
      ['bruno@b', ['Bruno Lima']],
      ['91234', ['Bruno Lima']],
      ['91234-5678', ['Bruno Lima']],
      ['529.982', ['Ana Souza']],
      ['52998224725', ['Ana Souza']],
      ['11.222.333/0001', ['Carla Empresa']],
      ['carla empresa', ['Carla Empresa']],
      ['empresa carla', ['Carla Empresa']],
      ['ana so', ['Ana Souza']],
      ['lima b', ['Bruno Lima']],
      ['(11) 91234-5678', ['Bruno Lima']],
      ['zzzz', []],
      ['100%', []],
    ];
    for (const [q, expected] of cases)
      expect(names(await t.api.get('/contacts', { q })), q).toEqual(expected);
    const res = await t.api.get('/contacts', { q: 'a.com', 'filters[city][$eq]': 'Recife' });
    expect(names(res)).toEqual(['Ana Souza']);
    expect(res.body.meta.pagination.total).toBe(1);
  });
});
