import { describe, expect, test } from 'vitest';
import { newTenant } from '../../helpers/app.js';
import { errorPaths } from './factory.js';

/** Phone-type card fields and contact phones share one rule (src/platform/phones.ts, libphonenumber-js). */
describe('phone numbers on cards and contacts', () => {
  test('a phone field accepts Brazilian national formats and stores E.164; contacts answer the same', async () => {
    const t = await newTenant();
    const board = await t.api.post('/boards', {
      data: {
        name: 'Leads',
        phases: [{ name: 'New', fields: [{ label: 'Telefone', slug: 'tel', type: 'phone' }] }],
      },
    });
    expect(board.status).toBe(201);
    const boardId = board.body.documentId;
    const cases: [string, string][] = [
      ['(11) 8765-4321', '+551187654321'],
      ['(11) 98765-4321', '+5511987654321'],
      ['11 3456-7890', '+551134567890'],
      ['011 98765-4321', '+5511987654321'],
      ['+55 (21) 2222-3333', '+552122223333'],
      ['+351 912 345 678', '+351912345678'],
      ['00351 912 345 678', '+351912345678'],
    ];
    for (const [input, e164] of cases) {
      const card = await t.api.post(`/boards/${boardId}/cards`, {
        data: { title: input, fields: { tel: input } },
      });
      expect(card.status, `${input}: ${JSON.stringify(card.body)}`).toBe(201);
      expect(card.body.fields.tel).toBe(e164);
      const contact = await t.api.post('/contacts', { data: { name: input, phone: input } });
      expect(contact.status, `${input}: ${JSON.stringify(contact.body)}`).toBe(201);
      expect(contact.body.phone).toBe(e164);
    }
    const updated = await t.api.put(
      `/boards/${boardId}/cards/${(await t.api.get(`/boards/${boardId}/cards`)).body.data[0].documentId}`,
      {
        data: { fields: { tel: '(11) 8765-4321' } },
      },
    );
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.fields.tel).toBe('+551187654321');
    // Filters read the value the same way: any written form finds the stored E.164.
    for (const q of ['(11) 8765-4321', '+551187654321', '11 8765 4321']) {
      const found = await t.api.get(`/boards/${boardId}/cards`, { 'filters[fields][tel][$eq]': q });
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      for (const c of found.body.data) expect(c.fields.tel).toBe('+551187654321');
      expect(found.body.data.length).toBeGreaterThan(0);
    }
  });

  test('an invalid phone is a 400 ValidationError naming the field and the expected form, on both', async () => {
    const t = await newTenant();
    const board = await t.api.post('/boards', {
      data: {
        name: 'Leads',
        phases: [{ name: 'New', fields: [{ label: 'Telefone', slug: 'tel', type: 'phone' }] }],
      },
    });
    const boardId = board.body.documentId;
    for (const bad of ['123', '(11) 123', 'call me', '+999 1234 5678', '555-1234', '+55 11 98765-43210']) {
      const card = await t.api.post(`/boards/${boardId}/cards`, {
        data: { title: 'x', fields: { tel: bad } },
      });
      expect(card.status, bad).toBe(400);
      expect(card.body.error.name).toBe('ValidationError');
      expect(errorPaths(card.body)).toEqual(['fields.tel']);
      expect(card.body.error.details.errors[0].message).toContain('(11) 98765-4321');
      const contact = await t.api.post('/contacts', { data: { name: 'x', phone: bad } });
      expect(contact.status, bad).toBe(400);
      expect(contact.body.error.name).toBe('ValidationError');
      expect(errorPaths(contact.body)).toEqual(['data.phone']);
      // The same rule answers both: the field's message is the contact's, prefixed with the field label.
      expect(card.body.error.details.errors[0].message).toContain(
        contact.body.error.details.errors[0].message,
      );
    }
  });
});
