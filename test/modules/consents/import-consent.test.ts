import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { runContactImport } from '../../../src/modules/contacts/import-jobs.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant, type Tenant, type TestContext } from '../../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await getApp();
});

const csvRequest = (t: Tenant, url: string, csv: string) =>
  t.api.request({ method: 'POST', url: `/api${url}`, headers: { 'content-type': 'text/csv' }, payload: csv });

async function consentsOf(t: Tenant, email: string) {
  const found = await t.api.get('/contacts', { 'filters[email][$eq]': email });
  return (await t.api.get(`/contacts/${found.body.data[0].documentId}/consents`)).body;
}
const state = (c: any, channel: string, purpose = 'marketing') =>
  c.current.find((s: any) => s.channel === channel && s.purpose === purpose).status;

const CSV = [
  'nome;email;consent_whatsapp;Aceita e-mail',
  'Ana;ana@imp.example;sim;yes',
  'Bia;bia@imp.example;não;',
  'Caio;caio@imp.example;;1',
].join('\n');

describe('the contacts import records consent columns', () => {
  test('synchronous import: recognised and mapped columns, source import, who imported', async () => {
    const t = await newTenant();
    const res = await csvRequest(
      t,
      `/contacts/import?${encodeURIComponent('mapping[Aceita e-mail]')}=consent.email.marketing`,
      CSV,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ created: 3, failed: 0 });
    expect(res.body.columns).toMatchObject({
      consent_whatsapp: 'consent.whatsapp.marketing',
      'Aceita e-mail': 'consent.email.marketing',
    });
    const ana = await consentsOf(t, 'ana@imp.example');
    expect(state(ana, 'whatsapp')).toBe('granted');
    expect(state(ana, 'email')).toBe('granted');
    expect(ana.history[0]).toMatchObject({ source: 'import', recordedBy: t.membershipId });
    expect(ana.history[0].proof).toMatchObject({ import: 'csv', rows: [1] });
    const bia = await consentsOf(t, 'bia@imp.example');
    expect(state(bia, 'whatsapp')).toBe('withdrawn');
    expect(state(bia, 'email')).toBe('none');
    expect(state(await consentsOf(t, 'caio@imp.example'), 'email')).toBe('granted');
  });

  test('a cell that is no answer fails its row with the column named; a dry run records nothing', async () => {
    const t = await newTenant();
    const csv = 'name,email,consent_sms\nDan,dan@imp.example,talvez\nEva,eva@imp.example,sim';
    const dry = await csvRequest(t, '/contacts/import?dryRun=true', csv);
    expect(dry.body).toMatchObject({ created: 1, failed: 1 });
    expect(dry.body.errors[0]).toMatchObject({ row: 1, field: 'consent.sms.marketing' });
    expect((await t.api.get('/contacts')).body.data).toEqual([]);
    const real = await csvRequest(t, '/contacts/import', csv);
    expect(real.body).toMatchObject({ created: 1, failed: 1 });
    expect(state(await consentsOf(t, 'eva@imp.example'), 'sms')).toBe('granted');
  });

  test('the background import records them too', async () => {
    const t = await newTenant();
    const started = await csvRequest(
      t,
      '/contacts/imports',
      'name,email,optin_email\nFia,fia@imp.example,true',
    );
    expect(started.status).toBe(202);
    const [row] = await queryRows<{ organization_id: number; id: number }>(
      ctx.db.system,
      sql`select organization_id, id from import_jobs where document_id = ${started.body.documentId}`,
    );
    const jobs = { send: async () => 'continuation' };
    const outcome = await runContactImport(
      { db: ctx.db, config: ctx.config, jobs: jobs as never },
      { orgId: Number(row.organization_id), importId: Number(row.id) },
    );
    expect(outcome).toBe('done');
    const fia = await consentsOf(t, 'fia@imp.example');
    expect(state(fia, 'email')).toBe('granted');
    expect(fia.history[0].source).toBe('import');
  });
});
