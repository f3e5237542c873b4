import { sql } from 'drizzle-orm';
import { beforeAll, expect, test } from 'vitest';
import { expireQuotes } from '../../../src/modules/quotes/expiry.js';
import { getApp, newTenant, type Tenant } from '../../helpers/app.js';

/**
 * Sent quotes past their validUntil become expired (docs/products-quotes.md, "Expiry"). The pass runs here with a
 * clock of its own instead of waiting for its ten minutes: 2030-03-10 02:00 UTC is still the 9th in São Paulo and
 * already the 10th in Lisbon.
 */
const NOW = new Date('2030-03-10T02:00:00Z');

beforeAll(async () => {
  await getApp();
});

async function tenantIn(timeZone: string) {
  const t = await newTenant();
  const orgs = await t.userApi.get('/organizations');
  const org = orgs.body.data.find((o: { slug: string }) => o.slug === t.slug);
  const res = await t.userApi.put(`/organizations/${org.documentId}`, { data: { timeZone } });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return t;
}

async function quote(t: Tenant, status: string, validUntil: string | null) {
  const res = await t.api.post('/quotes', { data: { title: `${status} ${validUntil}`, status, validUntil } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.documentId as string;
}

const statusOf = async (t: Tenant, id: string) => (await t.api.get(`/quotes/${id}`)).body.status;

test('a sent quote expires the day after its validUntil, in its organization’s time zone; other statuses stay', async () => {
  const sp = await tenantIn('America/Sao_Paulo');
  const lisbon = await tenantIn('Europe/Lisbon');
  const spLastDay = await quote(sp, 'sent', '2030-03-09');
  const spPast = await quote(sp, 'sent', '2030-03-08');
  const spDraft = await quote(sp, 'draft', '2030-03-01');
  const spAccepted = await quote(sp, 'accepted', '2030-03-01');
  const spUndated = await quote(sp, 'sent', null);
  const lisbonLastDay = await quote(lisbon, 'sent', '2030-03-09');

  expect(await expireQuotes((await getApp()).db, NOW)).toBeGreaterThanOrEqual(2);
  // The 9th is still today in São Paulo: valid through its last day. In Lisbon the 10th has begun.
  expect(await statusOf(sp, spLastDay)).toBe('sent');
  expect(await statusOf(sp, spPast)).toBe('expired');
  expect(await statusOf(lisbon, lisbonLastDay)).toBe('expired');
  for (const id of [spDraft, spAccepted]) expect(await statusOf(sp, id)).not.toBe('expired');
  expect(await statusOf(sp, spUndated)).toBe('sent');

  // Recorded in each organization's own audit log, with no actor; nothing of one in the other's.
  const log = await sp.api.get('/audit-logs', { action: 'quote.expired' });
  expect(log.status, JSON.stringify(log.body)).toBe(200);
  expect(log.body.data.map((e: { target: string }) => e.target)).toEqual([spPast]);
  const theirs = await lisbon.api.get('/audit-logs', { action: 'quote.expired' });
  expect(theirs.body.data.map((e: { target: string }) => e.target)).toEqual([lisbonLastDay]);

  // A second pass finds nothing more; a quote a person sends again with a past date expires again.
  await expireQuotes((await getApp()).db, NOW);
  expect(await statusOf(sp, spLastDay)).toBe('sent');
  expect((await sp.api.put(`/quotes/${spPast}`, { data: { status: 'sent' } })).status).toBe(200);
  expect(await statusOf(sp, spPast)).toBe('sent');
  await expireQuotes((await getApp()).db, NOW);
  expect(await statusOf(sp, spPast)).toBe('expired');
});

test('a time zone the database does not know counts as UTC instead of failing the pass for everyone', async () => {
  const { db } = await getApp();
  const odd = await tenantIn('America/Sao_Paulo');
  const other = await tenantIn('America/Sao_Paulo');
  const oddQuote = await quote(odd, 'sent', '2030-03-09');
  const otherQuote = await quote(other, 'sent', '2030-03-08');
  // As if Node's ICU knew a zone this server's tzdata does not (set past the API, which checks it with ICU).
  await db.system.execute(
    sql`update organizations set time_zone = 'Mars/Olympus_Mons' where slug = ${odd.slug}`,
  );
  await expireQuotes(db, NOW);
  // 02:00 UTC on the 10th: the 9th is over in UTC.
  expect(await statusOf(odd, oddQuote)).toBe('expired');
  expect(await statusOf(other, otherQuote)).toBe('expired');
});
