import { describe, expect, test } from 'vitest';
import type { FieldType } from '../../../src/modules/boards/table.js';
import { isEmptyValue, validateFieldValue } from '../../../src/modules/cards/field-values.js';

const options = ['red', { value: 'green', label: 'Green' }];
const docId = 'abcdefghijklmnopqrstuvwx';

/** type → [accepted input, normalised value][], rejected inputs[] */
const cases: Record<FieldType, { accept: [unknown, unknown][]; reject: unknown[] }> = {
  text: {
    accept: [
      ['hello', 'hello'],
      ['', ''],
    ],
    reject: [12, true, ['a'], 'x'.repeat(1001)],
  },
  textarea: { accept: [['line1\nline2', 'line1\nline2']], reject: [1, {}, 'x'.repeat(20_001)] },
  richtext: { accept: [['<p>Hi</p>', '<p>Hi</p>']], reject: [false, ['<p>']] },
  email: {
    accept: [
      ['ana@example.com', 'ana@example.com'],
      [' Bob.Smith+x@sub.example.co ', 'Bob.Smith+x@sub.example.co'],
    ],
    reject: ['not-an-email', 'a@b', 'a b@example.com', 42, 'a@-example.com'],
  },
  number: {
    accept: [
      [3, 3],
      [-2.5, -2.5],
      ['42', 42],
      ['0.75', 0.75],
    ],
    reject: ['abc', '', true, Number.NaN, Number.POSITIVE_INFINITY, '1e5', [1]],
  },
  date: {
    accept: [
      ['2025-02-28', '2025-02-28'],
      ['2024-02-29', '2024-02-29'],
    ],
    reject: ['2025-02-30', '2025-13-01', '31/01/2025', '2025-01-01T00:00:00Z', 20250101],
  },
  datetime: {
    accept: [
      ['2025-01-31T14:00:00Z', '2025-01-31T14:00:00.000Z'],
      ['2025-01-31T14:00-03:00', '2025-01-31T17:00:00.000Z'],
    ],
    reject: ['2025-01-31', '2025-01-31T14:00:00', 'tomorrow', '2025-02-30T10:00:00Z', 1700000000],
  },
  select: {
    accept: [
      ['red', 'red'],
      ['green', 'green'],
    ],
    reject: ['Green', 'blue', ['red'], 1],
  },
  multiselect: {
    accept: [
      [
        ['red', 'green'],
        ['red', 'green'],
      ],
      [['red', 'red'], ['red']],
      ['green', ['green']],
      [[], []],
    ],
    reject: [['red', 'blue'], 'blue', 5, [1]],
  },
  radio: { accept: [['red', 'red']], reject: ['purple', true] },
  switch: {
    accept: [
      [true, true],
      [false, false],
      ['true', true],
      ['false', false],
    ],
    reject: ['yes', 1, null],
  },
  checkbox: {
    accept: [
      [true, true],
      ['false', false],
    ],
    reject: ['on', 0],
  },
  file: {
    accept: [
      [docId, [docId]],
      [[docId, docId], [docId]],
      [{ documentId: docId, name: 'cv.pdf' }, [docId]],
    ],
    reject: [
      '../../etc/passwd',
      [],
      'ABC',
      { name: 'x' },
      Array(11)
        .fill(0)
        .map((_, i) => `${docId.slice(0, 22)}${i}a`),
    ],
  },
  url: {
    accept: [
      ['https://example.com/a?b=1', 'https://example.com/a?b=1'],
      ['http://localhost:8080', 'http://localhost:8080'],
    ],
    reject: ['example.com', 'javascript:alert(1)', 'ftp://example.com', 'https://', 5],
  },
  phone: {
    accept: [
      ['+55 (11) 98765-4321', '+5511987654321'],
      ['(11) 8765-4321', '+551187654321'],
      ['+1 415 555 0100', '+14155550100'],
    ],
    reject: ['12345', '555-1234', 'call me', '+1234567890123456', 5551234],
  },
  card_link: {
    accept: [
      [docId, docId],
      [[docId], [docId]],
    ],
    reject: ['not-a-card', 12, [], ['x']],
  },
  hidden: { accept: [['utm-abc', 'utm-abc']], reject: [1, 'x'.repeat(2001)] },
  statement: { accept: [], reject: ['anything', '', true] },
  time: {
    accept: [
      ['09:30', '09:30'],
      ['23:59:59', '23:59:59'],
    ],
    reject: ['24:00', '9:30', '12:60', '12:00 PM', 930],
  },
  currency: {
    accept: [
      [1234.56, 1234.56],
      ['99.90', 99.9],
      [0, 0],
      [-10, -10],
    ],
    reject: [1.234, 'R$ 10', 1e13, '', false],
  },
  document: {
    accept: [
      ['529.982.247-25', '52998224725'],
      ['52998224725', '52998224725'],
      ['11.222.333/0001-81', '11222333000181'],
      ['12.abc.345/01de-35', '12ABC34501DE35'],
    ],
    reject: ['529.982.247-26', '111.111.111-11', '11.222.333/0001-82', '123', 'abc', 52998224725],
  },
};

describe('field value validation, every type', () => {
  for (const [type, { accept, reject }] of Object.entries(cases) as [
    FieldType,
    (typeof cases)[FieldType],
  ][]) {
    for (const [input, expected] of accept) {
      test(`${type} accepts ${JSON.stringify(input)}`, () => {
        expect(validateFieldValue({ type, options }, input)).toEqual({ ok: true, value: expected });
      });
    }
    for (const input of reject) {
      test(`${type} rejects ${JSON.stringify(input)?.slice(0, 40)}`, () => {
        const res = validateFieldValue({ type, options }, input);
        expect(res.ok).toBe(false);
        if (!res.ok) expect(res.message).toMatch(/\w/);
      });
    }
  }

  test('select without options rejects everything and says so', () => {
    expect(validateFieldValue({ type: 'select', options: [] }, 'a')).toEqual({
      ok: false,
      message: 'must be one of: (no options defined)',
    });
  });
});

describe('emptiness', () => {
  test('what counts as empty for required-ness', () => {
    expect(isEmptyValue('text', '  ')).toBe(true);
    expect(isEmptyValue('multiselect', [])).toBe(true);
    expect(isEmptyValue('checkbox', false)).toBe(true);
    expect(isEmptyValue('switch', false)).toBe(false);
    expect(isEmptyValue('number', 0)).toBe(false);
    expect(isEmptyValue('text', undefined)).toBe(true);
  });
});
