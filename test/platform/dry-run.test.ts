import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, apiClient, getApp, newTenant, type Tenant } from '../helpers/app.js';
import {
  dryRunChangesNothing,
  expectDryRun,
  sameFailure,
  snapshot,
  withoutDryRun,
} from '../helpers/dry-run.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';

/**
 * `?dryRun=true` (docs/dry-run.md) on the write routes the agent tools use: the would-be answer or the real
 * call's 4xx, and nothing written (rows, history, events, audit, jobs, idempotency keys).
 */

let t: Tenant;
beforeAll(async () => {
  t = await newTenant();
});

const product = (extra: Record<string, unknown> = {}) => ({
  data: { name: 'Widget', sku: `W-${Math.random().toString(36).slice(2, 8)}`, price: 10, ...extra },
});

describe('the parameter', () => {
  test('a dry run answers 200 with the would-be body, meta.dryRun and the Dry-Run header; a real call still works', async () => {
    const input = product();
    const dry = await dryRunChangesNothing(t, (q) => t.api.post(`/products${q}`, input));
    expect(dry.body).toMatchObject({ name: 'Widget', sku: input.data.sku, price: 10, active: true });
    expect((await t.api.get('/products', { 'filters[sku][$eq]': input.data.sku })).body.data).toEqual([]);
    const real = await t.api.post('/products', input);
    expect(real.status).toBe(201);
    expect(real.headers['dry-run']).toBeUndefined();
    expect(real.body.meta).toBeUndefined();
    const { documentId: _a, createdAt: _b, updatedAt: _c, ...wouldBe } = withoutDryRun(dry.body);
    expect(real.body).toMatchObject(wouldBe);
  });

  test('dryRun=false is a normal call; any other value is a 400 naming the accepted values', async () => {
    const off = await t.api.post('/products?dryRun=false', product());
    expect(off.status).toBe(201);
    expect(off.headers['dry-run']).toBeUndefined();
    for (const value of ['1', 'yes', 'TRUE', '']) {
      const res = await t.api.post(`/products?dryRun=${value}`, product());
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/true or false/);
      expect(res.body.error.details.errors[0].path).toEqual(['dryRun']);
    }
    const twice = await t.api.post('/products?dryRun=true&dryRun=true', product());
    expect(twice.status).toBe(400);
  });

  test('routes that cannot honour a dry run refuse it with a 400 (public, account, provider-bound)', async () => {
    const login = await apiClient(t.app, {}).post('/auth/local?dryRun=true', {
      identifier: t.user.email,
      password: t.user.password,
    });
    expect(login.status).toBe(400);
    expect(login.body.error.message).toBe('dryRun is not supported on this route');
    const token = await t.userApi.post('/users/generate-token?dryRun=true', { expiration: '1d' });
    expect(token.status).toBe(400);
    const verify = await t.api.post('/conversion-pixels/zzzzzzzzzzzzzzzzzzzzzzzz/verify?dryRun=true');
    expect(verify.status).toBe(400);
    expect(verify.body.error.message).toBe('dryRun is not supported on this route');
  });

  test('an Idempotency-Key sent with a dry run is not consumed', async () => {
    const key = `dry-${Math.random().toString(36).slice(2)}`;
    const input = product();
    const before = await snapshot(t);
    const dry = await t.api.post('/products?dryRun=true', input, { 'idempotency-key': key });
    expectDryRun(dry);
    expect(await snapshot(t)).toEqual(before);
    const real = await t.api.post('/products', input, { 'idempotency-key': key });
    expect(real.status).toBe(201);
    expect(real.headers['idempotent-replayed']).toBeUndefined();
    const replay = await t.api.post('/products', input, { 'idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.documentId).toBe(real.body.documentId);
  });

  test('the OpenAPI document declares dryRun once and references it on the routes that take it', async () => {
    const { app } = await getApp();
    const doc = app.swagger() as any;
    expect(doc.components.parameters.DryRun).toMatchObject({ name: 'dryRun', in: 'query' });
    const refs = (op: any) => (op.parameters ?? []).map((p: any) => p.$ref).filter(Boolean);
    for (const [path, method] of [
      ['/api/products', 'post'],
      ['/api/boards/{boardId}/cards/{id}/move', 'post'],
      ['/api/contacts/{id}', 'delete'],
      ['/api/tasks/{id}/status', 'put'],
      ['/api/conversations/{id}/messages', 'post'],
      ['/api/calendar-meetings/{id}', 'patch'],
    ]) {
      expect(refs(doc.paths[path][method]), `${method} ${path}`).toEqual(['#/components/parameters/DryRun']);
      expect(doc.paths[path][method].description).toMatch(/dryRun=true/);
    }
    for (const [path, method] of [
      ['/api/products', 'get'],
      ['/api/auth/local', 'post'],
      ['/api/conversion-pixels/{id}/verify', 'post'],
      ['/api/calendar-connections', 'post'],
    ]) {
      expect(refs(doc.paths[path][method]), `${method} ${path}`).toEqual([]);
    }
  });
});

describe('cards', () => {
  test('create, update, move and delete answer the would-be card and change nothing', async () => {
    const { boardId } = await createPipeline(t.api);
    const created = await dryRunChangesNothing(t, (q) =>
      t.api.post(`/boards/${boardId}/cards${q}`, {
        data: { title: 'Dry deal', fields: { name: 'Ana', email: 'ana@example.com' } },
      }),
    );
    expect(created.body).toMatchObject({ title: 'Dry deal', currentPhase: { slug: 'lead' } });
    expect((await t.api.get(`/boards/${boardId}/cards`)).body.data).toEqual([]);

    const card = await createCard(t.api, boardId, { title: 'Real deal' });
    const updated = await dryRunChangesNothing(t, (q) =>
      t.api.put(`/boards/${boardId}/cards/${card.documentId}${q}`, { data: { title: 'Renamed' } }),
    );
    expect(updated.body).toMatchObject({ documentId: card.documentId, title: 'Renamed' });
    const moved = await dryRunChangesNothing(t, (q) =>
      t.api.post(`/boards/${boardId}/cards/${card.documentId}/move${q}`, { phase: 'qualified' }),
    );
    expect(moved.body.currentPhase.slug).toBe('qualified');
    const gone = await dryRunChangesNothing(t, (q) =>
      t.api.delete(`/boards/${boardId}/cards/${card.documentId}${q}`),
    );
    expect(gone.body).toMatchObject({
      documentId: card.documentId,
      deleted: true,
      data: { documentId: card.documentId, title: 'Real deal' },
    });
    const still = await t.api.get(`/boards/${boardId}/cards/${card.documentId}`);
    expect(still.body).toMatchObject({ title: 'Real deal', currentPhase: { slug: 'lead' } });
    // The real calls afterwards.
    expect(
      (await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, { phase: 'qualified' })).status,
    ).toBe(200);
    expect((await t.api.delete(`/boards/${boardId}/cards/${card.documentId}`)).status).toBe(200);
  });

  test('a required field missing, a blocked phase move, a missing card: the real call’s 4xx', async () => {
    const { boardId } = await createPipeline(t.api);
    const missing = await sameFailure(t, (q) =>
      t.api.post(`/boards/${boardId}/cards${q}`, { data: { title: 'No email', fields: { name: 'Ana' } } }),
    );
    expect(missing.dry.status).toBe(400);
    const card = await createCard(t.api, boardId, {
      currentPhase: 'qualified',
      fields: { name: 'A', email: 'a@x.io', budget: 10 },
    });
    const blocked = await sameFailure(t, (q) =>
      t.api.post(`/boards/${boardId}/cards/${card.documentId}/move${q}`, { phase: 'lost' }),
    );
    expect(blocked.dry.status).toBe(422);
    const back = await sameFailure(t, (q) =>
      t.api.post(`/boards/${boardId}/cards/${card.documentId}/move${q}`, { phase: 'nowhere' }),
    );
    expect(back.dry.status).toBe(400);
    const nothing = await sameFailure(t, (q) =>
      t.api.delete(`/boards/${boardId}/cards/zzzzzzzzzzzzzzzzzzzzzzzz${q}`),
    );
    expect(nothing.dry.status).toBe(404);
  });
});

describe('contacts', () => {
  test('create, update, note and delete as dry runs change nothing; a bad e-mail is the real 400', async () => {
    const created = await dryRunChangesNothing(t, (q) =>
      t.api.post(`/contacts${q}`, { data: { name: 'Dry Ana', email: 'dry.ana@example.com' } }),
    );
    expect(created.body).toMatchObject({ name: 'Dry Ana', email: 'dry.ana@example.com' });
    const bad = await sameFailure(t, (q) =>
      t.api.post(`/contacts${q}`, { data: { name: 'Bad', email: 'not-an-email' } }),
    );
    expect(bad.dry.status).toBe(400);

    const real = await t.api.post('/contacts', { data: { name: 'Real Bia', email: 'bia@example.com' } });
    expect(real.status).toBe(201);
    const id = real.body.documentId;
    const updated = await dryRunChangesNothing(t, (q) =>
      t.api.put(`/contacts/${id}${q}`, { data: { name: 'Bia B.' } }),
    );
    expect(updated.body).toMatchObject({ documentId: id, name: 'Bia B.' });
    await dryRunChangesNothing(t, (q) =>
      t.api.post(`/contacts/${id}/notes${q}`, { data: { description: 'Called her' } }),
    );
    const deleted = await dryRunChangesNothing(t, (q) => t.api.delete(`/contacts/${id}${q}`));
    expect(withoutDryRun(deleted.body)).toEqual({
      documentId: id,
      deleted: true,
      data: (await t.api.get(`/contacts/${id}`)).body,
    });
    expect((await t.api.get(`/contacts/${id}`)).body.name).toBe('Real Bia');
    await sameFailure(t, (q) => t.api.put(`/contacts/${id}${q}`, { data: { email: 'nope' } }));
    expect((await t.api.delete(`/contacts/${id}`)).status).toBe(200);
    const twice = await sameFailure(t, (q) => t.api.delete(`/contacts/${id}${q}`));
    expect(twice.dry.status).toBe(404);
  });
});

describe('tasks, products, categories, segments', () => {
  test('a task with a due date (its reminder job) and its completion change nothing; a bad date is the real 400', async () => {
    const created = await dryRunChangesNothing(t, (q) =>
      t.api.post(`/tasks${q}`, { data: { name: 'Call Ana', dueDate: '2030-01-01T10:00:00Z' } }),
    );
    expect(created.body).toMatchObject({
      name: 'Call Ana',
      taskStatus: 'pending',
      dueDate: '2030-01-01T10:00:00.000Z',
    });
    const bad = await sameFailure(t, (q) =>
      t.api.post(`/tasks${q}`, { data: { name: 'x', dueDate: 'tomorrow' } }),
    );
    expect(bad.dry.status).toBe(400);
    const task = await t.api.post('/tasks', {
      data: { name: 'Weekly call', dueDate: '2030-01-01T10:00:00Z', recurrence: 'weekly' },
    });
    expect(task.status).toBe(201);
    const done = await dryRunChangesNothing(t, (q) =>
      t.api.put(`/tasks/${task.body.documentId}/status${q}`, { data: { taskStatus: 'completed' } }),
    );
    expect(done.body.taskStatus).toBe('completed');
    expect((await t.api.get(`/tasks/${task.body.documentId}`)).body.taskStatus).toBe('pending');
    const real = await t.api.put(`/tasks/${task.body.documentId}/status`, {
      data: { taskStatus: 'completed' },
    });
    expect(real.status).toBe(200);
  });

  test('product, category and segment writes', async () => {
    const bad = await sameFailure(t, (q) => t.api.post(`/products${q}`, product({ price: -5 })));
    expect(bad.dry.status).toBe(400);
    const real = await t.api.post('/products', product());
    await dryRunChangesNothing(t, (q) =>
      t.api.put(`/products/${real.body.documentId}${q}`, { data: { price: 12.5 } }),
    );
    await sameFailure(t, (q) =>
      t.api.put(`/products/${real.body.documentId}${q}`, { data: { price: 'cheap' } }),
    );
    const gone = await dryRunChangesNothing(t, (q) => t.api.delete(`/products/${real.body.documentId}${q}`));
    expect(gone.body.data).toMatchObject({ documentId: real.body.documentId, name: 'Widget' });
    expect((await t.api.get(`/products/${real.body.documentId}`)).body.price).toBe(10);

    const category = await dryRunChangesNothing(t, (q) =>
      t.api.post(`/product-categories${q}`, { data: { name: 'Hardware' } }),
    );
    expect(category.body.name).toBe('Hardware');

    const rules = { logic: 'AND', conditions: [{ field: 'name', op: 'notEmpty' }] };
    const seg = await dryRunChangesNothing(t, (q) =>
      t.api.post(`/segments${q}`, { data: { name: 'Named', filters: rules } }),
    );
    expect(seg.body).toMatchObject({ name: 'Named' });
    const realSeg = await t.api.post('/segments', { data: { name: 'Named', filters: rules } });
    expect(realSeg.status).toBe(201);
    await dryRunChangesNothing(t, (q) =>
      t.api.put(`/segments/${realSeg.body.documentId}${q}`, { data: { name: 'Renamed' } }),
    );
    await dryRunChangesNothing(t, (q) => t.api.delete(`/segments/${realSeg.body.documentId}${q}`));
    const dup = await sameFailure(t, (q) =>
      t.api.post(`/segments${q}`, { data: { name: 'Named', filters: rules } }),
    );
    expect(dup.dry.status).toBe(400);
  });
});

describe('access', () => {
  test('a viewer, a token without the scope and another organization get the real 403 / 404', async () => {
    const viewer = await addMember(t, 'viewer');
    const denied = await viewer.api.post('/products?dryRun=true', product());
    expect(denied.status).toBe(403);
    expect(denied.headers['dry-run']).toBe('true');

    const tokenRes = await t.userApi.post('/users/generate-token', {
      expiration: '1d',
      scopes: ['products:read'],
    });
    const readOnly = apiClient(t.app, {
      authorization: `Bearer ${tokenRes.body.token}`,
      'x-tenant-id': t.slug,
    });
    const scoped = await readOnly.post('/products?dryRun=true', product());
    expect(scoped.status).toBe(403);
    expect(scoped.body.error.details.missingScopes).toEqual(['products:write']);

    const other = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const card = await createCard(t.api, boardId);
    const contact = await t.api.post('/contacts', { data: { name: 'Mine' } });
    for (const res of [
      await other.api.put(`/contacts/${contact.body.documentId}?dryRun=true`, { data: { name: 'Theirs' } }),
      await other.api.delete(`/contacts/${contact.body.documentId}?dryRun=true`),
      await other.api.post(`/boards/${boardId}/cards/${card.documentId}/move?dryRun=true`, {
        phase: 'qualified',
      }),
    ]) {
      expect(res.status).toBe(404);
    }
  });
});
