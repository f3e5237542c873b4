import { describe, expect, test } from 'vitest';
import type { BoardStructure } from '../../../src/modules/boards/access.js';
import { hiddenFields } from '../../../src/modules/cards/conditions.js';
import { newTenant } from '../../helpers/app.js';
import { createCard, createPipeline, errorPaths } from './factory.js';

describe('field conditions waive required-ness of hidden fields', () => {
  test('a required entry field hidden by a rule is not required on create', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    const rule = await t.api.post(`/boards/${boardId}/field-conditions`, {
      data: {
        name: 'Small leads need no email',
        scope: 'board',
        criteria: [{ expressions: [{ fieldSlug: 'size', operator: 'eq', value: 'small' }] }],
        actionsWhenTrue: [{ type: 'hide', targetFieldSlugs: ['email'] }],
      },
    });
    expect(rule.status).toBe(201);
    const ok = await t.api.post(`/boards/${boardId}/cards`, {
      data: { fields: { name: 'A', size: 'small' } },
    });
    expect(ok.status).toBe(201);
    const bad = await t.api.post(`/boards/${boardId}/cards`, {
      data: { fields: { name: 'A', size: 'large' } },
    });
    expect(bad.status).toBe(400);
    expect(errorPaths(bad.body)).toEqual(['fields.email']);
  });

  test('"show when" hides the field otherwise, so leaving the phase does not need it', async () => {
    const t = await newTenant();
    const { boardId } = await createPipeline(t.api);
    await t.api.post(`/boards/${boardId}/field-conditions`, {
      data: {
        name: 'Budget only with seats',
        scope: 'board',
        criteria: [{ expressions: [{ fieldSlug: 'seats', operator: 'gt', value: 0 }] }],
        actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['budget'] }],
      },
    });
    const card = await createCard(t.api, boardId, { currentPhase: 'qualified' });
    expect(
      (await t.api.post(`/boards/${boardId}/cards/${card.documentId}/move`, { phase: 'won' })).status,
    ).toBe(200);
    const other = await createCard(t.api, boardId, { currentPhase: 'qualified' });
    await t.api.put(`/boards/${boardId}/cards/${other.documentId}`, { data: { fields: { seats: 3 } } });
    const blocked = await t.api.post(`/boards/${boardId}/cards/${other.documentId}/move`, { phase: 'won' });
    expect(blocked.status).toBe(422);
    expect(blocked.body.error.details.missingFields).toEqual(['budget']);
  });
});

describe('condition operators', () => {
  const field = (slug: string, type: string) => [slug, { documentId: `id-${slug}`, slug, type }] as const;
  const structure = {
    fieldsBySlug: new Map([
      field('n', 'number'),
      field('s', 'text'),
      field('m', 'multiselect'),
      field('t', 'text'),
    ]),
  } as unknown as BoardStructure;
  const hides = (expressions: any[], values: Record<string, unknown>) =>
    hiddenFields(
      structure,
      [
        {
          enabled: true,
          criteria: [{ operator: 'AND', expressions }],
          actionsWhenTrue: [{ type: 'hide', targetFieldSlugs: ['t'] }],
          actionsWhenFalse: [],
        },
      ],
      values,
    ).has('id-t');

  test.each([
    [[{ fieldSlug: 'n', operator: 'gte', value: 5 }], { 'id-n': 5 }, true],
    [[{ fieldSlug: 'n', operator: 'lt', value: 5 }], { 'id-n': 5 }, false],
    [[{ fieldSlug: 's', operator: 'contains', value: 'ACM' }], { 'id-s': 'acme' }, true],
    [[{ fieldSlug: 's', operator: 'notContains', value: 'x' }], { 'id-s': 'acme' }, true],
    [[{ fieldSlug: 'm', operator: 'contains', value: 'a' }], { 'id-m': ['a', 'b'] }, true],
    [[{ fieldSlug: 's', operator: 'in', value: ['x', 'acme'] }], { 'id-s': 'acme' }, true],
    [[{ fieldSlug: 's', operator: 'notIn', value: ['acme'] }], { 'id-s': 'acme' }, false],
    [[{ fieldSlug: 's', operator: 'empty' }], {}, true],
    [[{ fieldSlug: 's', operator: 'notEmpty' }], {}, false],
    [[{ fieldSlug: 's', operator: 'ne', value: 'a' }], { 'id-s': 'b' }, true],
    [
      [
        { fieldSlug: 's', operator: 'eq', value: 'a' },
        { fieldSlug: 'n', operator: 'eq', value: '1' },
      ],
      { 'id-s': 'a', 'id-n': 2 },
      false,
    ],
  ])('%j on %j → hidden %s', (expressions, values, expected) => {
    expect(hides(expressions, values)).toBe(expected);
  });

  test('disabled rules do nothing; an applied show wins over a hide', () => {
    const rules = [
      {
        enabled: false,
        criteria: [{ operator: 'AND' as const, expressions: [] }],
        actionsWhenTrue: [{ type: 'hide' as const, targetFieldSlugs: ['t'] }],
        actionsWhenFalse: [],
      },
    ];
    expect(hiddenFields(structure, rules, {}).size).toBe(0);
    const both = [
      {
        enabled: true,
        criteria: [{ operator: 'AND' as const, expressions: [] }],
        actionsWhenTrue: [{ type: 'hide' as const, targetFieldSlugs: ['t'] }],
        actionsWhenFalse: [],
      },
      {
        enabled: true,
        criteria: [{ operator: 'AND' as const, expressions: [] }],
        actionsWhenTrue: [{ type: 'show' as const, targetFieldSlugs: ['t'] }],
        actionsWhenFalse: [],
      },
    ];
    expect(hiddenFields(structure, both, {}).size).toBe(0);
  });
});
