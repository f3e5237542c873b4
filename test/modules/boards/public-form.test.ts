import { beforeAll, describe, expect, test } from 'vitest';
import { apiClient, getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { createBoard } from './factory.js';

let t: Tenant;
let anon: ReturnType<typeof apiClient>;
beforeAll(async () => {
  t = await newTenant();
  anon = apiClient((await getApp()).app, {});
});

describe('GET /boards/{boardId}/public-form', () => {
  test('returns the entry form without a token or tenant header, and nothing private', async () => {
    const b = await createBoard(t.api, {
      phases: [
        {
          name: 'Contact us',
          description: 'Tell us about you',
          fields: [
            {
              label: 'Email',
              type: 'email',
              required: true,
              placeholder: 'you@x.co',
              helpText: 'work email',
            },
            {
              label: 'Size',
              type: 'radio',
              options: [{ value: 's', label: 'Small' }, 'large'],
              defaultValue: 's',
            },
            { label: 'Details', type: 'textarea' },
            { label: 'Campaign', type: 'hidden', defaultValue: 'spring' },
          ],
        },
        { name: 'Internal', fields: [{ label: 'Secret score', type: 'number' }] },
      ],
    });
    const cond = (data: Record<string, unknown>) =>
      t.api.post(`/boards/${b.documentId}/field-conditions`, { data: { phase: 'contact-us', ...data } });
    expect(
      (
        await cond({
          name: 'Details for large',
          criteria: [{ expressions: [{ fieldSlug: 'size', operator: 'eq', value: 'large' }] }],
          actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['details'] }],
          actionsWhenFalse: [{ type: 'hide', targetFieldSlugs: ['details'] }],
        })
      ).status,
    ).toBe(201);
    await cond({
      name: 'Disabled',
      enabled: false,
      criteria: [{ expressions: [{ fieldSlug: 'email', operator: 'empty' }] }],
      actionsWhenTrue: [{ type: 'hide', targetFieldSlugs: ['details'] }],
    });
    await cond({
      name: 'Names a private field',
      scope: 'board',
      phase: null,
      criteria: [{ expressions: [{ fieldSlug: 'secret-score', operator: 'gt', value: 5 }] }],
      actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['details'] }],
    });
    await cond({
      name: 'Other phase',
      phase: 'internal',
      criteria: [{ expressions: [{ fieldSlug: 'email', operator: 'notEmpty' }] }],
      actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['details'] }],
    });

    const res = await anon.get(`/boards/${b.documentId}/public-form`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      board: { documentId: b.documentId, name: 'Pipeline' },
      phase: { documentId: b.phases[0].documentId, name: 'Contact us', description: 'Tell us about you' },
      consent: null,
      fields: [
        {
          slug: 'email',
          label: 'Email',
          type: 'email',
          order: 0,
          required: true,
          placeholder: 'you@x.co',
          helpText: 'work email',
          defaultValue: null,
          options: [],
        },
        {
          slug: 'size',
          label: 'Size',
          type: 'radio',
          order: 1,
          required: false,
          placeholder: null,
          helpText: null,
          defaultValue: 's',
          options: [{ value: 's', label: 'Small' }, 'large'],
        },
        {
          slug: 'details',
          label: 'Details',
          type: 'textarea',
          order: 2,
          required: false,
          placeholder: null,
          helpText: null,
          defaultValue: null,
          options: [],
        },
        {
          slug: 'campaign',
          label: 'Campaign',
          type: 'hidden',
          order: 3,
          required: false,
          placeholder: null,
          helpText: null,
          defaultValue: 'spring',
          options: [],
        },
      ],
      conditions: [
        {
          name: 'Details for large',
          order: 0,
          criteria: [
            { operator: 'AND', expressions: [{ fieldSlug: 'size', operator: 'eq', value: 'large' }] },
          ],
          actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['details'] }],
          actionsWhenFalse: [{ type: 'hide', targetFieldSlugs: ['details'] }],
        },
      ],
    });
    const text = JSON.stringify(res.body);
    for (const secret of ['secret-score', 'Internal', t.membershipId, t.user.email, 'hot', b.slug]) {
      expect(text).not.toContain(secret);
    }
  });

  test('follows the entry phase when phases are reordered', async () => {
    const b = await createBoard(t.api);
    await t.api.put(`/boards/${b.documentId}/phases/${b.phases[1].documentId}`, { data: { order: 0 } });
    const res = await anon.get(`/boards/${b.documentId}/public-form`);
    expect(res.body.phase.name).toBe('Proposal');
    expect(res.body.fields.map((f: any) => f.slug)).toEqual(['amount']);
  });

  test('also answers when sent with a token of another organization', async () => {
    const b = await createBoard(t.api);
    const other = await newTenant();
    expect((await other.api.get(`/boards/${b.documentId}/public-form`)).status).toBe(200);
  });

  test('an inactive, unknown or phaseless board is a 404', async () => {
    const b = await createBoard(t.api);
    await t.api.put(`/boards/${b.documentId}`, { data: { active: false } });
    const inactive = await anon.get(`/boards/${b.documentId}/public-form`);
    expect(inactive.status).toBe(404);
    expect(inactive.body.error.name).toBe('NotFoundError');
    expect((await anon.get('/boards/abcdefghijklmnopqrstuvwx/public-form')).status).toBe(404);
    const empty = await createBoard(t.api, { phases: [] });
    expect((await anon.get(`/boards/${empty.documentId}/public-form`)).status).toBe(404);
    await t.api.put(`/boards/${b.documentId}`, { data: { active: true } });
    expect((await anon.get(`/boards/${b.documentId}/public-form`)).status).toBe(200);
  });

  test('the board itself still needs a token and a tenant header', async () => {
    const b = await createBoard(t.api);
    expect((await anon.get(`/boards/${b.documentId}`)).status).toBe(401);
    expect((await anon.get(`/boards/${b.documentId}/phases`)).status).toBe(401);
    expect((await t.userApi.get(`/boards/${b.documentId}`)).status).toBe(400);
  });
});
