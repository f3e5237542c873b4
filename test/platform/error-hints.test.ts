import { beforeAll, describe, expect, test } from 'vitest';
import { closestName } from '../../src/platform/http/hints.js';
import { newTenant, type Tenant } from '../helpers/app.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';

/** Issue "first hour", item 7: the refusals a newcomer meets name the request that would work. */
describe('errors that say how to fix the request', () => {
  let t: Tenant;
  let boardId: string;
  let boardSlug: string;
  let cardId: string;

  beforeAll(async () => {
    t = await newTenant();
    const p = await createPipeline(t.api);
    boardId = p.boardId;
    boardSlug = p.board.slug;
    cardId = (await createCard(t.api, boardId)).documentId;
  });

  test('move with the body wrapped in data: 400 naming the unwrapped form, the card stays', async () => {
    const res = await t.api.post(`/boards/${boardId}/cards/${cardId}/move`, { data: { phase: 'qualified' } });
    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('ValidationError');
    expect(res.body.error.message).toContain('not wrapped in "data"');
    expect(res.body.error.details.hint).toBe(
      'This route\'s body is not wrapped in "data": send {"phase": …} at the top level',
    );
    const card = await t.api.get(`/boards/${boardId}/cards/${cardId}`);
    expect((card.body.data ?? card.body).currentPhase.slug).toBe('lead');
  });

  test('create without the data wrapper: 400 naming the wrapped form', async () => {
    const res = await t.api.post(`/boards/${boardId}/cards`, { title: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.hint).toContain('Wrap the attributes in "data": {"data": {"title": …}}');
  });

  test('phase for currentPhase on create and update: 400 naming currentPhase', async () => {
    for (const res of [
      await t.api.post(`/boards/${boardId}/cards`, { data: { phase: 'qualified' } }),
      await t.api.put(`/boards/${boardId}/cards/${cardId}`, { data: { phase: 'qualified' } }),
      await t.api.put(`/boards/${boardId}/cards/${cardId}`, { data: { phaseId: 'qualified' } }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/"phase(Id)?" is written "currentPhase"/);
      expect(res.body.error.details.errors[0].path).toEqual([expect.stringMatching(/^phase/)]);
    }
  });

  test('a dynamic field at the top of the card: 400 saying it goes under fields', async () => {
    const res = await t.api.post(`/boards/${boardId}/cards`, { data: { email: 'a@x.io' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.hint).toBe(
      'if "email" is a field of the board, send it under "fields": {"fields": {"email": …}}',
    );
  });

  test('filters[slug] for a dynamic field: 400 naming filters[fields][slug]; a typo gets the closest name', async () => {
    const res = await t.api.get(`/boards/${boardId}/cards?filters[email][$eq]=a@x.io`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('filter it as filters[fields][email][$eq]=');
    const right = await t.api.get(`/boards/${boardId}/cards?filters[fields][email][$eq]=ana@example.com`);
    expect(right.status).toBe(200);
    expect(right.body.data.map((c: { documentId: string }) => c.documentId)).toEqual([cardId]);
    const phase = await t.api.get(`/boards/${boardId}/cards?filters[phase][slug][$eq]=lead`);
    expect(phase.body.error.message).toContain('did you mean currentPhase?');
    const sort = await t.api.get('/contacts?sort=createdat:desc');
    expect(sort.status).toBe(400);
    expect(sort.body.error.message).toContain('did you mean createdAt?');
    // Not a field anywhere: no invented suggestion.
    const none = await t.api.get(`/boards/${boardId}/cards?filters[zzzqqq][$eq]=1`);
    expect(none.body.error.message).toBe('Invalid filter filters[zzzqqq]: unknown field zzzqqq');
  });

  test('the retired GET /api/cards and /api/cards/{id}: 404 naming the board-scoped routes', async () => {
    for (const path of ['/cards', `/cards/${cardId}`]) {
      const res = await t.api.get(path);
      expect(res.status).toBe(404);
      expect(res.body.error.details.hint).toContain('GET /api/boards/{boardId}/cards');
    }
    const noPrefix = await t.api.request({ method: 'GET', url: '/boards' });
    expect(noPrefix.status).toBe(404);
    expect(noPrefix.body.error.message).toContain('start with /api: GET /api/boards');
  });

  test('a slug where the path takes a documentId: 404 saying so and how to find it', async () => {
    const board = await t.api.get(`/boards/${boardSlug}/cards`);
    expect(board.status).toBe(404);
    expect(board.body.error.details.hint).toContain(`GET /api/boards?filters[slug][$eq]=${boardSlug}`);
    const found = await t.api.get(`/boards?filters[slug][$eq]=${boardSlug}`);
    expect(found.body.data[0].documentId).toBe(boardId);
    const card = await t.api.get(`/boards/${boardId}/cards/first-card`);
    expect(card.body.error.details.hint).toContain(`GET /api/boards/${boardId}/cards finds it`);
    // A well-formed documentId that does not exist is a plain 404.
    const missing = await t.api.get(`/boards/${boardId}/cards/${'a'.repeat(24)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.details.hint).toBeUndefined();
  });

  test('another organization learns nothing from a hint', async () => {
    const other = await newTenant(t.app);
    const res = await other.api.get(`/boards/${boardSlug}/cards`);
    expect(res.status).toBe(404);
    // The hint only echoes the request: the same answer for a slug that exists nowhere.
    const nowhere = await other.api.get('/boards/no-such-board-anywhere/cards');
    expect(res.body.error.details.hint.replaceAll(boardSlug, 'X')).toBe(
      nowhere.body.error.details.hint.replaceAll('no-such-board-anywhere', 'X'),
    );
  });

  test('closestName: aliases, case and small typos; nothing for strangers', () => {
    expect(closestName('phase', ['title', 'currentPhase'])).toBe('currentPhase');
    expect(closestName('due_date', ['dueDate'])).toBe('dueDate');
    expect(closestName('tittle', ['title', 'value'])).toBe('title');
    expect(closestName('xyz', ['title', 'value'])).toBeUndefined();
  });
});
