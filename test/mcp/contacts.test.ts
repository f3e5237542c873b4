import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connect,
  fails,
  invalid,
  mcpEnv,
  newOrg,
  type Org,
  read,
  type Service,
  startService,
  type Transport,
  write,
} from './harness.js';

let service: Service;

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service?.close();
});

const missing = 'zzzzzzzzzzzzzzzzzzzzzzzz';

describe.each<Transport>(['stdio', 'http'])('contact and segment tools over %s', (transport) => {
  let org: Org;
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    org = await newOrg(service);
    ({ client, close } = await connect(transport, mcpEnv(service, org)));
  });
  afterAll(async () => {
    await close?.();
  });

  it('contacts: create, search, get with timeline, update, add a note', async () => {
    const ana = await write(client, 'crm.create_contact', {
      name: 'Ana Souza',
      email: 'Ana@Example.com',
      city: 'São Paulo',
      customFields: { tier: 'gold' },
    });
    expect(ana).toMatchObject({ name: 'Ana Souza', email: 'ana@example.com', contact_type: 'pessoa' });
    await write(client, 'crm.create_contact', {
      name: 'Bruno Lima',
      city: 'Recife',
      contact_type: 'empresa',
    });

    const found = await read(client, 'crm.search_contacts', { query: 'souza' });
    expect(found.data.map((c: any) => c.documentId)).toEqual([ana.documentId]);
    const companies = await read(client, 'crm.search_contacts', { contact_type: 'empresa' });
    expect(companies.data.map((c: any) => c.name)).toEqual(['Bruno Lima']);
    const byEmail = await read(client, 'crm.search_contacts', { email: 'ANA@example.com' });
    expect(byEmail.meta.pagination.total).toBe(1);

    const updated = await write(client, 'crm.update_contact', {
      contactId: ana.documentId,
      phone: '+5511987654321',
    });
    expect(updated).toMatchObject({ phone: '+5511987654321', city: 'São Paulo' });
    const note = await write(client, 'crm.add_contact_note', {
      contactId: ana.documentId,
      note: 'Called about renewal',
    });
    expect(note).toMatchObject({ activityType: 'note_added', description: 'Called about renewal' });

    const got = await read(client, 'crm.get_contact', { contactId: ana.documentId });
    expect(got).toMatchObject({ documentId: ana.documentId, customFields: { tier: 'gold' } });
    expect(got.recentActivities.map((a: any) => a.activityType)).toContain('note_added');

    const missing = 'zzzzzzzzzzzzzzzzzzzzzzzz';
    const batch = await read(client, 'crm.get_contacts', { contactIds: [ana.documentId, missing] });
    expect(batch.data.map((c: any) => c.documentId)).toEqual([ana.documentId]);
    expect(batch.missing).toEqual([missing]);
    expect(got.link).toBe(`${service.url}/app/contacts/${ana.documentId}`);
  });

  it('contacts: errors carry status, name, message and the field at fault', async () => {
    const bad = await fails(
      client,
      'crm.create_contact',
      { name: 'X', email: 'not-an-email' },
      400,
      'ValidationError',
    );
    expect(JSON.stringify(bad.details)).toContain('email');
    await write(client, 'crm.create_contact', { name: 'Tax', cpf: '529.982.247-25' });
    const dup = await fails(client, 'crm.create_contact', { name: 'Tax 2', cpf: '52998224725' }, 400);
    expect(JSON.stringify(dup.details)).toContain('cpf');
    await fails(client, 'crm.get_contact', { contactId: missing }, 404, 'NotFoundError');
    await fails(client, 'crm.update_contact', { contactId: missing, city: 'x' }, 404, 'NotFoundError');
    await fails(client, 'crm.add_contact_note', { contactId: missing, note: 'x' }, 404, 'NotFoundError');
    await fails(client, 'crm.search_contacts', { sort: 'secret:asc' }, 400, 'ValidationError');
    await invalid(client, 'crm.create_contact', { email: 'a@b.c' }, 'name');
  });

  it('segments: filter options → preview → create, then get, list, count, resolve, update, delete', async () => {
    await write(client, 'crm.create_contact', {
      name: 'Seg One',
      city: 'Curitiba',
      customFields: { tier: 'vip' },
    });
    await write(client, 'crm.create_contact', { name: 'Seg Two', city: 'Curitiba' });

    const options = await read(client, 'crm.get_segment_filter_options');
    expect(options.fields.map((f: any) => f.field)).toContain('city');
    expect(options.customFields.keys.map((k: any) => k.slug)).toContain('tier');

    const conditions = [{ field: 'city', op: 'eq', value: 'curitiba' }];
    const preview = await read(client, 'crm.preview_segment', { conditions });
    expect(preview.count).toBe(2);

    const seg = await write(client, 'crm.create_segment', { name: 'Curitiba', conditions });
    expect(seg).toMatchObject({ name: 'Curitiba', contactCount: 2, filters: { logic: 'AND' } });
    const vip = await write(client, 'crm.create_segment', {
      name: 'Curitiba non-VIP',
      conditions,
      excludedSegments: [],
      requiredSegments: [seg.documentId],
    });
    expect(vip.requiredSegments).toEqual([seg.documentId]);

    expect(await read(client, 'crm.get_segment', { segmentId: seg.documentId })).toMatchObject({
      name: 'Curitiba',
    });
    const list = await read(client, 'crm.list_segments', { search: 'curitiba' });
    expect(list.meta.pagination.total).toBe(2);
    expect(await read(client, 'crm.count_segment', { segmentId: seg.documentId })).toEqual({
      documentId: seg.documentId,
      count: 2,
    });
    const members = await read(client, 'crm.resolve_segment', {
      segmentId: seg.documentId,
      sort: 'name:asc',
    });
    expect(members.data.map((c: any) => c.name)).toEqual(['Seg One', 'Seg Two']);

    const narrowed = await write(client, 'crm.update_segment', {
      segmentId: seg.documentId,
      conditions: [...conditions, { kind: 'custom', slug: 'tier', op: 'eq', value: 'vip' }],
    });
    expect(narrowed.contactCount).toBe(1);

    const linked = await fails(client, 'crm.delete_segment', { segmentId: seg.documentId }, 422);
    expect(JSON.stringify(linked.details)).toContain(vip.documentId);
    await write(client, 'crm.delete_segment', { segmentId: vip.documentId });
    expect(await write(client, 'crm.delete_segment', { segmentId: seg.documentId })).toEqual({
      documentId: seg.documentId,
      deleted: true,
    });
  });

  it('segments: errors name the condition at fault', async () => {
    const bad = await fails(
      client,
      'crm.create_segment',
      { name: 'Bad', conditions: [{ field: 'shoe_size', op: 'eq', value: '42' }] },
      400,
      'ValidationError',
    );
    expect(JSON.stringify(bad.details)).toContain('conditions');
    const badPreview = await fails(
      client,
      'crm.preview_segment',
      { conditions: [{ field: 'city', op: 'contains' }] },
      400,
      'ValidationError',
    );
    expect(JSON.stringify(badPreview.details)).toContain('value');
    await fails(client, 'crm.get_segment', { segmentId: missing }, 404, 'NotFoundError');
    await fails(client, 'crm.update_segment', { segmentId: missing, name: 'x' }, 404, 'NotFoundError');
    await fails(client, 'crm.delete_segment', { segmentId: missing }, 404, 'NotFoundError');
    await fails(client, 'crm.count_segment', { segmentId: missing }, 404, 'NotFoundError');
    await fails(client, 'crm.resolve_segment', { segmentId: missing }, 404, 'NotFoundError');
    await fails(client, 'crm.list_segments', { sort: 'secret:asc' }, 400, 'ValidationError');
    await invalid(client, 'crm.create_segment', { name: 'No conditions' }, 'conditions');
    // Filter options take no input: their error is the service refusing the tenant.
    const outsider = await connect(transport, mcpEnv(service, { slug: 'not-my-org', token: org.token }));
    try {
      await fails(outsider.client, 'crm.get_segment_filter_options', {}, 403, 'ForbiddenError');
    } finally {
      await outsider.close();
    }
  });
});
