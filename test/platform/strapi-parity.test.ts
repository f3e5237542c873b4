import { strapi } from '@strapi/client';
import qs from 'qs';
import { describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { getApp, newTenant, type Tenant, testConfig, unique } from '../helpers/app.js';

/** Strapi v5 REST conventions a Strapi client relies on (docs/strapi-compatibility.md), through HTTP. */

function list(t: Tenant, params: Record<string, unknown>) {
  return t.api.request({ method: 'GET', url: `/api/contacts?${qs.stringify(params)}` });
}

/** A tenant with five contacts named `<prefix>-a` … `<prefix>-e`. */
async function tenantWithContacts() {
  const t = await newTenant();
  const prefix = unique('c');
  for (const s of ['a', 'b', 'c', 'd', 'e']) {
    const res = await t.api.post('/contacts', { data: { name: `${prefix}-${s}`, email: `${s}@x.example` } });
    expect(res.status).toBe(201);
  }
  return { t, prefix };
}

const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((c) => c.name);

describe('Strapi parity', () => {
  test('offset pagination: start/limit, its meta, and the refusals', async () => {
    const { t, prefix } = await tenantWithContacts();
    const res = await list(t, { sort: 'name:asc', pagination: { start: 1, limit: 2 } });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual([`${prefix}-b`, `${prefix}-c`]);
    expect(res.body.meta.pagination).toEqual({ start: 1, limit: 2, total: 5 });
    // start alone: limit defaults to 25; past the end is an empty page, not an error.
    const tail = await list(t, { sort: 'name:asc', pagination: { start: 4 } });
    expect(names(tail)).toEqual([`${prefix}-e`]);
    expect(tail.body.meta.pagination).toEqual({ start: 4, limit: 25, total: 5 });
    expect((await list(t, { pagination: { start: 9 } })).body.data).toEqual([]);
    for (const bad of [
      { page: 1, start: 0 },
      { pageSize: 10, limit: 10 },
      { limit: 101 },
      { limit: -1 },
      { limit: 0 },
      { start: -1 },
      { start: 'x' },
    ]) {
      const r = await list(t, { pagination: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.name).toBe('ValidationError');
    }
    // The same form on a pagination-only list (memberships of the organization, notifications).
    const members = await t.api.request({
      method: 'GET',
      url: '/api/memberships?pagination[start]=0&pagination[limit]=1',
    });
    expect(members.body.meta.pagination).toEqual({ start: 0, limit: 1, total: 1 });
    const notes = await t.api.request({ method: 'GET', url: '/api/notifications?pagination[limit]=5' });
    expect(notes.status).toBe(200);
    expect(notes.body.meta.pagination).toEqual({ start: 0, limit: 5, total: 0 });
  });

  test('pagination[withCount]=false: no total, no pageCount, in both forms', async () => {
    const { t, prefix } = await tenantWithContacts();
    const page = await list(t, { sort: 'name:desc', pagination: { page: 2, pageSize: 2, withCount: false } });
    expect(page.status).toBe(200);
    expect(names(page)).toEqual([`${prefix}-c`, `${prefix}-b`]);
    expect(page.body.meta.pagination).toEqual({ page: 2, pageSize: 2 });
    const offset = await list(t, { pagination: { start: 0, limit: 3, withCount: 'false' } });
    expect(offset.body.data).toHaveLength(3);
    expect(offset.body.meta.pagination).toEqual({ start: 0, limit: 3 });
    const counted = await list(t, { pagination: { pageSize: 2, withCount: true } });
    expect(counted.body.meta.pagination).toEqual({ page: 1, pageSize: 2, pageCount: 3, total: 5 });
    expect((await list(t, { pagination: { withCount: 'maybe' } })).status).toBe(400);
  });

  test('fields: only the chosen attributes plus documentId; unknown or private → 400', async () => {
    const { t } = await tenantWithContacts();
    const arrayForm = await list(t, { fields: ['name', 'email'], populate: '' });
    expect(arrayForm.status).toBe(200);
    expect(arrayForm.body.data).toHaveLength(5);
    for (const c of arrayForm.body.data)
      expect(Object.keys(c).sort()).toEqual(['documentId', 'email', 'name']);
    const stringForm = await t.api.request({
      method: 'GET',
      url: '/api/contacts?fields=name,email&populate[0]=owner',
    });
    expect(Object.keys(stringForm.body.data[0]).sort()).toEqual(['documentId', 'email', 'name', 'owner']);
    // Without populate, the default relations still come with the chosen attributes (Strapi: fields never
    // removes a populated relation).
    const withDefault = await list(t, { fields: ['name'] });
    expect(Object.keys(withDefault.body.data[0]).sort()).toEqual(['documentId', 'name', 'owner', 'team']);
    expect(withDefault.body.meta.pagination.total).toBe(5);
    // A custom-field map is an attribute too; `*` is everything.
    const custom = await list(t, { fields: ['customFields'], populate: '' });
    expect(Object.keys(custom.body.data[0]).sort()).toEqual(['customFields', 'documentId']);
    const all = await list(t, { fields: '*' });
    expect(Object.keys(all.body.data[0])).toContain('updatedAt');
    for (const bad of ['nope', 'organizationId', 'searchText', 'ownerId', 'id', 'constructor']) {
      const r = await list(t, { fields: [bad] });
      expect(r.status, bad).toBe(400);
      expect(r.body.error.name).toBe('ValidationError');
      expect(r.body.error.details.errors[0].path).toEqual(['fields', 0]);
    }
  });

  test('populate: default is the spec shape; *, a list, or an unknown name → 400', async () => {
    const { t } = await tenantWithContacts();
    const byDefault = await list(t, {});
    expect(byDefault.body.data[0]).toHaveProperty('owner');
    expect(byDefault.body.data[0]).toHaveProperty('team');
    const onlyTeam = await list(t, { populate: ['team'] });
    expect(onlyTeam.body.data[0]).not.toHaveProperty('owner');
    expect(onlyTeam.body.data[0]).toHaveProperty('team');
    expect(onlyTeam.body.data[0]).toHaveProperty('email');
    const objectForm = await t.api.request({ method: 'GET', url: '/api/contacts?populate[owner]=true' });
    expect(objectForm.body.data[0]).toHaveProperty('owner');
    expect(objectForm.body.data[0]).not.toHaveProperty('team');
    const none = await list(t, { populate: '' });
    expect(none.body.data[0]).not.toHaveProperty('owner');
    expect(none.body.data[0]).not.toHaveProperty('team');
    const star = await list(t, { populate: '*' });
    expect(Object.keys(star.body.data[0])).toEqual(expect.arrayContaining(['owner', 'team']));
    const bad = await list(t, { populate: ['secrets'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors[0].message).toBe('allowed: owner, team');
    // A relation of another list (tasks) is narrowed the same way.
    const tasks = await t.api.request({ method: 'GET', url: '/api/tasks?populate[0]=nope' });
    expect(tasks.status).toBe(400);
  });

  test('sort: the Strapi object form sort[field]=dir and sort[0][field]=dir', async () => {
    const { t, prefix } = await tenantWithContacts();
    const desc = await t.api.request({
      method: 'GET',
      url: '/api/contacts?sort[name]=desc&pagination[limit]=2',
    });
    expect(names(desc)).toEqual([`${prefix}-e`, `${prefix}-d`]);
    const listed = await t.api.request({
      method: 'GET',
      url: '/api/contacts?sort[0][name]=asc&pagination[limit]=2',
    });
    expect(names(listed)).toEqual([`${prefix}-a`, `${prefix}-b`]);
    expect((await t.api.request({ method: 'GET', url: '/api/contacts?sort[name]=sideways' })).status).toBe(
      400,
    );
  });

  test('an empty body with Content-Type: application/json is no body', async () => {
    const { t } = await tenantWithContacts();
    const [first] = (await list(t, {})).body.data;
    const json = { 'content-type': 'application/json' };
    const del = await t.api.request({
      method: 'DELETE',
      url: `/api/contacts/${first.documentId}`,
      headers: json,
      payload: '',
    });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ documentId: first.documentId, deleted: true });
    // A bodyless POST reaches its handler (404 for an unknown notification, not a body error).
    const read = await t.api.request({
      method: 'POST',
      url: '/api/notifications/nope/read',
      headers: json,
      payload: '',
    });
    expect(read.status).toBe(404);
    // A route that needs a body still refuses the empty one, in the envelope.
    const create = await t.api.request({ method: 'POST', url: '/api/contacts', headers: json, payload: '' });
    expect(create.status).toBe(400);
    expect(create.body.error.name).toBe('ValidationError');
    // Non-empty bodies still go through the JSON parser with its refusals.
    const broken = await t.api.request({
      method: 'POST',
      url: '/api/contacts',
      headers: json,
      payload: '{"data":',
    });
    expect(broken.status).toBe(400);
    const poisoned = await t.api.request({
      method: 'POST',
      url: '/api/contacts',
      headers: json,
      payload: '{"data":{"name":"x","__proto__":{"admin":true}}}',
    });
    expect(poisoned.status).toBe(400);
  });

  test('Strapi parameters without a counterpart here are a 400, never ignored', async () => {
    const { t } = await tenantWithContacts();
    const [first] = (await list(t, {})).body.data;
    for (const url of [
      '/api/contacts?locale=fr',
      '/api/contacts?status=draft',
      '/api/contacts?publicationState=live',
      '/api/contacts?populate[owner][fields][0]=documentId',
      '/api/contacts?sort=owner.name',
      '/api/contacts?filters[name][$regex]=x',
      `/api/contacts/${first.documentId}?fields[0]=name`,
    ]) {
      const r = await t.api.request({ method: 'GET', url });
      expect(r.status, url).toBe(400);
      expect(r.body.error.name, url).toBe('ValidationError');
    }
  });

  test('tenancy: another organization neither sees nor counts the rows, whatever the form', async () => {
    const { t, prefix } = await tenantWithContacts();
    const other = await newTenant();
    const filters = { name: { $startsWith: prefix } };
    for (const params of [
      { filters, pagination: { start: 0, limit: 10 } },
      { filters, pagination: { withCount: false } },
      { filters, fields: ['name'] },
      { filters, populate: '*' },
    ]) {
      const theirs = await list(other, params);
      expect(theirs.status).toBe(200);
      expect(theirs.body.data).toEqual([]);
      if ('total' in theirs.body.meta.pagination) expect(theirs.body.meta.pagination.total).toBe(0);
    }
    expect((await list(t, { filters, fields: ['name'] })).body.data).toHaveLength(5);
  });

  test('the official @strapi/client against a listening server: find, findOne, create, update, delete', async () => {
    const { db } = await getApp();
    const app = await buildApp({ config: testConfig(), db });
    const t = await newTenant(app);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = new URL(address).port;
      const client = strapi({
        baseURL: `http://127.0.0.1:${port}/api`,
        headers: { Authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug },
      });
      const contacts = client.collection('contacts');
      const prefix = unique('sc');
      const created: any = await contacts.create({ name: `${prefix}-one`, email: 'one@x.example' });
      expect(created.documentId).toEqual(expect.any(String));
      expect(created.name).toBe(`${prefix}-one`);
      await contacts.create({ name: `${prefix}-two` });
      await contacts.create({ name: `${prefix}-three` });

      const found: any = await contacts.find({
        filters: { name: { $startsWith: prefix } },
        sort: 'name:desc',
        pagination: { start: 0, limit: 2 },
      });
      expect(found.data.map((c: any) => c.name)).toEqual([`${prefix}-two`, `${prefix}-three`]);
      expect(found.meta.pagination).toEqual({ start: 0, limit: 2, total: 3 });
      const paged: any = await contacts.find({
        filters: { name: { $startsWith: prefix } },
        sort: ['name:asc'],
        fields: ['name'],
        populate: ['owner'],
        pagination: { page: 2, pageSize: 2, withCount: false },
      });
      expect(paged.data).toEqual([
        { documentId: expect.any(String), name: `${prefix}-two`, owner: expect.any(Object) },
      ]);
      expect(paged.meta.pagination).toEqual({ page: 2, pageSize: 2 });

      const one: any = await contacts.findOne(created.documentId);
      expect(one.email).toBe('one@x.example');
      const updated: any = await contacts.update(created.documentId, { city: 'Recife' });
      expect(updated.city).toBe('Recife');
      await contacts.delete(created.documentId);
      await expect(contacts.findOne(created.documentId)).rejects.toMatchObject({ name: 'HTTPNotFoundError' });
      // Errors come back as the client's HTTP errors: a bad query is a 400.
      await expect(contacts.find({ pagination: { page: 1, start: 0 } } as any)).rejects.toMatchObject({
        name: 'HTTPBadRequestError',
      });
      const after: any = await contacts.find({ filters: { name: { $startsWith: prefix } } });
      expect(after.meta.pagination.total).toBe(2);
    } finally {
      await app.close();
    }
  });
});
