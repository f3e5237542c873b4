import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { postCsv } from './csv.js';

/** The outbox rows of an organization's contacts (DESIGN.md §11): what webhooks and automations receive. */
async function contactEvents(t: Tenant, after = 0) {
  const { db } = await getApp();
  return queryRows<{ id: number; type: string; subject: string; data: any }>(
    db.system,
    sql`select e.id, e.type, e.subject, e.data from domain_events e join organizations o on o.id = e.organization_id
        where o.slug = ${t.slug} and e.type like 'contact.%' and e.id > ${after} order by e.id`,
  );
}
const lastId = async (t: Tenant) => (await contactEvents(t)).reduce((m, e) => Math.max(m, Number(e.id)), 0);

beforeAll(async () => {
  await getApp();
});

describe('per-record events of mass writes', () => {
  test('an import records contact.created (the contact as GET shows it) and contact.updated (changed fields only)', async () => {
    const t = await newTenant();
    const same = (
      await t.api.post('/contacts', { data: { name: 'Same', email: 'same@x.com', city: 'Natal' } })
    ).body;
    const moved = (
      await t.api.post('/contacts', { data: { name: 'Moved', email: 'moved@x.com', city: 'Natal' } })
    ).body;
    const before = await lastId(t);
    const csv = [
      'name,email,city',
      'Ana,ana@x.com,Recife',
      'Bia,bia@x.com,',
      'Moved,moved@x.com,Recife',
      'Same,same@x.com,Natal',
    ].join('\n');
    // A dry run writes nothing, events included.
    expect((await postCsv(t, csv, '?dryRun=true')).body).toMatchObject({ created: 2, updated: 2 });
    expect(await contactEvents(t, before)).toEqual([]);
    const res = await postCsv(t, csv);
    expect(res.body).toMatchObject({ created: 2, updated: 2, failed: 0 });
    const events = await contactEvents(t, before);
    const created = events.filter((e) => e.type === 'contact.created');
    expect(created.map((e) => e.data.contact.name).sort()).toEqual(['Ana', 'Bia']);
    for (const e of created) {
      expect(e.subject).toBe(`contact:${e.data.contact.documentId}`);
      expect(e.data.contact).toEqual((await t.api.get(`/contacts/${e.data.contact.documentId}`)).body);
    }
    // The unchanged contact gets no event, like a PUT that changes nothing.
    expect(events.filter((e) => e.type === 'contact.updated')).toEqual([
      {
        id: expect.anything(),
        type: 'contact.updated',
        subject: `contact:${moved.documentId}`,
        data: {
          contact: { documentId: moved.documentId, name: 'Moved', email: 'moved@x.com', phone: null },
          changes: ['city'],
        },
      },
    ]);
    expect(events.some((e) => e.subject === `contact:${same.documentId}`)).toBe(false);
    // An owner set by import is named like a single update names it.
    const owner = await addMember(t, 'member');
    const after = await lastId(t);
    await postCsv(t, `email,owner\nmoved@x.com,${owner.user.email}`);
    const owned = await contactEvents(t, after);
    expect(owned.map((e) => [e.type, e.data.changes])).toEqual([['contact.updated', ['ownerId']]]);
  });

  test('a bulk update records contact.updated for each contact it really changed, in this organization only', async () => {
    const t = await newTenant();
    const other = await newTenant();
    const ids: string[] = [];
    for (const city of ['Recife', 'Recife', 'Olinda'])
      ids.push((await t.api.post('/contacts', { data: { name: `C ${city}`, city } })).body.documentId);
    await other.api.post('/contacts', { data: { name: 'Elsewhere', city: 'Recife' } });
    const before = await lastId(t);
    const otherBefore = await lastId(other);
    const res = await t.api.post('/contacts/bulk-update', { all: true, data: { city: 'Olinda' } });
    expect(res.body).toMatchObject({ matched: 3, updated: 3 });
    const events = await contactEvents(t, before);
    expect(events.map((e) => [e.type, e.subject, e.data.changes])).toEqual([
      ['contact.updated', `contact:${ids[0]}`, ['city']],
      ['contact.updated', `contact:${ids[1]}`, ['city']],
    ]);
    expect(events[0].data.contact).toEqual({
      documentId: ids[0],
      name: 'C Recife',
      email: null,
      phone: null,
    });
    expect(await contactEvents(other, otherBefore)).toEqual([]);
    // Several fields at once: each event names those that moved for that contact.
    const member = await addMember(t, 'member');
    const next = await lastId(t);
    await t.api.post('/contacts/bulk-update', {
      ids: [ids[0], ids[2]],
      data: { city: 'Olinda', owner: member.membershipId, customFields: { tier: 'gold' } },
    });
    const changed = await contactEvents(t, next);
    expect(changed.map((e) => [e.subject, e.data.changes])).toEqual([
      [`contact:${ids[0]}`, ['customFields', 'ownerId']],
      [`contact:${ids[2]}`, ['customFields', 'ownerId']],
    ]);
    // Nothing moved: no event.
    const last = await lastId(t);
    await t.api.post('/contacts/bulk-update', { ids: [ids[0]], data: { city: 'Olinda' } });
    expect(await contactEvents(t, last)).toEqual([]);
  });
});
