import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { apiClient, getApp, newTenant, testConfig } from '../../helpers/app.js';
import { createPipeline, errorPaths, multipart } from './factory.js';

const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 1),
]);

async function publicApi() {
  const { app } = await getApp();
  return apiClient(app, {});
}

async function upload(boardId: string, name: string, type: string, content: Buffer, field = 'file') {
  const { app } = await getApp();
  const body = multipart(field, name, type, content);
  const res = await app.inject({
    method: 'POST',
    url: `/api/boards/${boardId}/public-upload`,
    payload: body.payload,
    headers: body.headers,
  });
  return { status: res.statusCode, body: res.json() };
}

/** A board whose entry form has a file field, with a later-phase field the public may not fill. */
async function formBoard() {
  const t = await newTenant();
  const p = await createPipeline(t.api);
  const field = await t.api.post(`/boards/${p.boardId}/fields`, {
    data: { label: 'CV', slug: 'cv', type: 'file', phase: 'lead' },
  });
  expect(field.status).toBe(201);
  return { t, ...p };
}

describe('public form POST', () => {
  test('creates a card in the entry phase with creationSource form and tracking values, no token', async () => {
    const { t, boardId, phase } = await formBoard();
    const pub = await publicApi();
    const res = await pub.post(`/boards/${boardId}/public-form`, {
      fields: { name: 'Lia', email: 'lia@example.com', size: 'small' },
      utm_source: 'google',
      utm_medium: 'cpc',
      utm_campaign: 'spring',
      utm_term: 'crm',
      utm_content: 'ad-1',
      gclid: 'g-123',
      fbclid: 'f-456',
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'documentId']);
    const card = (await t.api.get(`/boards/${boardId}/cards/${res.body.documentId}`)).body;
    expect(card).toMatchObject({
      title: 'Lia',
      creationSource: 'form',
      currentPhase: { documentId: phase('lead') },
      fields: { name: 'Lia', email: 'lia@example.com', size: 'small', source: 'website' },
      tracking: {
        utm_source: 'google',
        utm_medium: 'cpc',
        utm_campaign: 'spring',
        utm_term: 'crm',
        utm_content: 'ad-1',
        gclid: 'g-123',
        fbclid: 'f-456',
      },
      assignees: [],
    });
    const form = await t.api.get(`/boards/${boardId}/cards`, { 'filters[creationSource][$eq]': 'form' });
    expect(form.body.meta.pagination.total).toBe(1);
  });

  test('validates like the API: required, types, entry-phase slugs only, unknown keys', async () => {
    const { boardId } = await formBoard();
    const pub = await publicApi();
    const missing = await pub.post(`/boards/${boardId}/public-form`, { fields: { name: 'x' } });
    expect(missing.status).toBe(400);
    expect(errorPaths(missing.body)).toEqual(['fields.email']);
    const badType = await pub.post(`/boards/${boardId}/public-form`, {
      fields: { name: 'x', email: 'nope' },
    });
    expect(errorPaths(badType.body)).toEqual(['fields.email']);
    const later = await pub.post(`/boards/${boardId}/public-form`, {
      fields: { name: 'x', email: 'x@x.io', budget: 100 },
    });
    expect(later.status).toBe(400);
    expect(errorPaths(later.body)).toEqual(['fields.budget']);
    const extra = await pub.post(`/boards/${boardId}/public-form`, { fields: {}, utm_evil: 'x' });
    expect(extra.status).toBe(400);
  });

  test('unknown and inactive boards are 404', async () => {
    const { t, boardId } = await formBoard();
    const pub = await publicApi();
    expect((await pub.post('/boards/abcdefghijklmnopqrstuvwx/public-form', { fields: {} })).status).toBe(404);
    expect((await t.api.put(`/boards/${boardId}`, { data: { active: false } })).status).toBe(200);
    const res = await pub.post(`/boards/${boardId}/public-form`, { fields: { name: 'x', email: 'x@x.io' } });
    expect(res.status).toBe(404);
    expect((await upload(boardId, 'a.png', 'image/png', png)).status).toBe(404);
  });
});

describe('public upload', () => {
  test('stores the file and returns a reference usable as a file field value', async () => {
    const { t, boardId } = await formBoard();
    const up = await upload(boardId, '../../evil/photo.png', 'image/png', png);
    expect(up.status).toBe(201);
    expect(up.body).toEqual({
      documentId: expect.stringMatching(/^[a-z0-9]{24}$/),
      name: 'photo.png',
      mimeType: 'image/png',
      size: png.length,
    });
    const { config } = await getApp();
    const orgDirs = join(config.CRM_DATA_DIR, 'uploads');
    expect(existsSync(orgDirs)).toBe(true);
    const pub = await publicApi();
    const res = await pub.post(`/boards/${boardId}/public-form`, {
      fields: { name: 'Lia', email: 'lia@example.com', cv: up.body.documentId },
    });
    expect(res.status).toBe(201);
    const card = (await t.api.get(`/boards/${boardId}/cards/${res.body.documentId}`)).body;
    expect(card.fields.cv).toEqual([up.body]);
    // Members of the board download it; other organizations get 404.
    const down = await t.api.get(`/boards/${boardId}/files/${up.body.documentId}`);
    expect(down.status).toBe(200);
    expect(down.headers['content-type']).toBe('image/png');
    expect(down.headers['content-disposition']).toBe("attachment; filename*=UTF-8''photo.png");
    const stranger = await newTenant();
    expect((await stranger.api.get(`/boards/${boardId}/files/${up.body.documentId}`)).status).toBe(404);
    expect((await t.api.get(`/boards/${boardId}/files/abcdefghijklmnopqrstuvwx`)).status).toBe(404);
    // The whole reference object is accepted too, through the API.
    const api = await t.api.put(`/boards/${boardId}/cards/${res.body.documentId}`, {
      data: { fields: { cv: [up.body] } },
    });
    expect(api.status).toBe(200);
  });

  test('file stored on disk under CRM_DATA_DIR/uploads with its content', async () => {
    const { boardId } = await formBoard();
    const up = await upload(boardId, 'notes.txt', 'text/plain', Buffer.from('hello'));
    expect(up.status).toBe(201);
    const { config } = await getApp();
    const { readdirSync } = await import('node:fs');
    const dir = join(config.CRM_DATA_DIR, 'uploads');
    const found = readdirSync(dir).some((org) => existsSync(join(dir, org, up.body.documentId)));
    expect(found).toBe(true);
    const org = readdirSync(dir).find((o) => existsSync(join(dir, o, up.body.documentId)))!;
    expect(readFileSync(join(dir, org, up.body.documentId), 'utf8')).toBe('hello');
  });

  test('type, content, size and reference checks', async () => {
    const { t, boardId } = await formBoard();
    expect((await upload(boardId, 'x.exe', 'application/x-msdownload', Buffer.from('MZ'))).status).toBe(415);
    const liar = await upload(boardId, 'x.png', 'image/png', Buffer.from('not a png at all'));
    expect(liar.status).toBe(415);
    const big = await upload(boardId, 'big.txt', 'text/plain', Buffer.alloc(10 * 1024 * 1024 + 10, 97));
    expect(big.status).toBe(413);
    expect((await upload(boardId, 'a.png', 'image/png', png, 'other')).status).toBe(400);
    expect((await upload(boardId, 'empty.txt', 'text/plain', Buffer.alloc(0))).status).toBe(400);
    // A file uploaded to another board is not a valid reference here.
    const other = await createPipeline(t.api);
    const foreign = await upload(other.boardId, 'a.png', 'image/png', png);
    const pub = await publicApi();
    const res = await pub.post(`/boards/${boardId}/public-form`, {
      fields: { name: 'x', email: 'x@x.io', cv: foreign.body.documentId },
    });
    expect(res.status).toBe(400);
    expect(errorPaths(res.body)).toEqual(['fields.cv']);
  });
});

describe('public routes are rate-limited per IP', () => {
  const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  test('the public bucket answers 429 with Retry-After, per client IP', async () => {
    const { db } = await getApp();
    const app = await buildApp({ config: testConfig({ RATE_LIMIT_PUBLIC_MAX: 2 }), db });
    apps.push(app);
    await app.ready();
    const url = '/api/boards/abcdefghijklmnopqrstuvwx/public-form';
    const from = (remoteAddress: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, payload: { fields: {} }, remoteAddress, headers });
    expect((await from('198.51.100.1')).statusCode).toBe(404);
    expect((await from('198.51.100.1')).statusCode).toBe(404);
    const limited = await from('198.51.100.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.name).toBe('TooManyRequestsError');
    expect(limited.headers['retry-after']).toBeDefined();
    // A bearer header does not open a fresh bucket for the same IP; another IP has its own.
    expect((await from('198.51.100.1', { authorization: 'Bearer other' })).statusCode).toBe(429);
    expect((await from('198.51.100.2')).statusCode).toBe(404);
  });
});
