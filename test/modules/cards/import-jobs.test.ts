import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { runCardImport } from '../../../src/modules/cards/import-jobs.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant, type Tenant, type TestContext } from '../../helpers/app.js';
import { createPipeline } from './factory.js';

let ctx: TestContext;
const jobs = { send: async () => 'continuation' } as never;
const deps = () => ({ db: ctx.db, config: ctx.config, jobs });

beforeAll(async () => {
  ctx = await getApp();
});

function startImport(t: Tenant, boardId: string, csv: string, query = '') {
  return t.api.request({
    method: 'POST',
    url: `/api/boards/${boardId}/cards/imports${query}`,
    headers: { 'content-type': 'text/csv' },
    payload: csv,
  });
}

async function jobData(documentId: string) {
  const [row] = await queryRows<{ organization_id: number; id: number }>(
    ctx.db.system,
    sql`select organization_id, id from import_jobs where document_id = ${documentId}`,
  );
  return { orgId: Number(row.organization_id), importId: Number(row.id) };
}

describe('background card import', () => {
  test('cards with phase by name or slug, fields by slug, tags, assignee and contact by e-mail; failures by line', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const contact = await t.api.post('/contacts', { data: { name: 'Cli', email: 'cli@x.com' } });
    expect(contact.status).toBe(201);
    const csv = [
      'title,value,phase,name,email,size,tags,assignee,contact',
      `Deal A,"1.234,50",Lead,Ana,ana@x.com,small,hot|Cold,${t.user.email},CLI@x.com`,
      'Deal B,10,nowhere,Bia,bia@x.com,,,,',
      'Deal C,20,qualified,Caio,caio@x.com,large,,,',
      'Deal D,30,lead,,dan@x.com,,,,',
      'Deal E,40,lead,Eva,eva@x.com,,nope,,',
      'Deal F,50,lead,Fab,fab@x.com,,,nobody@x.com,',
      'Deal G,60,lead,Gil,gil@x.com,,,,ghost@x.com',
      'Deal H,abc,lead,Hil,hil@x.com,,,,',
    ].join('\n');
    const res = await startImport(t, boardId, csv);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ kind: 'cards', status: 'queued' });
    expect(await runCardImport(deps(), await jobData(res.body.documentId), { batchSize: 3 })).toBe('done');
    const job = (await t.api.get(`/boards/${boardId}/cards/imports/${res.body.documentId}`)).body;
    expect(job).toMatchObject({ status: 'done', rowsDone: 8, rowsCreated: 2, rowsFailed: 6 });
    expect(
      job.failures.map((f: { row: number; line: number; field: string }) => [f.row, f.line, f.field]),
    ).toEqual([
      [2, 3, 'phase'],
      [4, 5, 'name'],
      [5, 6, 'tags'],
      [6, 7, 'assignee'],
      [7, 8, 'contact'],
      [8, 9, 'value'],
    ]);
    const cards = await t.api.get(`/boards/${boardId}/cards`, { populate: '*' });
    const a = cards.body.data.find((c: { title: string }) => c.title === 'Deal A');
    expect(a).toMatchObject({ value: 1234.5, fields: { name: 'Ana', size: 'small', source: 'website' } });
    expect(a.tags.map((x: { slug: string }) => x.slug).sort()).toEqual(['cold', 'hot']);
    expect(a.assignees.map((x: { documentId: string }) => x.documentId)).toEqual([t.membershipId]);
    expect(a.contact.documentId).toBe(contact.body.documentId);
    const c = cards.body.data.find((x: { title: string }) => x.title === 'Deal C');
    expect(c.currentPhase.slug).toBe('qualified');
    const failures = await t.api.get(`/boards/${boardId}/cards/imports/${res.body.documentId}/failures`, {
      'pagination[pageSize]': 2,
    });
    expect(failures.body.meta.pagination).toMatchObject({ total: 6, pageCount: 3 });
  });

  test('resume after a kill: every card created exactly once', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const csv = ['name,email', ...Array.from({ length: 25 }, (_, i) => `N${i},n${i}@x.com`)].join('\n');
    const res = await startImport(t, boardId, csv);
    const job = await jobData(res.body.documentId);
    await expect(
      runCardImport(deps(), job, {
        batchSize: 10,
        afterBatch: () => {
          throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    expect((await t.api.get(`/boards/${boardId}/cards/imports/${res.body.documentId}`)).body).toMatchObject({
      status: 'running',
      rowsDone: 10,
    });
    expect(await runCardImport(deps(), job, { batchSize: 10 })).toBe('done');
    const cards = await t.api.get(`/boards/${boardId}/cards`, { 'pagination[pageSize]': 100 });
    expect(cards.body.meta.pagination.total).toBe(25);
    expect(new Set(cards.body.data.map((c: { fields: { name: string } }) => c.fields.name)).size).toBe(25);
  });

  test('an unknown mapping target fails the job; unknown board is 404', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const res = await startImport(t, boardId, 'x\n1\n', '?mapping[x]=nothing');
    expect(await runCardImport(deps(), await jobData(res.body.documentId))).toBe('failed');
    const job = (await t.api.get(`/boards/${boardId}/cards/imports/${res.body.documentId}`)).body;
    expect(job.status).toBe('failed');
    expect(job.error).toContain('not a card column');
    expect((await startImport(t, 'nosuchboard0000000000000', 'title\nA\n')).status).toBe(404);
  });

  test('tenancy: another organization cannot see the import, nor through its own board (404)', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const { boardId } = await createPipeline(a.api);
    const other = await createPipeline(b.api);
    const res = await startImport(a, boardId, 'title\nA\n');
    const id = res.body.documentId;
    expect((await b.api.get(`/boards/${boardId}/cards/imports/${id}`)).status).toBe(404);
    expect((await b.api.get(`/boards/${other.boardId}/cards/imports/${id}`)).status).toBe(404);
    expect((await b.api.get(`/boards/${other.boardId}/cards/imports/${id}/failures`)).status).toBe(404);
    expect((await b.api.post(`/boards/${other.boardId}/cards/imports/${id}/cancel`)).status).toBe(404);
    expect((await a.api.get(`/boards/${boardId}/cards/imports/${id}`)).status).toBe(200);
    // Not under another board of the same organization either.
    const second = await createPipeline(a.api);
    expect((await a.api.get(`/boards/${second.boardId}/cards/imports/${id}`)).status).toBe(404);
  });
});
