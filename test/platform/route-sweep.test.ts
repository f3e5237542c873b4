import { describe, expect, test } from 'vitest';
import { apiClient, getApp, newTenant } from '../helpers/app.js';
import { openApiDocument } from '../helpers/openapi.js';

/**
 * A sweep over every operation of the OpenAPI document, so each new route is covered the day it lands:
 * anonymous calls are refused, another organization's members are refused, and garbage never gives a 500.
 */
async function operations() {
  return (await openApiDocument()).operations;
}

const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value);
const fakeId = 'zzzzzzzzzzzzzzzzzzzzzzzz';

describe('route sweep over the OpenAPI document', () => {
  test('every non-public operation answers 401 without a token', async () => {
    const { app } = await getApp();
    const t = await newTenant();
    const anon = apiClient(app, { 'x-tenant-id': t.slug });
    const wrong: string[] = [];
    for (const op of (await operations()).filter((o) => !o.public)) {
      const res = await anon.request({
        method: op.method.toUpperCase() as any,
        url: fill(op.path, fakeId),
        payload: op.method === 'get' || op.method === 'delete' ? undefined : {},
      });
      if (res.status !== 401) wrong.push(`${op.method} ${op.path} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  test('every tenant operation answers 403 to a member of another organization', async () => {
    const { app } = await getApp();
    const a = await newTenant();
    const b = await newTenant();
    const intruder = apiClient(app, { authorization: `Bearer ${b.user.jwt}`, 'x-tenant-id': a.slug });
    const wrong: string[] = [];
    const tenantOps = (await operations()).filter((o) => o.tenant);
    // The sweep covers what the document marks as tenant operations: never an empty set by a doc change.
    expect(tenantOps.length).toBeGreaterThan(80);
    for (const op of tenantOps) {
      const res = await intruder.request({
        method: op.method.toUpperCase() as any,
        url: fill(op.path, fakeId),
        payload: op.method === 'get' || op.method === 'delete' ? undefined : {},
      });
      if (res.status !== 403) wrong.push(`${op.method} ${op.path} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  test('garbage ids, bodies and queries never give a 500', async () => {
    const t = await newTenant();
    const bodies = [
      undefined,
      {},
      { data: {} },
      { data: null },
      { data: { name: 42, title: [], email: {} } },
      [],
      'x',
    ];
    const wrong: string[] = [];
    for (const op of await operations()) {
      for (const id of [fakeId, '1', "'; select 1; --"]) {
        const url = fill(op.path, encodeURIComponent(id));
        const payloads = op.method === 'get' || op.method === 'delete' ? [undefined] : bodies;
        for (const payload of payloads) {
          const res = await t.api.request({
            method: op.method.toUpperCase() as any,
            url: `${url}${op.method === 'get' ? '?filters[nope][$eq]=1' : ''}`,
            payload: payload as any,
            headers: typeof payload === 'string' ? { 'content-type': 'application/json' } : undefined,
          });
          if (res.status >= 500)
            wrong.push(
              `${op.method} ${url} ${JSON.stringify(payload)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
            );
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
