import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/mcp/api-client.js';
import { toolForRoute, withoutRoutes } from '../../src/mcp/tool-errors.js';
import { errorResult } from '../../src/mcp/tool-kit.js';
import { call, connectStdio, mcpEnv, newOrg, type Service, startService, toolError } from './harness.js';

/** Issue 32 item 4: errors a model can act on, in tools and arguments, never REST routes. */

const REST_ROUTE = /\b(GET|POST|PUT|PATCH|DELETE) \/|\/api\//;

describe('service messages told in tools', () => {
  it('the routes the service names become the tools that make them, or the web application', () => {
    const switched = withoutRoutes(
      'The conversation already has a card: switch it (POST /conversations/{id}/card/switch) instead',
    );
    expect(switched).toBe(
      'The conversation already has a card: switch it (crm.switch_conversation_card) instead',
    );
    const slug = withoutRoutes(
      '"sales" is not a documentId: the path takes the record\'s documentId (24 lowercase letters and digits), not its slug or name; GET /api/boards?filters[slug][$eq]=sales finds it',
    );
    expect(slug).toContain('crm.list_boards finds it');
    expect(slug).toContain('the argument takes');
    expect(withoutRoutes('no inbox 5 in this organization (GET /inboxes lists them)')).toBe(
      'no inbox 5 in this organization (crm.list_chat_inboxes lists them)',
    );
    expect(withoutRoutes('link one with PUT /boards/{boardId}/chat-channels.')).toBe(
      'link one with the CRM web application.',
    );
    for (const text of [switched, slug]) expect(text).not.toMatch(REST_ROUTE);
    expect(toolForRoute('GET', '/api/contacts/abcdefghijklmnopqrstuvwx')).toBe('crm.get_contact');
    expect(toolForRoute('DELETE', '/api/segments/{id}')).toBe('crm.delete_segment');
  });

  it('a tool error carries no REST route, in its message or its details, and names body fields as arguments', () => {
    const res = errorResult(
      new ApiError(400, 'ValidationError', 'data.email: Invalid email; see GET /api/contacts', {
        errors: [{ path: ['data', 'email'], message: 'Invalid email' }],
        hint: 'switch it (POST /conversations/{id}/card/switch)',
      }),
    );
    const text = res.content[0]?.type === 'text' ? res.content[0].text : '';
    expect(text).not.toMatch(REST_ROUTE);
    const { error } = JSON.parse(text);
    expect(error.message).toBe('email: Invalid email; see crm.search_contacts');
    expect(error.details.errors[0].path).toEqual(['email']);
    expect(error.details.hint).toContain('crm.switch_conversation_card');
  });
});

describe('identifiers of the wrong kind, over stdio', () => {
  let service: Service;
  let client: Client;

  beforeAll(async () => {
    service = await startService();
    const org = await newOrg(service);
    client = await connectStdio(mcpEnv(service, org));
  });

  afterAll(async () => {
    await client?.close();
    await service?.close();
  });

  const refused = async (name: string, args: Record<string, unknown>) => {
    const error = toolError(await call(client, name, args));
    expect(error).toMatchObject({ status: 400, name: 'ValidationError' });
    expect(error.message).not.toMatch(REST_ROUTE);
    return error.message as string;
  };

  it('a slug where a documentId goes says which kind is expected and which tool lists them', async () => {
    const message = await refused('crm.get_board_structure', { boardId: 'sales-pipeline' });
    expect(message).toContain('boardId');
    expect(message).toContain("board's documentId");
    expect(message).toContain('crm.list_boards lists them');
  });

  it('a number where a documentId goes says so, and names the tool that lists contacts', async () => {
    const message = await refused('crm.get_contact', { contactId: 42 });
    expect(message).toMatch(
      /contactId: takes the contact's documentId .*crm\.search_contacts lists them, not a number/,
    );
  });

  it('a documentId where a numeric id goes says a number is expected and which tool lists them', async () => {
    const message = await refused('crm.get_conversation', { conversationId: 'abcdefghijklmnopqrstuvwx' });
    expect(message).toMatch(
      /conversationId: takes the numeric conversation id \(see crm\.list_conversations\)/,
    );
  });

  it('numeric inbox and conversation ids given as digit strings are accepted (the service answers)', async () => {
    for (const [name, args] of [
      ['crm.get_chat_inbox', { inboxId: '987654' }],
      ['crm.get_conversation', { conversationId: '987654' }],
    ] as const) {
      const error = toolError(await call(client, name, args));
      // Past the input check: the service looked for it and found none.
      expect(error, name).toMatchObject({ status: 404, name: 'NotFoundError' });
    }
    const bad = await refused('crm.get_chat_inbox', { inboxId: '12abc' });
    expect(bad).toContain('inboxId');
  });
});
