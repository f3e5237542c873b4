import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant, type Tenant } from '../../helpers/app.js';

/**
 * Recurrence through the API (docs/tasks.md, Recurrence): occurrences are computed in the organization's time
 * zone from the series' first due date and the occurrence number, so they neither drift nor move day.
 */

const orgOf = async (t: Tenant) =>
  (await t.userApi.get('/organizations')).body.data.find((o: { slug: string }) => o.slug === t.slug);

/** Creates a recurring task and completes `steps` occurrences in turn; returns every due date of the series. */
async function series(t: Tenant, data: Record<string, unknown>, steps: number) {
  const name = `Series ${Math.random().toString(36).slice(2)}`;
  const created = await t.api.post('/tasks', { data: { name, ...data } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  let current = created.body;
  for (let i = 0; i < steps; i++) {
    const done = await t.api.put(`/tasks/${current.documentId}/status`, {
      data: { taskStatus: 'completed' },
    });
    expect(done.status).toBe(200);
    const list = await t.api.get('/tasks', { 'filters[name][$eq]': name, sort: 'dueDate:asc' });
    current = list.body.data.find((x: { occurrenceNumber: number }) => x.occurrenceNumber === i + 2);
    expect(current.occurrenceNumber).toBe(i + 2);
  }
  const list = await t.api.get('/tasks', { 'filters[name][$eq]': name, sort: 'dueDate:asc' });
  return list.body.data.map((x: { dueDate: string }) => x.dueDate);
}

let t: Tenant;
beforeAll(async () => {
  await getApp();
  t = await newTenant();
});

describe('recurrence in the organization time zone', () => {
  test('organizations default to America/Sao_Paulo', async () => {
    expect((await orgOf(t)).timeZone).toBe('America/Sao_Paulo');
  });

  test('a monthly series keeps the 31st: 31 Jan → 28 Feb → 31 Mar → 30 Apr → 31 May (no drift)', async () => {
    // 12:00 in São Paulo (UTC-3).
    expect(await series(t, { recurrence: 'monthly', dueDate: '2027-01-31T15:00:00Z' }, 4)).toEqual([
      '2027-01-31T15:00:00.000Z',
      '2027-02-28T15:00:00.000Z',
      '2027-03-31T15:00:00.000Z',
      '2027-04-30T15:00:00.000Z',
      '2027-05-31T15:00:00.000Z',
    ]);
    // Leap year: the 29th of February.
    expect(await series(t, { recurrence: 'monthly', dueDate: '2028-01-31T15:00:00Z' }, 2)).toEqual([
      '2028-01-31T15:00:00.000Z',
      '2028-02-29T15:00:00.000Z',
      '2028-03-31T15:00:00.000Z',
    ]);
  });

  test('every other month from the 30th: 30 Dec → 28 Feb → 30 Apr', async () => {
    expect(
      await series(t, { recurrence: 'monthly', recurrenceInterval: 2, dueDate: '2026-12-30T15:00:00Z' }, 2),
    ).toEqual(['2026-12-30T15:00:00.000Z', '2027-02-28T15:00:00.000Z', '2027-04-30T15:00:00.000Z']);
  });

  test('a 22:00 São Paulo task stays at 22:00 local (the next UTC day)', async () => {
    // 22:00 on 31 Dec in São Paulo is 01:00 UTC on 1 Jan.
    expect(await series(t, { recurrence: 'daily', dueDate: '2027-01-01T01:00:00Z' }, 2)).toEqual([
      '2027-01-01T01:00:00.000Z',
      '2027-01-02T01:00:00.000Z',
      '2027-01-03T01:00:00.000Z',
    ]);
    // Monthly on 30 Apr 22:00 local: 30 May 22:00 local (31 May 01:00 UTC), not 1 Jun UTC → 31 May local.
    expect(await series(t, { recurrence: 'monthly', dueDate: '2027-05-01T01:00:00Z' }, 2)).toEqual([
      '2027-05-01T01:00:00.000Z',
      '2027-05-31T01:00:00.000Z',
      '2027-07-01T01:00:00.000Z',
    ]);
  });

  test('an organization in Europe/Lisbon keeps local time across both DST changes', async () => {
    const lisbon = await newTenant();
    const org = await orgOf(lisbon);
    const put = await lisbon.userApi.put(`/organizations/${org.documentId}`, {
      data: { timeZone: 'Europe/Lisbon' },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    // 09:00 WET (UTC+0) on 27 Mar 2027; summer time starts on 28 Mar: 09:00 WEST is 08:00 UTC.
    expect(await series(lisbon, { recurrence: 'daily', dueDate: '2027-03-27T09:00:00Z' }, 2)).toEqual([
      '2027-03-27T09:00:00.000Z',
      '2027-03-28T08:00:00.000Z',
      '2027-03-29T08:00:00.000Z',
    ]);
    // 09:00 WEST on 24 Oct 2027 (08:00 UTC); winter time from 31 Oct: 09:00 WET is 09:00 UTC.
    expect(await series(lisbon, { recurrence: 'weekly', dueDate: '2027-10-24T08:00:00Z' }, 2)).toEqual([
      '2027-10-24T08:00:00.000Z',
      '2027-10-31T09:00:00.000Z',
      '2027-11-07T09:00:00.000Z',
    ]);
    // The same instant in a São Paulo organization (no DST) keeps its UTC time.
    expect(await series(t, { recurrence: 'daily', dueDate: '2027-03-27T09:00:00Z' }, 1)).toEqual([
      '2027-03-27T09:00:00.000Z',
      '2027-03-28T09:00:00.000Z',
    ]);
  });

  test('an occurrence moved by hand does not move the series', async () => {
    const name = 'Moved by hand';
    const first = await t.api.post('/tasks', {
      data: { name, recurrence: 'monthly', dueDate: '2027-01-31T15:00:00Z' },
    });
    await t.api.put(`/tasks/${first.body.documentId}/status`, { data: { taskStatus: 'completed' } });
    const second = (await t.api.get('/tasks', { 'filters[name][$eq]': name, sort: 'dueDate:asc' })).body
      .data[1];
    await t.api.put(`/tasks/${second.documentId}`, {
      data: { dueDate: '2027-03-02T15:00:00Z', taskStatus: 'completed' },
    });
    const all = (await t.api.get('/tasks', { 'filters[name][$eq]': name, sort: 'dueDate:asc' })).body.data;
    expect(all.map((x: { dueDate: string }) => x.dueDate)).toEqual([
      '2027-01-31T15:00:00.000Z',
      '2027-03-02T15:00:00.000Z',
      '2027-03-31T15:00:00.000Z',
    ]);
  });
});
