import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant, type TestContext } from '../../helpers/app.js';
import { createPerson, person, runRequest, unzip } from './helpers.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await getApp();
});

describe('privacy requests across organizations', () => {
  test('another organization cannot export, erase, read the requests or use a link with its own id', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const p = person();
    const contact = await createPerson(a.api, p);
    const exp = await a.api.post(`/contacts/${contact}/data-export`);
    expect(exp.status).toBe(202);

    // B: every route answers the same 404 as for a contact that does not exist.
    const notFound = (await b.api.post('/contacts/abcdefghijklmnopqrstuvwx/data-export')).body;
    const bExport = await b.api.post(`/contacts/${contact}/data-export`);
    expect(bExport.status).toBe(404);
    expect(bExport.body).toEqual(notFound);
    const bErase = await b.api.post(`/contacts/${contact}/erase`, { confirm: contact });
    expect(bErase.status).toBe(404);
    expect(bErase.body.error.message).toBe('Contact not found');
    expect((await b.api.get(`/privacy-requests/${exp.body.documentId}`)).status).toBe(404);

    // A's link is the credential, whoever holds it; a token of B's own export does not reach A's.
    await runRequest(a, exp.body.documentId);
    const downloadUrl: string = exp.body.downloadUrl;
    const bContact = await createPerson(b.api, person());
    const bExp = (await b.api.post(`/contacts/${bContact}/data-export`)).body;
    await runRequest(b, bExp.documentId);
    const bZip = unzip((await ctx.app.inject({ method: 'GET', url: bExp.downloadUrl })).rawPayload);
    expect(bZip.json('contact.json').map((c: { document_id: string }) => c.document_id)).toEqual([bContact]);
    // A's link with its last character changed (to another one: a token already ending in '0' stayed A's link,
    // and the check failed once in about 62 runs: the token is base62).
    const changed = downloadUrl.endsWith('0') ? '1' : '0';
    const res = await ctx.app.inject({ method: 'GET', url: `${downloadUrl.slice(0, -1)}${changed}` });
    expect(res.statusCode).toBe(404);

    // Nothing of B's attempts was recorded; A's contact is intact and its export still downloads once.
    const [{ n }] = await queryRows<{ n: number }>(
      ctx.db.system,
      sql`select count(*)::int as n from privacy_requests r join organizations o on o.id = r.organization_id
          where o.slug = ${b.slug}`,
    );
    expect(n).toBe(1); // B's own export only
    expect((await a.api.get(`/contacts/${contact}`)).body.name).toBe(p.name);
    expect((await ctx.app.inject({ method: 'GET', url: downloadUrl })).statusCode).toBe(200);
  });

  test("an erasure touches only its organization: another's contact with the same data is untouched", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const p = person();
    const inA = await createPerson(a.api, p);
    const inB = await createPerson(b.api, p);
    await b.api.post(`/contacts/${inB}/notes`, { data: { description: `Note about ${p.name}` } });
    await b.api.post('/suppressions', { data: { address: p.email } });
    const res = await a.api.post(`/contacts/${inA}/erase`, { confirm: inA });
    await runRequest(a, res.body.documentId);
    expect((await a.api.get(`/contacts/${inA}`)).body.email).toBeNull();
    expect((await b.api.get(`/contacts/${inB}`)).body).toMatchObject({ name: p.name, email: p.email });
    const notes = (await b.api.get(`/contacts/${inB}/activities`)).body.data;
    expect(notes.map((x: any) => x.description)).toContain(`Note about ${p.name}`);
    expect((await b.api.get('/suppressions')).body.data.map((s: any) => s.address)).toEqual([p.email]);
  });
});
