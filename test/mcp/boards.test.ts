import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connect,
  fails,
  invalid,
  mcpEnv,
  newOrg,
  type Org,
  read,
  type Service,
  startService,
  type Transport,
  write,
} from './harness.js';

let service: Service;

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service?.close();
});

const missing = 'zzzzzzzzzzzzzzzzzzzzzzzz';
const leadFields = { 'full-name': 'Ana Souza', email: 'ana@example.com', consent: true };

describe.each<Transport>(['stdio', 'http'])(
  'board, card, analytics and template tools over %s',
  (transport) => {
    let org: Org;
    let client: Client;
    let close: () => Promise<void>;
    let boardId: string;

    beforeAll(async () => {
      org = await newOrg(service);
      const board = await org.call('POST', '/boards', { data: { name: 'Sales', template: 'sales-funnel' } });
      expect(board.status).toBe(201);
      boardId = board.body.documentId;
      ({ client, close } = await connect(transport, mcpEnv(service, org)));
    });
    afterAll(async () => {
      await close?.();
    });

    it('templates: list and get; unknown template is 404', async () => {
      const list = await read(client, 'crm.list_templates');
      expect(list.data.map((t: any) => t.id)).toContain('sales-funnel');
      const t = await read(client, 'crm.get_template', { templateId: 'sales-funnel' });
      expect(t.phases.map((p: any) => p.slug)).toContain('won');
      await fails(client, 'crm.get_template', { templateId: 'no-such-template' }, 404, 'NotFoundError');
      await invalid(client, 'crm.list_templates', { pageSize: 500 }, 'pageSize');
    });

    it('boards: list and structure; unknown board is 404', async () => {
      const list = await read(client, 'crm.list_boards', { search: 'sal' });
      expect(list.data).toHaveLength(1);
      expect(list.data[0]).toMatchObject({ documentId: boardId, name: 'Sales' });
      expect(list.data[0].phases.map((p: any) => p.slug)).toEqual([
        'new-lead',
        'qualification',
        'proposal',
        'negotiation',
        'won',
        'lost',
      ]);
      const structure = await read(client, 'crm.get_board_structure', { boardId });
      expect(structure.phases[0].fields.map((f: any) => f.slug)).toContain('full-name');
      expect(structure.tags.map((t: any) => t.slug)).toContain('hot');
      await fails(client, 'crm.get_board_structure', { boardId: missing }, 404, 'NotFoundError');
      await fails(client, 'crm.list_boards', { sort: 'secret:asc' }, 400, 'ValidationError');
    });

    it('cards: create, search, update, move; then the report and aggregates see them', async () => {
      const card = await write(client, 'crm.create_card', {
        boardId,
        title: 'Acme deal',
        value: 1500,
        fields: leadFields,
        tags: ['hot'],
      });
      expect(card).toMatchObject({ title: 'Acme deal', value: 1500, currentPhase: { slug: 'new-lead' } });
      expect(card.fields).toMatchObject(leadFields);
      await write(client, 'crm.create_card', { boardId, title: 'Beta deal', value: 500, fields: leadFields });

      const found = await read(client, 'crm.search_cards', { boardId, search: 'acme' });
      expect(found.data.map((c: any) => c.documentId)).toEqual([card.documentId]);
      const hot = await read(client, 'crm.search_cards', { boardId, tag: 'hot', phase: 'new-lead' });
      expect(hot.meta.pagination.total).toBe(1);
      expect(hot.meta.stats.valueSum).toBe(1500);
      const batch = await read(client, 'crm.get_cards', { boardId, cardIds: [card.documentId, 'nope'] });
      expect(batch.data.map((c: any) => c.title)).toEqual([card.title]);
      expect(batch.missing).toEqual(['nope']);
      // Records link to their page in the web application.
      expect(batch.data[0].link).toBe(`${service.url}/app/boards/${boardId}/cards/${card.documentId}`);
      expect(found.data[0].link).toBe(batch.data[0].link);
      const unknown = await fails(
        client,
        'crm.search_cards',
        { boardId, phase: 'nope', tag: 'freezing' },
        400,
      );
      expect(unknown.message).toMatch(/no phase nope on this board; phases: new-lead \(/);
      expect(unknown.message).toMatch(/no tag freezing on this board; tags: .*hot \(/);

      const updated = await write(client, 'crm.update_card', {
        boardId,
        cardId: card.documentId,
        value: 2000,
        fields: { budget: 2000 },
      });
      expect(updated.value).toBe(2000);
      const moved = await write(client, 'crm.move_card_phase', {
        boardId,
        cardId: card.documentId,
        phase: 'qualification',
      });
      expect(moved.currentPhase.slug).toBe('qualification');

      const report = await read(client, 'crm.get_board_report', { boardId });
      expect(report.summary.totalCards).toBe(2);
      expect(report.summary.totalValue).toBe(2500);
      const sum = await read(client, 'crm.aggregate_card_field', { boardId, fn: 'sum', groupBy: 'phase' });
      expect(sum.value).toBe(2500);
      expect(sum.groups.find((g: any) => g.label === 'Qualification')).toMatchObject({
        value: 2000,
        count: 1,
      });
      const count = await read(client, 'crm.aggregate_card_field', { boardId, tag: 'hot' });
      expect(count).toMatchObject({ fn: 'count', count: 1 });
    });

    it('cards: errors name what to fix', async () => {
      const card = await write(client, 'crm.create_card', { boardId, title: 'Gamma', fields: leadFields });
      // Won is blocked from the entry phase.
      const blocked = await fails(
        client,
        'crm.move_card_phase',
        { boardId, cardId: card.documentId, phase: 'won' },
        422,
        'UnprocessableEntityError',
      );
      expect(blocked.message).toBeTruthy();
      const badTag = await fails(
        client,
        'crm.create_card',
        { boardId, title: 'x', tags: ['no-such-tag'] },
        400,
      );
      expect(JSON.stringify(badTag)).toContain('no-such-tag');
      const badField = await fails(
        client,
        'crm.update_card',
        { boardId, cardId: card.documentId, fields: { budget: 'lots' } },
        400,
        'ValidationError',
      );
      expect(JSON.stringify(badField.details)).toContain('budget');
      await fails(client, 'crm.search_cards', { boardId: missing }, 404, 'NotFoundError');
      await fails(client, 'crm.update_card', { boardId, cardId: missing, title: 'x' }, 404, 'NotFoundError');
      await fails(client, 'crm.get_board_report', { boardId: missing }, 404, 'NotFoundError');
      const agg = await fails(
        client,
        'crm.aggregate_card_field',
        { boardId, fn: 'sum', field: 'full-name' },
        400,
      );
      expect(JSON.stringify(agg)).toContain('full-name');
    });
  },
);
