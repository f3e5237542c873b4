import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { runContactImport } from '../../../src/modules/contacts/import-jobs.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant, type Tenant, type TestContext } from '../../helpers/app.js';

let ctx: TestContext;
const sent: unknown[] = [];
const jobs = {
  send: async (_q: unknown, data: unknown) => {
    sent.push(data);
    return 'continuation';
  },
};

beforeAll(async () => {
  ctx = await getApp();
});

function startImport(t: Tenant, csv: string, query = '') {
  return t.api.request({
    method: 'POST',
    url: `/api/contacts/imports${query}`,
    headers: { 'content-type': 'text/csv' },
    payload: csv,
  });
}

/** The job's internal ids (what the queue's job carries). */
async function jobData(documentId: string) {
  const [row] = await queryRows<{ organization_id: number; id: number }>(
    ctx.db.system,
    sql`select organization_id, id from import_jobs where document_id = ${documentId}`,
  );
  return { orgId: Number(row.organization_id), importId: Number(row.id) };
}

const deps = () => ({ db: ctx.db, config: ctx.config, jobs: jobs as never });

async function importAll(t: Tenant, csv: string, query = '') {
  const res = await startImport(t, csv, query);
  expect(res.status).toBe(202);
  expect(await runContactImport(deps(), await jobData(res.body.documentId))).toBe('done');
  return (await t.api.get(`/contacts/imports/${res.body.documentId}`)).body;
}

const CSV = [
  'name,email,phone,cpf,cnpj,city,country,birthdate',
  'Ana,ANA@x.com,(11) 98765-4321,529.982.247-25,,Recife,BR,17/05/1990',
  'Bad Cpf,bad@x.com,,111.111.111-11,,,,',
  'Empresa,,,,11.222.333/0001-81,Natal,,',
  ',nameless@x.com,,,,,,',
  '"Multi',
  'line",multi@x.com,,,,,,',
  'Bad Date,date@x.com,,,,,,31/02/2020',
].join('\n');

describe('background contact import', () => {
  test('202 queued, then done: counts, failures with rows and lines, paginated failures', async () => {
    const t = await newTenant();
    const res = await startImport(t, CSV);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'queued',
      kind: 'contacts',
      rowsDone: 0,
      bytesTotal: CSV.length,
    });
    const job = await jobData(res.body.documentId);
    expect(await runContactImport(deps(), job)).toBe('done');
    const done = (await t.api.get(`/contacts/imports/${res.body.documentId}`)).body;
    expect(done).toMatchObject({
      status: 'done',
      rowsTotal: 6,
      rowsDone: 6,
      rowsCreated: 3,
      rowsUpdated: 0,
      rowsFailed: 3,
      bytesDone: CSV.length,
      error: null,
    });
    expect(done.startedAt).toEqual(expect.any(String));
    expect(done.finishedAt).toEqual(expect.any(String));
    expect(done.failures).toEqual([
      { row: 2, line: 3, field: 'cpf', message: 'not a valid CPF' },
      { row: 4, line: 5, field: 'name', message: 'name is required to create a contact' },
      { row: 6, line: 8, field: 'birthdate', message: expect.any(String) },
    ]);
    const page = await t.api.get(`/contacts/imports/${res.body.documentId}/failures`, {
      'pagination[page]': 2,
      'pagination[pageSize]': 2,
    });
    expect(page.status).toBe(200);
    expect(page.body.data).toEqual([{ row: 6, line: 8, field: 'birthdate', message: expect.any(String) }]);
    expect(page.body.meta.pagination).toEqual({ page: 2, pageSize: 2, pageCount: 2, total: 3 });
    const list = await t.api.get('/contacts', { 'pagination[pageSize]': 10 });
    expect(list.body.data.map((c: { name: string }) => c.name).sort()).toEqual([
      'Ana',
      'Empresa',
      'Multi\nline',
    ]);
    // A second run of a finished job does nothing.
    expect(await runContactImport(deps(), job)).toBe('stopped');
  });

  test('multipart with options as fields; a bad header fails the job with the reason', async () => {
    const t = await newTenant();
    const boundary = '----crmtest';
    const payload =
      `--${boundary}\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n{"Nome":"name","Mail":"email"}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\n` +
      'Nome;Mail\nBia;bia@x.com\n\r\n' +
      `--${boundary}--\r\n`;
    const res = await t.api.request({
      method: 'POST',
      url: '/api/contacts/imports',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      fileName: 'c.csv',
      options: { mapping: { Nome: 'name', Mail: 'email' } },
    });
    expect(await runContactImport(deps(), await jobData(res.body.documentId))).toBe('done');
    expect((await t.api.get(`/contacts/imports/${res.body.documentId}`)).body).toMatchObject({
      rowsCreated: 1,
    });

    const bad = await startImport(t, 'name,email\nX,x@x.com\n', '?mapping[nope]=name');
    expect(bad.status).toBe(202);
    expect(await runContactImport(deps(), await jobData(bad.body.documentId))).toBe('failed');
    const failed = (await t.api.get(`/contacts/imports/${bad.body.documentId}`)).body;
    expect(failed).toMatchObject({ status: 'failed', rowsDone: 0 });
    expect(failed.error).toContain('no such column in the file');
  });

  test('bad options and bodies are 4xx', async () => {
    const t = await newTenant();
    expect((await startImport(t, 'name\nA\n', '?matchBy=cpf,nope')).status).toBe(400);
    expect((await startImport(t, '')).status).toBe(400);
    const json = await t.api.post('/contacts/imports', { data: {} });
    expect(json.status).toBe(415);
    expect((await t.api.get('/contacts/imports/nosuchjob000000000000000')).status).toBe(404);
  });

  test.each([
    ['cpf', 'name,cpf\nFirst,529.982.247-25\n', 'name,cpf\nSecond,52998224725\n'],
    ['cnpj', 'name,cnpj\nFirst,11.222.333/0001-81\n', 'name,cnpj\nSecond,11222333000181\n'],
    ['email', 'name,email\nFirst,a@x.com\n', 'name,email\nSecond,a@x.com\n'],
    [
      'phone',
      'name,phone,country\nFirst,(11) 98765-4321,BR\n',
      'name,phone,country\nSecond,+55 11 98765-4321,BR\n',
    ],
  ])('duplicates matched by %s when chosen', async (key, first, second) => {
    const t = await newTenant();
    expect(await importAll(t, first, `?matchBy=${key}`)).toMatchObject({ rowsCreated: 1 });
    expect(await importAll(t, second, `?matchBy=${key}`)).toMatchObject({ rowsCreated: 0, rowsUpdated: 1 });
    const list = await t.api.get('/contacts');
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['Second']);
  });

  test('a key not chosen does not match: email only creates a second contact for the same phone', async () => {
    const t = await newTenant();
    await importAll(t, 'name,phone,email\nFirst,+55 11 98765-4321,a@x.com\n', '?matchBy=email');
    const again = await importAll(
      t,
      'name,phone,email\nSecond,+55 11 98765-4321,b@x.com\n',
      '?matchBy=email',
    );
    expect(again).toMatchObject({ rowsCreated: 1, rowsUpdated: 0 });
  });

  test('a cpf held by another contact fails that row only (the rest of the batch is written)', async () => {
    const t = await newTenant();
    await importAll(t, 'name,cpf,email\nHolder,529.982.247-25,h@x.com\n');
    const res = await importAll(
      t,
      'name,cpf,email\nOk,,ok@x.com\nThief,529.982.247-25,t@x.com\n',
      '?matchBy=email',
    );
    expect(res).toMatchObject({ rowsCreated: 1, rowsFailed: 1 });
    expect(res.failures).toEqual([{ row: 2, line: 3, field: 'cpf', message: expect.any(String) }]);
  });

  test('resume after a kill: each row written exactly once', async () => {
    const t = await newTenant();
    const rows = Array.from({ length: 45 }, (_, i) => `Person ${i + 1},p${i + 1}@x.com`);
    rows[20] = 'Bad,not-an-email';
    const csv = ['name,email', ...rows].join('\n');
    const res = await startImport(t, csv, '?matchBy=cpf');
    const job = await jobData(res.body.documentId);
    // Killed after the first committed batch.
    await expect(
      runContactImport(deps(), job, {
        batchSize: 10,
        afterBatch: () => {
          throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    const mid = (await t.api.get(`/contacts/imports/${res.body.documentId}`)).body;
    expect(mid).toMatchObject({ status: 'running', rowsDone: 10, rowsCreated: 10 });
    expect(mid.bytesDone).toBeGreaterThan(0);
    expect(mid.bytesDone).toBeLessThan(csv.length);
    // A slice that ends after the next batch queues its continuation.
    sent.length = 0;
    expect(await runContactImport(deps(), job, { batchSize: 10, sliceMs: 0 })).toBe('continued');
    expect(sent).toEqual([job]);
    expect(await runContactImport(deps(), job, { batchSize: 10 })).toBe('done');
    const done = (await t.api.get(`/contacts/imports/${res.body.documentId}`)).body;
    expect(done).toMatchObject({ status: 'done', rowsDone: 45, rowsCreated: 44, rowsFailed: 1 });
    expect(done.failures).toEqual([{ row: 21, line: 22, field: 'email', message: expect.any(String) }]);
    const all = await t.api.get('/contacts', { 'pagination[pageSize]': 100 });
    expect(all.body.meta.pagination.total).toBe(44);
    const names = all.body.data.map((c: { name: string }) => c.name);
    expect(new Set(names).size).toBe(44);
  });

  test('a superseded run stops: the checkpoint moved under it', async () => {
    const t = await newTenant();
    const csv = ['name', ...Array.from({ length: 30 }, (_, i) => `P${i}`)].join('\n');
    const res = await startImport(t, csv);
    const job = await jobData(res.body.documentId);
    let inner: Promise<string> | undefined;
    // While the first run is between batches, a second (an expired job's retry) runs to the end.
    const first = runContactImport(deps(), job, {
      batchSize: 10,
      afterBatch: async ({ rowsDone }) => {
        if (rowsDone === 10) {
          inner = runContactImport(deps(), job, { batchSize: 10 });
          await inner;
        }
      },
    });
    expect(await first).toBe('stopped');
    expect(await inner).toBe('done');
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(30);
  });

  test('cancel stops the import after the batches committed', async () => {
    const t = await newTenant();
    const csv = ['name', ...Array.from({ length: 30 }, (_, i) => `P${i}`)].join('\n');
    const res = await startImport(t, csv);
    const job = await jobData(res.body.documentId);
    const run = runContactImport(deps(), job, {
      batchSize: 10,
      afterBatch: async ({ rowsDone }) => {
        if (rowsDone === 10)
          expect((await t.api.post(`/contacts/imports/${res.body.documentId}/cancel`)).body.status).toBe(
            'cancelled',
          );
      },
    });
    expect(await run).toBe('stopped');
    const after = (await t.api.get(`/contacts/imports/${res.body.documentId}`)).body;
    expect(after).toMatchObject({ status: 'cancelled', rowsDone: 10 });
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(10);
  });

  test('tenancy: another organization cannot read, list the failures of, or cancel an import (404)', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const res = await startImport(a, 'name,email\nX,bad\n');
    const id = res.body.documentId;
    expect((await b.api.get(`/contacts/imports/${id}`)).status).toBe(404);
    expect((await b.api.get(`/contacts/imports/${id}/failures`)).status).toBe(404);
    expect((await b.api.post(`/contacts/imports/${id}/cancel`)).status).toBe(404);
    expect((await a.api.get(`/contacts/imports/${id}`)).status).toBe(200);
    const [{ n }] = await queryRows<{ n: number }>(
      ctx.db.system,
      sql`select count(*)::int as n from import_jobs where document_id = ${id}`,
    );
    expect(n).toBe(1);
    // Under RLS, b's transaction sees no import job of a's at all.
    const count = async (t: Tenant) =>
      (
        await ctx.db.tenantTransaction(await orgIdOf(t), (tx) =>
          queryRows<{ n: number }>(
            tx,
            sql`select count(*)::int as n from import_jobs where document_id = ${id}`,
          ),
        )
      )[0].n;
    expect(await count(b)).toBe(0);
    expect(await count(a)).toBe(1);
  });

  test('memory bounded: a large file imports in a process with a 128 MB heap', {
    timeout: 900_000,
  }, async () => {
    // Asynchronously: a synchronous spawn would block this worker's event loop (and vitest's calls to it) for the
    // whole import.
    const out = await promisify(execFile)(
      process.execPath,
      ['--max-old-space-size=128', '--import', 'tsx', 'test/modules/contacts/fixtures/import-memory.ts'],
      {
        encoding: 'utf8',
        timeout: 880_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, IMPORT_ROWS: '16000', IMPORT_PAD: '10000' },
      },
    ).catch((err: { stdout?: string; stderr?: string; code?: number }) => err);
    expect(String(out.stderr ?? '').slice(-2000)).not.toContain('heap out of memory');
    expect((out as { code?: number }).code ?? 0).toBe(0);
    const result = JSON.parse(
      String(out.stdout ?? '')
        .trim()
        .split('\n')
        .at(-1) ?? '{}',
    );
    expect(result).toMatchObject({ status: 'done', rowsDone: 16_000 });
    expect(result.bytesTotal).toBeGreaterThan(150 * 1024 * 1024);
  });
});

async function orgIdOf(t: Tenant) {
  const [row] = await queryRows<{ id: number }>(
    ctx.db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  return Number(row.id);
}
