import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { createBoard, hasErrorAt } from './factory.js';

let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  a = await newTenant();
  b = await newTenant();
});

const colors = async (t: Tenant, boardId: string) =>
  (await t.api.get(`/boards/${boardId}`)).body.phases.map((p: any) => [p.slug, p.color]);

describe('phase color', () => {
  test('nested phases of a new board take a color; a phase without one reads null', async () => {
    const board = await createBoard(a.api, {
      phases: [{ name: 'Lead', color: '#1565C0' }, { name: 'Proposal', color: '#f80' }, { name: 'Won' }],
    });
    expect(board.phases.map((p: any) => p.color)).toEqual(['#1565C0', '#f80', null]);
    expect(await colors(a, board.documentId)).toEqual([
      ['lead', '#1565C0'],
      ['proposal', '#f80'],
      ['won', null],
    ]);
    const listed = await a.api.get(`/boards/${board.documentId}/phases`);
    expect(listed.body.data.map((p: any) => p.color)).toEqual(['#1565C0', '#f80', null]);
    const boards = await a.api.get('/boards', { 'filters[documentId][$eq]': board.documentId });
    expect(boards.body.data[0].phases.map((p: any) => p.color)).toEqual(['#1565C0', '#f80', null]);
  });

  test('a phase is created with a color, changed, kept when not sent and cleared with null', async () => {
    const board = await createBoard(a.api);
    const created = await a.api.post(`/boards/${board.documentId}/phases`, {
      data: { name: 'Lost', color: '#C62828' },
    });
    expect(created.status).toBe(201);
    expect(created.body.color).toBe('#C62828');
    const path = `/boards/${board.documentId}/phases/${created.body.documentId}`;
    expect((await a.api.get(path)).body.color).toBe('#C62828');

    const changed = await a.api.put(path, { data: { color: '#2e7d32' } });
    expect(changed.status).toBe(200);
    expect(changed.body.color).toBe('#2e7d32');
    const renamed = await a.api.put(path, { data: { name: 'Lost deals' } });
    expect(renamed.body).toMatchObject({ name: 'Lost deals', color: '#2e7d32' });
    expect((await colors(a, board.documentId)).at(-1)).toEqual(['lost', '#2e7d32']);

    const cleared = await a.api.put(path, { data: { color: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.color).toBeNull();
    expect((await a.api.get(path)).body.color).toBeNull();
  });

  test.each([
    ['a colour name', 'red'],
    ['a hex without #', '1565C0'],
    ['four hex digits', '#abcd'],
    ['a non-hex digit', '#12345g'],
    ['a number', 123],
  ])('rejects %s with a 400 naming color', async (_label, color) => {
    const board = await createBoard(a.api);
    const phase = board.phases[1];
    const put = await a.api.put(`/boards/${board.documentId}/phases/${phase.documentId}`, {
      data: { color },
    });
    expect(put.status).toBe(400);
    expect(put.body.error.name).toBe('ValidationError');
    expect(hasErrorAt(put.body, 'color')).toBe(true);
    const post = await a.api.post(`/boards/${board.documentId}/phases`, { data: { name: 'x', color } });
    expect(post.status).toBe(400);
    expect(hasErrorAt(post.body, 'color')).toBe(true);
    const nested = await a.api.post('/boards', { data: { name: 'x', phases: [{ name: 'a', color }] } });
    expect(nested.status).toBe(400);
    expect(hasErrorAt(nested.body, 'phases.0.color')).toBe(true);
    expect((await a.api.get(`/boards/${board.documentId}/phases/${phase.documentId}`)).body.color).toBeNull();
  });

  test('another organization can neither read nor change a phase color', async () => {
    const board = await createBoard(a.api, { phases: [{ name: 'Lead', color: '#123456' }] });
    const path = `/boards/${board.documentId}/phases/${board.phases[0].documentId}`;
    expect((await b.api.get(path)).status).toBe(404);
    expect((await b.api.put(path, { data: { color: '#000000' } })).status).toBe(404);
    expect((await b.api.put(path, { data: { color: null } })).status).toBe(404);
    expect((await a.api.get(path)).body.color).toBe('#123456');
  });

  test('the OpenAPI document describes color on Phase and on the phase inputs', async () => {
    const { app } = await getApp();
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const phase = doc.components.schemas.Phase;
    expect(phase.properties.color).toBeDefined();
    expect(phase.required).toContain('color');
    const paths = Object.keys(doc.paths).filter((p) => /\/boards\/\{[^}]+\}\/phases(\/\{[^}]+\})?$/.test(p));
    expect(paths).toHaveLength(2);
    // Each phase input (create, update) names color with its pattern, wherever the schema sits.
    for (const [path, method] of [
      [paths.find((p) => p.endsWith('/phases'))!, 'post'],
      [paths.find((p) => !p.endsWith('/phases'))!, 'put'],
    ]) {
      let schema = doc.paths[path][method].requestBody.content['application/json'].schema;
      if (schema.$ref) schema = doc.components.schemas[schema.$ref.split('/').at(-1)];
      expect(JSON.stringify(schema), `${method} ${path}`).toContain('#RGB or #RRGGBB; null clears it');
    }
  });
});
