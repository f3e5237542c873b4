import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, test } from 'vitest';
import {
  conditionPredicate,
  type SegmentNode,
  segmentPredicate,
} from '../../../src/modules/segments/compile.js';
import { AppError } from '../../../src/platform/http/errors.js';

const dialect = new PgDialect();
const render = (root: Parameters<typeof segmentPredicate>[1], graph = new Map<number, SegmentNode>()) =>
  dialect.sqlToQuery(segmentPredicate(7, root, graph));

describe('segment compiler', () => {
  test('values are bound parameters, never SQL text', () => {
    const evil = "x'); delete from contacts; --";
    const q = render({
      filters: {
        logic: 'OR',
        conditions: [
          { field: 'name', op: 'contains', value: evil },
          { kind: 'custom', slug: "k'); drop table contacts; --", op: 'eq', value: evil },
          { kind: 'relation', field: 'owner', op: 'eq', documentId: 'a'.repeat(24) },
        ],
      },
      required: [],
      excluded: [],
    });
    expect(q.sql).not.toContain('delete');
    expect(q.sql).not.toContain('drop');
    expect(q.params).toContain(`%x'); delete from contacts; --%`);
    expect(q.params).toContain("k'); drop table contacts; --");
    expect(q.sql).toMatch(/ or /);
  });

  test('linked segments are inlined into one expression; excluded ones negated NULL-safely', () => {
    const graph = new Map<number, SegmentNode>([
      [
        1,
        {
          id: 1,
          documentId: 'one',
          filters: { logic: 'AND', conditions: [{ field: 'city', op: 'eq', value: 'A' }] },
          required: [],
          excluded: [2],
        },
      ],
      [
        2,
        {
          id: 2,
          documentId: 'two',
          filters: { logic: 'AND', conditions: [{ field: 'email', op: 'empty' }] },
          required: [],
          excluded: [],
        },
      ],
    ]);
    const q = render(
      {
        filters: { logic: 'AND', conditions: [{ field: 'state', op: 'notEmpty' }] },
        required: [1],
        excluded: [],
      },
      graph,
    );
    expect(q.sql).toContain('not coalesce(');
    expect(q.sql.match(/"contacts"\."email"/g)?.length).toBeGreaterThan(0);
    expect(q.params).toEqual(['A']);
  });

  test('a cycle or an oversized expansion is refused', () => {
    const big = {
      logic: 'AND' as const,
      conditions: Array.from({ length: 50 }, () => ({ field: 'city', op: 'notEmpty' as const })),
    };
    const cyc = new Map<number, SegmentNode>([
      [1, { id: 1, documentId: 'one', filters: big, required: [2], excluded: [] }],
      [2, { id: 2, documentId: 'two', filters: big, required: [1], excluded: [] }],
    ]);
    expect(() => render({ filters: big, required: [1], excluded: [] }, cyc)).toThrow(/cycle/);
    const wide = new Map<number, SegmentNode>(
      Array.from({ length: 20 }, (_, i) => [
        i + 1,
        { id: i + 1, documentId: `s${i}`, filters: big, required: [], excluded: [] },
      ]),
    );
    expect(() => render({ filters: big, required: [...wide.keys()], excluded: [] }, wide)).toThrow(
      /more than 1000/,
    );
    expect(() =>
      render({ filters: big, required: [...wide.keys()].slice(0, 19), excluded: [] }, wide),
    ).not.toThrow();
  });

  test('a field named after an Object.prototype member is an unknown field, never a column', () => {
    // A stored condition bypasses the request schema: the compiler's own column map must not find
    // `constructor` (a function, spliced into SQL as text) through the prototype.
    for (const field of Object.getOwnPropertyNames(Object.prototype)) {
      let thrown: unknown;
      try {
        conditionPredicate(7, { field, op: 'eq', value: 'x' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown, field).toBeInstanceOf(AppError);
      expect((thrown as AppError).status).toBe(400);
    }
  });
});
