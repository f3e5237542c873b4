import { Readable } from 'node:stream';
import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { postCsv } from './csv.js';

beforeAll(async () => {
  await getApp();
});

function postMultipart(t: Tenant, csv: string, fields: Record<string, string> = {}, query = '') {
  const boundary = '----crmtest';
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n`,
  );
  return t.api.request({
    method: 'POST',
    url: `/api/contacts/import${query}`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: `${parts.join('')}--${boundary}--\r\n`,
  });
}

const CSV = [
  'name,email,phone,cpf,cnpj,city,country,birthdate,segmento',
  'Ana,ANA@x.com,(11) 98765-4321,529.982.247-25,,Recife,BR,17/05/1990,varejo',
  'Bad Cpf,bad@x.com,,111.111.111-11,,,,,',
  'Empresa,,,,11.222.333/0001-81,Natal,,,',
  ',nameless@x.com,,,,,,,',
  'Bad Date,date@x.com,,,,,,31/02/2020,',
].join('\n');

describe('contact import', () => {
  test('dry run reports per-row errors and counts without writing', async () => {
    const t = await newTenant();
    const res = await postCsv(t, CSV, '?dryRun=true');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      dryRun: true,
      rows: 5,
      created: 2,
      updated: 0,
      failed: 3,
      errorsTruncated: false,
    });
    expect(res.body.errors).toEqual([
      { row: 2, line: 3, field: 'cpf', message: 'not a valid CPF' },
      { row: 4, line: 5, field: 'name', message: 'name is required to create a contact' },
      { row: 5, line: 6, field: 'birthdate', message: expect.any(String) },
    ]);
    expect(res.body.columns).toMatchObject({ name: 'name', cpf: 'cpf' });
    expect(res.body.ignoredColumns).toEqual(['segmento']);
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(0);
  });

  test('real run writes the valid rows, normalised, with a timeline entry', async () => {
    const t = await newTenant();
    const res = await postCsv(t, CSV, '?mapping[segmento]=customFields.segmento');
    expect(res.body).toMatchObject({ dryRun: false, rows: 5, created: 2, updated: 0, failed: 3 });
    const list = await t.api.get('/contacts', { sort: 'name:asc' });
    expect(list.body.data).toHaveLength(2);
    const [ana, empresa] = list.body.data;
    expect(ana).toMatchObject({
      name: 'Ana',
      email: 'ana@x.com',
      phone: '+5511987654321',
      cpf: '52998224725',
      birthdate: '1990-05-17',
      customFields: { segmento: 'varejo' },
    });
    expect(empresa).toMatchObject({ cnpj: '11222333000181', city: 'Natal' });
    const acts = await t.api.get(`/contacts/${ana.documentId}/activities`);
    expect(acts.body.data[0]).toMatchObject({
      activityType: 'contact_created',
      metadata: { source: 'import' },
    });
  });

  test('phones go through the same rule as POST /contacts: E.164 in the row country (Brazil by default)', async () => {
    const t = await newTenant();
    const csv = [
      'name,telefone,country',
      'Ana,(11) 8765-4321,',
      'Rui,912 345 678,Portugal',
      'Eva,+1 415 555 0100,',
      'Bad,555-1234,',
    ].join('\n');
    const res = await postCsv(t, csv);
    expect(res.body).toMatchObject({ rows: 4, created: 3, failed: 1 });
    const direct = await t.api.post('/contacts', { data: { name: 'x', phone: '555-1234' } });
    expect(res.body.errors).toEqual([
      { row: 4, line: 5, field: 'phone', message: direct.body.error.details.errors[0].message },
    ]);
    const list = await t.api.get('/contacts', { sort: 'name:asc' });
    expect(list.body.data.map((c: { name: string; phone: string }) => [c.name, c.phone])).toEqual([
      ['Ana', '+551187654321'],
      ['Eva', '+14155550100'],
      ['Rui', '+351912345678'],
    ]);
  });

  test('upsert by cpf, cnpj or email: existing contacts are updated, empty cells keep values', async () => {
    const t = await newTenant();
    const byCpf = await t.api.post('/contacts', {
      data: { name: 'Old Cpf', cpf: '52998224725', city: 'Keep' },
    });
    const byEmail = await t.api.post('/contacts', { data: { name: 'Old Mail', email: 'mail@x.com' } });
    const csv = [
      'nome;e-mail;cpf;cidade',
      'New Cpf;;52998224725;',
      'New Mail;MAIL@x.com;;Olinda',
      'Fresh;fresh@x.com;;',
      'Fresh Again;fresh@x.com;;Caruaru',
    ].join('\r\n');
    const dry = await postCsv(t, csv, '?dryRun=true');
    expect(dry.body).toMatchObject({ rows: 4, created: 1, updated: 3, failed: 0 });
    const res = await postCsv(t, csv);
    expect(res.body).toMatchObject({ rows: 4, created: 1, updated: 3, failed: 0 });
    expect((await t.api.get(`/contacts/${byCpf.body.documentId}`)).body).toMatchObject({
      name: 'New Cpf',
      city: 'Keep',
    });
    expect((await t.api.get(`/contacts/${byEmail.body.documentId}`)).body).toMatchObject({
      name: 'New Mail',
      city: 'Olinda',
    });
    const fresh = await t.api.get('/contacts', { 'filters[email][$eq]': 'fresh@x.com' });
    expect(fresh.body.data).toHaveLength(1);
    expect(fresh.body.data[0]).toMatchObject({ name: 'Fresh Again', city: 'Caruaru' });
    const acts = await t.api.get(`/contacts/${byCpf.body.documentId}/activities`);
    expect(acts.body.data[0]).toMatchObject({
      activityType: 'contact_updated',
      metadata: { fields: ['name'] },
    });
  });

  test('a cpf that belongs to another contact is a row error, not a 500', async () => {
    const t = await newTenant();
    await t.api.post('/contacts', { data: { name: 'Owner of cpf', cpf: '52998224725' } });
    await t.api.post('/contacts', { data: { name: 'Owner of cnpj', cnpj: '11222333000181' } });
    const res = await postCsv(
      t,
      'name,cpf,cnpj\nClash,52998224725,11222333000181\nDup A,11144477735,\nDup B,111.444.777-35,',
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 1, updated: 1, failed: 1 });
    expect(res.body.errors[0]).toMatchObject({
      row: 1,
      field: 'cnpj',
      message: 'cnpj already belongs to another contact',
    });
  });

  test('owner and team columns by documentId, email or name; multipart upload with fields', async () => {
    const t = await newTenant();
    const member = await addMember(t, 'member');
    await t.api.post('/teams', { data: { name: 'Norte' } });
    const csv = `Nome Completo,Responsável,Equipe\nA,${member.user.email},norte\nB,${t.membershipId},\nC,nobody@x.com,`;
    const res = await postMultipart(t, csv, { dryRun: 'false' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 2, failed: 1 });
    expect(res.body.errors[0]).toMatchObject({ row: 3, field: 'owner' });
    const a = (await t.api.get('/contacts', { 'filters[name][$eq]': 'A' })).body.data[0];
    expect(a.owner.documentId).toBe(member.membershipId);
    expect(a.team.name).toBe('Norte');
    const acts = (await t.api.get(`/contacts/${a.documentId}/activities`)).body.data;
    expect(acts.map((x: { activityType: string }) => x.activityType).sort()).toEqual([
      'contact_created',
      'owner_assigned',
      'team_assigned',
    ]);
  });

  test('multipart mapping field and dry run', async () => {
    const t = await newTenant();
    const res = await postMultipart(t, 'Cliente,Doc\nX,52998224725', {
      dryRun: 'true',
      mapping: JSON.stringify({ Cliente: 'name', Doc: 'cpf' }),
    });
    expect(res.body).toMatchObject({ dryRun: true, created: 1, columns: { Cliente: 'name', Doc: 'cpf' } });
    expect((await t.api.get('/contacts')).body.data).toEqual([]);
  });

  test('errors: bad mapping, empty file, malformed CSV, wrong content type, viewer', async () => {
    const t = await newTenant();
    const viewer = await addMember(t, 'viewer');
    const badTarget = await postCsv(t, 'a,b\n1,2', '?mapping[a]=password');
    expect(badTarget.status).toBe(400);
    expect(badTarget.body.error.details.errors[0].path).toEqual(['mapping', 'a']);
    expect((await postCsv(t, 'a,b\n1,2', '?mapping[zzz]=name')).status).toBe(400);
    expect((await postCsv(t, 'name,nome\nx,y')).status).toBe(400); // two columns → name
    expect((await postCsv(t, '')).status).toBe(400);
    expect((await postCsv(t, 'name\n"unterminated')).status).toBe(400);
    expect((await postMultipart(t, 'name\nx', { mapping: '{not json' })).status).toBe(400);
    expect((await postMultipart(t, 'name\nx', { delimiter: '|' })).status).toBe(400);
    const json = await t.api.post('/contacts/import', { name: 'x' });
    expect(json.status).toBe(415);
    expect((await postCsv(viewer as unknown as Tenant, 'name\nx')).status).toBe(403);
  });

  test('columns named after Object.prototype members are ordinary headers', async () => {
    const t = await newTenant();
    // With a mapping, unmapped headers were looked up in it and `toString` found Object.prototype's.
    const mapped = await postCsv(
      t,
      'name,toString,constructor,valueOf\nAna,Recife,x,y',
      '?mapping[name]=name&mapping[toString]=city',
    );
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(200);
    expect(mapped.body).toMatchObject({ created: 1, columns: { name: 'name', toString: 'city' } });
    expect(mapped.body.ignoredColumns).toEqual(['constructor', 'valueOf']);
    const ana = await t.api.get('/contacts', { 'filters[name][$eq]': 'Ana' });
    expect(ana.body.data[0]).toMatchObject({ city: 'Recife' });
    const plain = await postCsv(t, 'nome,constructor,hasOwnProperty\nBia,x,y');
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ created: 1, ignoredColumns: ['constructor', 'hasOwnProperty'] });
    const multipart = await postMultipart(t, 'name,toString\nCaio,z', {
      mapping: JSON.stringify({ name: 'name' }),
    });
    expect(multipart.status, JSON.stringify(multipart.body)).toBe(200);
    expect(multipart.body).toMatchObject({ created: 1, ignoredColumns: ['toString'] });
    expect((await postCsv(t, 'name\nx', '?mapping[constructor]=name')).status).toBe(400);
  });

  test('semicolon files (auto-detected) and an Idempotency-Key replay', async () => {
    const t = await newTenant();
    const first = await t.api.request({
      method: 'POST',
      url: '/api/contacts/import',
      headers: { 'content-type': 'text/csv', 'idempotency-key': 'imp-1' },
      payload: 'nome;cidade\nJosé;Olinda',
    });
    expect(first.body).toMatchObject({ created: 1, columns: { nome: 'name', cidade: 'city' } });
    const replay = await t.api.request({
      method: 'POST',
      url: '/api/contacts/import',
      headers: { 'content-type': 'text/csv', 'idempotency-key': 'imp-1' },
      payload: 'nome;cidade\nJosé;Olinda',
    });
    expect(replay.status).toBe(200);
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(1);
  });

  test('a large file streams in batches (2,000 rows, upsert across batches)', async () => {
    const t = await newTenant();
    const lines = ['name,email'];
    for (let i = 0; i < 2000; i++) lines.push(`Person ${i},p${i % 1500}@x.com`);
    const res = await postCsv(t, lines.join('\n'));
    expect(res.body).toMatchObject({ rows: 2000, created: 1500, updated: 500, failed: 0 });
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(1500);
    const p0 = await t.api.get('/contacts', { 'filters[email][$eq]': 'p0@x.com' });
    expect(p0.body.data[0].name).toBe('Person 1500');
  });

  test('50,000 rows in one request, streamed from a generator (the file never exists whole)', async () => {
    const t = await newTenant();
    const ROWS = 50_000;
    function* lines() {
      yield 'name,email,cpf\n';
      for (let i = 0; i < ROWS; i += 1000) {
        let chunk = '';
        for (let j = i; j < i + 1000; j++)
          chunk += `Person ${j},p${j}@x.com,${j === 7 ? '111.111.111-11' : ''}\n`;
        yield chunk;
      }
    }
    const res = await t.api.request({
      method: 'POST',
      url: '/api/contacts/import',
      headers: { 'content-type': 'text/csv' },
      payload: Readable.from(lines()),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rows: ROWS, created: ROWS - 1, updated: 0, failed: 1 });
    expect(res.body.errors).toEqual([{ row: 8, line: 9, field: 'cpf', message: 'not a valid CPF' }]);
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(ROWS - 1);
    const last = await t.api.get('/contacts', { 'filters[email][$eq]': `p${ROWS - 1}@x.com` });
    expect(last.body.data[0].name).toBe(`Person ${ROWS - 1}`);
  }, 180_000);
});
