import { describe, expect, test } from 'vitest';
import { getApp, newTenant } from '../../helpers/app.js';
import { errorPaths, multipart } from './factory.js';

const TYPES = [
  'text',
  'textarea',
  'richtext',
  'email',
  'number',
  'date',
  'datetime',
  'select',
  'multiselect',
  'radio',
  'switch',
  'file',
  'url',
  'phone',
  'card_link',
  'hidden',
  'statement',
  'time',
  'currency',
  'document',
  'checkbox',
] as const;

/** One board with a field of every type, and the extra fixtures file and card_link need. */
async function everyTypeBoard() {
  const t = await newTenant();
  const options = ['a', { value: 'b', label: 'Bee' }];
  const res = await t.api.post('/boards', {
    data: {
      name: 'All types',
      phases: [
        {
          name: 'Entry',
          fields: TYPES.map((type) => ({
            label: `F ${type}`,
            slug: type,
            type,
            ...(['select', 'multiselect', 'radio'].includes(type) ? { options } : {}),
          })),
        },
      ],
    },
  });
  expect(res.status).toBe(201);
  const boardId = res.body.documentId;
  const linked = await t.api.post(`/boards/${boardId}/cards`, { data: { title: 'Linked' } });
  const { app } = await getApp();
  const body = multipart('file', 'a.pdf', 'application/pdf', Buffer.from('%PDF-1.4 test'));
  const up = await app.inject({ method: 'POST', url: `/api/boards/${boardId}/public-upload`, ...body });
  return { t, boardId, cardId: linked.body.documentId as string, file: up.json() };
}

describe('every field type through the API', () => {
  test('accepts valid values (normalised) and rejects invalid ones with the field path', async () => {
    const { t, boardId, cardId, file } = await everyTypeBoard();
    const cases: Record<(typeof TYPES)[number], { ok: [unknown, unknown]; bad: unknown }> = {
      text: { ok: ['hello', 'hello'], bad: 42 },
      textarea: { ok: ['a\nb', 'a\nb'], bad: { x: 1 } },
      richtext: { ok: ['<b>x</b>', '<b>x</b>'], bad: false },
      email: { ok: [' ana@example.com ', 'ana@example.com'], bad: 'ana@' },
      number: { ok: ['12.5', 12.5], bad: 'twelve' },
      date: { ok: ['2025-02-28', '2025-02-28'], bad: '2025-02-30' },
      datetime: { ok: ['2025-01-31T14:00-03:00', '2025-01-31T17:00:00.000Z'], bad: '2025-01-31' },
      select: { ok: ['b', 'b'], bad: 'c' },
      multiselect: {
        ok: [
          ['a', 'b', 'a'],
          ['a', 'b'],
        ],
        bad: ['a', 'z'],
      },
      radio: { ok: ['a', 'a'], bad: 'Bee' },
      switch: { ok: ['false', false], bad: 'yes' },
      file: { ok: [file.documentId, [file]], bad: 'abcdefghijklmnopqrstuvwx' },
      url: { ok: ['https://example.com/x', 'https://example.com/x'], bad: 'javascript:alert(1)' },
      phone: { ok: ['(11) 8765-4321', '+551187654321'], bad: '123' },
      card_link: { ok: [cardId, cardId], bad: 'abcdefghijklmnopqrstuvwx' },
      hidden: { ok: ['campaign-7', 'campaign-7'], bad: 7 },
      statement: { ok: [undefined, undefined], bad: 'text' },
      time: { ok: ['08:15', '08:15'], bad: '25:00' },
      currency: { ok: [19.99, 19.99], bad: 19.999 },
      document: { ok: ['529.982.247-25', '52998224725'], bad: '529.982.247-26' },
      checkbox: { ok: [true, true], bad: 'on' },
    };
    for (const type of TYPES) {
      const { ok, bad } = cases[type];
      if (ok[0] !== undefined) {
        const res = await t.api.post(`/boards/${boardId}/cards`, {
          data: { title: type, fields: { [type]: ok[0] } },
        });
        expect(res.status, `${type} accepts ${JSON.stringify(ok[0])}: ${JSON.stringify(res.body)}`).toBe(201);
        expect(res.body.fields[type], type).toEqual(ok[1]);
      }
      const rej = await t.api.post(`/boards/${boardId}/cards`, {
        data: { title: type, fields: { [type]: bad } },
      });
      expect(rej.status, `${type} rejects ${JSON.stringify(bad)}`).toBe(400);
      expect(errorPaths(rej.body), type).toEqual([`fields.${type}`]);
    }
  });

  test('filters match typed values: numbers, booleans, dates, multiselect elements, card links', async () => {
    const { t, boardId, cardId } = await everyTypeBoard();
    const post = (title: string, fields: Record<string, unknown>) =>
      t.api.post(`/boards/${boardId}/cards`, { data: { title, fields } });
    await post('one', {
      number: 5,
      switch: true,
      date: '2025-01-10',
      multiselect: ['a', 'b'],
      card_link: cardId,
    });
    await post('two', { number: 50, switch: false, date: '2025-03-10', multiselect: ['b'] });
    const titles = async (q: Record<string, unknown>) => {
      const res = await t.api.get(`/boards/${boardId}/cards`, q);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((c: { title: string }) => c.title).sort();
    };
    expect(await titles({ 'filters[fields][number][$gt]': 10 })).toEqual(['two']);
    expect(await titles({ 'filters[fields][number][$eq]': '5' })).toEqual(['one']);
    expect(await titles({ 'filters[fields][switch]': 'false' })).toEqual(['two']);
    expect(await titles({ 'filters[fields][date][$lte]': '2025-02-01' })).toEqual(['one']);
    expect(await titles({ 'filters[fields][multiselect][$eq]': 'a' })).toEqual(['one']);
    expect(await titles({ 'filters[fields][multiselect]': 'b' })).toEqual(['one', 'two']);
    expect(await titles({ 'filters[fields][card_link][$eq]': cardId })).toEqual(['one']);
    expect(
      await titles({ 'filters[fieldData][field][slug]': 'number', 'filters[fieldData][value][val][$lt]': 6 }),
    ).toEqual(['one']);
    expect(await titles({ 'filters[fieldData][field][slug]': 'number' })).toEqual(['one', 'two']);
    expect(
      (await t.api.get(`/boards/${boardId}/cards`, { 'filters[fields][number][$eq]': 'x' })).status,
    ).toBe(400);
  });
});
