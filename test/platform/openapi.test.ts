import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { buildApp } from '../../src/app.js';
import { getApp, testConfig } from '../helpers/app.js';

const methods = ['get', 'post', 'put', 'patch', 'delete'];

describe('OpenAPI document', () => {
  test('is valid OpenAPI 3.1 and lists every registered route with its methods', async () => {
    const { db } = await getApp();
    const app = await buildApp({ config: testConfig(), db });
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\.1\./);
    await SwaggerParser.validate(structuredClone(doc));
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer' });

    expect(app.routeIndex.length).toBeGreaterThan(5);
    const inDoc = new Set<string>();
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const m of Object.keys(ops)) if (methods.includes(m)) inDoc.add(`${m} ${path}`);
    }
    const missing: string[] = [];
    for (const r of app.routeIndex) {
      if (!r.url.startsWith('/api/') || r.url.startsWith('/api/docs') || r.url.startsWith('/api/openapi'))
        continue;
      if (!methods.includes(r.method)) continue;
      const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      if (!inDoc.has(`${r.method} ${path}`)) missing.push(`${r.method} ${path}`);
    }
    expect(missing).toEqual([]);
    await app.close();
  });

  test('tenant routes declare the bearer scheme and the x-tenant-id header; public routes neither', async () => {
    const { app } = await getApp();
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const memberships = doc.paths['/api/memberships'].get;
    // The tenant header is the tenantId apiKey scheme (set once by the docs page's Authorize), not a parameter.
    expect(memberships.security).toEqual([{ bearerAuth: ['members:read'], tenantId: [] }]);
    expect(doc.components.securitySchemes.tenantId).toMatchObject({ in: 'header', name: 'x-tenant-id' });
    const login = doc.paths['/api/auth/local'].post;
    expect(login.security).toEqual([]);
    expect(login.parameters ?? []).not.toContainEqual(expect.objectContaining({ name: 'x-tenant-id' }));
    expect(memberships.responses['401'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/Error',
    );
  });

  test('board, card and template routes document real response schemas, not an open any', async () => {
    const { app } = await getApp();
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const resolve = (schema: any): any =>
      schema?.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
    const vague: string[] = [];
    let checked = 0;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      if (!/^\/api\/(boards|board-templates)(\/|$)/.test(path)) continue;
      for (const [method, op] of Object.entries<any>(ops)) {
        if (!methods.includes(method)) continue;
        checked++;
        const ok = Object.entries<any>(op.responses).filter(([status]) => status.startsWith('2'));
        for (const [status, res] of ok) {
          const content = Object.values<any>(res.content ?? {})[0];
          const schema = resolve(content?.schema);
          // The one download route answers the file's bytes; everything else a described object.
          const described = path.endsWith('/files/{id}')
            ? schema?.type === 'string'
            : schema?.type === 'object' && Object.keys(schema.properties ?? {}).length > 0;
          if (!described) vague.push(`${method} ${path} ${status}`);
          // Lists: { data: Item[], meta } with a described item.
          const data = schema?.properties?.data;
          if (data?.type === 'array' && Object.keys(resolve(data.items)?.properties ?? {}).length === 0)
            vague.push(`${method} ${path} ${status} data[]`);
        }
        if (ok.length === 0) vague.push(`${method} ${path} (no 2xx)`);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(vague).toEqual([]);
    const card = doc.components.schemas.Card;
    expect(Object.keys(card.properties)).toEqual(
      expect.arrayContaining(['documentId', 'title', 'fields', 'currentPhase', 'tags', 'assignees']),
    );
    const list = doc.paths['/api/boards/{boardId}/cards'].get.responses['200'].content['application/json'];
    expect(list.schema.properties.meta.properties).toHaveProperty('stats');
    expect(doc.components.schemas.BoardReport.properties).toHaveProperty('createdByDay');
  });

  test('the YAML document matches the JSON one; the docs page is served', async () => {
    const { app } = await getApp();
    const json = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const yaml = await app.inject({ method: 'GET', url: '/api/openapi.yaml' });
    expect(yaml.headers['content-type']).toContain('yaml');
    expect(parse(yaml.body)).toEqual(json);
    const docs = await app.inject({ method: 'GET', url: '/api/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});
