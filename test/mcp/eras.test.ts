import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  connectHttp,
  connectStdio,
  decide,
  mcpEnv,
  newOrg,
  type Org,
  type Service,
  startHttpMcp,
  startService,
} from './harness.js';
import {
  type Action,
  callModern,
  connectModernHttp,
  connectModernStdio,
  type ModernOptions,
} from './modern-harness.js';

/**
 * Both protocol eras on one endpoint (issue 32 item 1): 2.x SDK clients speak the stateless 2026-07-28
 * revision (round trips for every confirmation), 1.x SDK clients the 2025 revisions (initialize, sessions,
 * pushed elicitation), against the same process, over HTTP and over stdio.
 */

let service: Service;
let org: Org;
let mcp: Awaited<ReturnType<typeof startHttpMcp>>;

beforeAll(async () => {
  service = await startService();
  org = await newOrg(service);
  mcp = await startHttpMcp(mcpEnv(service, org));
}, 60_000);

afterAll(async () => {
  await mcp?.stop();
  await service?.close();
});

/** A read tool of every group, with arguments it accepts in an empty organization. */
const READS: [string, Record<string, unknown>][] = [
  ['crm.search_contacts', {}],
  ['crm.list_boards', {}],
  ['crm.list_segments', {}],
  ['crm.list_tasks', {}],
  ['crm.list_products', {}],
  ['crm.list_templates', {}],
  ['crm.list_chat_channels', {}],
  ['crm.list_agenda_events', { start: '2026-01-01T00:00:00Z', end: '2026-02-01T00:00:00Z' }],
  ['crm.list_chat_inboxes', {}],
];

const categories = async () =>
  (
    (await org.call('GET', '/product-categories?pagination[pageSize]=100')).body.data as { name: string }[]
  ).map((c) => c.name);

let n = 0;
const fresh = (what: string) => `${what} ${Date.now()} ${n++}`;

describe.each(['http', 'stdio'] as const)('2026-07-28 (2.x client) over %s', (transport) => {
  const connect = (options: ModernOptions = {}) =>
    transport === 'http'
      ? connectModernHttp(mcp.url, options)
      : connectModernStdio(mcpEnv(service, org), options);

  it('negotiates the stateless revision; every group answers', async () => {
    const client = await connect();
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(83);
      for (const [name, args] of READS) {
        const res = await client.callTool({ name, arguments: args });
        expect(res.isError, `${name}: ${JSON.stringify(res.content)}`).toBeFalsy();
      }
    } finally {
      await client.close();
    }
  }, 60_000);

  it.each([
    ['accept', 'completed'],
    ['decline', 'declined'],
    ['cancel', 'cancelled'],
  ] as const)(
    'a write the person answers %s in the client: %s',
    async (action: Action, status) => {
      const asked: string[] = [];
      const client = await connect({
        elicit: (message) => {
          asked.push(message);
          return action;
        },
      });
      try {
        const name = fresh(`Era ${action}`);
        const res = await callModern(client, 'crm.create_product_category', { name });
        expect(res.status).toBe(status);
        expect(asked).toHaveLength(1);
        expect(asked[0]).toContain(name);
        expect((await categories()).includes(name)).toBe(action === 'accept');
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it('without elicitation: a link for the person and a token for the second call', async () => {
    const client = await connect();
    try {
      const name = fresh('Era link');
      const first = await callModern(client, 'crm.create_product_category', { name });
      expect(first.status).toBe('confirmation_required');
      await decide(first.confirmationUrl);
      const done = await callModern(client, 'crm.create_product_category', {
        name,
        confirmationToken: first.confirmationToken,
      });
      expect(done.status).toBe('completed');
      expect(await categories()).toContain(name);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('2026-07-28 with URL elicitation', () => {
  it.each([
    ['approve', 'completed'],
    ['decline', 'declined'],
  ] as const)(
    'the client opens the approval page; the person decides %s there',
    async (decision, status) => {
      const client = await connectModernHttp(mcp.url, {
        openUrl: async (url): Promise<Action> => {
          await decide(url, decision);
          return 'accept';
        },
      });
      try {
        const name = fresh(`Era url ${decision}`);
        const res = await callModern(client, 'crm.create_product_category', { name });
        expect(res.status).toBe(status);
        expect((await categories()).includes(name)).toBe(decision === 'approve');
      } finally {
        await client.close();
      }
    },
    60_000,
  );
});

describe('2025 era (1.x client) side by side on the same endpoint', () => {
  it.each([
    ['http', 'accept', 'completed'],
    ['http', 'decline', 'declined'],
    ['http', 'cancel', 'cancelled'],
    ['stdio', 'accept', 'completed'],
    ['stdio', 'decline', 'declined'],
    ['stdio', 'cancel', 'cancelled'],
  ] as const)(
    'over %s, answered %s: %s',
    async (transport, action, status) => {
      const elicit = () => action;
      const client =
        transport === 'http'
          ? await connectHttp(mcp.url, elicit)
          : await connectStdio(mcpEnv(service, org), elicit);
      const modern = await connectModernHttp(mcp.url);
      try {
        const name = fresh(`Legacy ${action}`);
        const res = await call(client, 'crm.create_product_category', { name });
        expect(res.structuredContent!.status).toBe(status);
        expect((await categories()).includes(name)).toBe(action === 'accept');
        // Meanwhile a stateless client is served by the same process.
        expect((await callModern(modern, 'crm.list_product_categories', {})).data.length).toBeGreaterThan(0);
      } finally {
        await client.close();
        await modern.close();
      }
    },
    60_000,
  );
});

describe('the 2026-07-28 wire, as a client without an SDK sends it', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const post = (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    fetch(`${mcp.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope } }),
    });

  it('server/discover names the revision; no session is opened', async () => {
    const res = await post('server/discover');
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const { result } = (await res.json()) as { result: Record<string, any> };
    expect(result.supportedVersions).toContain('2026-07-28');
    expect(result.serverInfo ?? result._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'crm',
    });
    expect(result.capabilities.tools).toBeDefined();
  });

  it('tools/list carries its cache hints: an hour, private (a list may depend on the token)', async () => {
    const res = await post('tools/list');
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as { result: Record<string, any> };
    expect(result).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'private' });
    expect(result.tools.length).toBeGreaterThanOrEqual(83);
  });

  it('tools/call names its tool in Mcp-Name; headers that contradict the body are refused', async () => {
    const ok = await post(
      'tools/call',
      { name: 'crm.list_boards', arguments: {} },
      { 'mcp-name': 'crm.list_boards' },
    );
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { result: { isError?: boolean } };
    expect(body.result.isError).toBeFalsy();
    const wrong = await post('tools/list', {}, { 'mcp-method': 'tools/call' });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    expect(wrong.status).toBeLessThan(500);
    expect(((await wrong.json()) as { error?: { code: number } }).error?.code).toBeTypeOf('number');
  });

  it('without credentials: 401 pointing to the protected-resource metadata, in this era too', async () => {
    const multi = await startHttpMcp({ PATH: process.env.PATH ?? '', MCP_CRM_API_URL: service.url });
    try {
      const res = await fetch(`${multi.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    } finally {
      await multi.stop();
    }
  }, 30_000);
});
