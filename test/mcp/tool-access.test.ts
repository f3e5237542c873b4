import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/mcp/api-client.js';
import { allTools, buildServer, TOOL_GROUP_NAMES, type ToolGroup } from '../../src/mcp/build-server.js';
import { routeScopes, scopesOfTool } from '../../src/mcp/tool-access.js';
import { TOOL_ROUTES } from '../../src/mcp/tool-routes.js';
import { missingScopes, SCOPES } from '../../src/platform/auth/scopes.js';
import {
  call,
  connectHttp,
  connectStdio,
  mcpEnv,
  newOrg,
  type Org,
  read,
  type Service,
  startHttpMcp,
  startService,
  toolError,
} from './harness.js';
import { connectModernHttp } from './modern-harness.js';

/**
 * Issue 32 item 3: which tools a client is listed. MCP_CRM_READ_ONLY; lists narrowed to what the token's scopes
 * allow (the scopes each tool needs come from the service's OpenAPI document); calls to tools not listed refused
 * with a reason; the byte budgets of tools/list.
 */

let service: Service;
let org: Org;

beforeAll(async () => {
  service = await startService();
  org = await newOrg(service);
});

afterAll(async () => {
  await service?.close();
});

const FULL_BUDGET = 170_000;
const READ_ONLY_BUDGET = 60_000;

async function scopedToken(scopes: string[]) {
  const res = await fetch(`${service.url}/api/users/generate-token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.jwt}`, 'content-type': 'application/json' },
    body: JSON.stringify({ expiration: '1d', scopes }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

/** The tools (served names) a token with these scopes may use, from the service's own OpenAPI document. */
async function allowed(scopes: string[]) {
  const ops = await routeScopes(service.url);
  return allTools()
    .filter((t) => missingScopes(scopes, scopesOfTool(t.name, ops) ?? ['account:write']).length === 0)
    .map((t) => `crm.${t.name}`)
    .sort();
}

const namesOf = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
const bytesOf = async (client: Client) =>
  Buffer.byteLength(JSON.stringify({ tools: (await client.listTools()).tools }));

/** The REST operations a tool's source calls: the literals between its `name:` and the next top-level line. */
function operationsInSource() {
  const found = new Map<string, Set<string>>();
  const files = ['agenda', 'boards', 'contacts', 'inbox', 'messaging', 'products', 'segments', 'tasks'];
  for (const file of files) {
    const src = readFileSync(new URL(`../../src/mcp/tools/${file}.ts`, import.meta.url), 'utf8');
    const starts = [...src.matchAll(/name: '([a-z_]+)'/g)];
    starts.forEach((m, i) => {
      let block = src.slice(m.index, starts[i + 1]?.index ?? src.length);
      const topLevel = /\n\S/.exec(block);
      if (topLevel) block = block.slice(0, topLevel.index);
      const ops = [...block.matchAll(/api\.(GET|POST|PUT|PATCH|DELETE)\(\s*'([^']+)'/g)].map(
        (o) => `${o[1]} ${o[2]}`,
      );
      if (block.includes('checkPhaseAndTag(')) ops.push('GET /api/boards/{id}');
      found.set(m[1], new Set(ops));
    });
  }
  return found;
}

describe('what each tool needs', () => {
  it('every tool maps to the operations its source makes, each declared in the OpenAPI document with its scopes', async () => {
    const tools = allTools().map((t) => t.name);
    expect(tools).toHaveLength(85);
    expect(Object.keys(TOOL_ROUTES).sort()).toEqual([...tools].sort());
    const source = operationsInSource();
    for (const name of tools)
      expect([...(source.get(name) ?? [])].sort(), name).toEqual([...TOOL_ROUTES[name]].sort());
    const ops = await routeScopes(service.url);
    for (const name of tools) {
      const scopes = scopesOfTool(name, ops);
      expect(scopes, name).toBeDefined();
      expect(scopes!.length, name).toBeGreaterThan(0);
      for (const s of scopes!) expect(SCOPES, `${name}: ${s}`).toContain(s);
    }
    // A few that everyone relies on, as the OpenAPI document declares them.
    expect(scopesOfTool('search_contacts', ops)).toEqual(['contacts:read']);
    expect(scopesOfTool('create_contact', ops)).toEqual(['contacts:write']);
    expect(scopesOfTool('list_boards', ops)).toEqual(['boards:read']);
  });
});

describe('MCP_CRM_READ_ONLY=1', () => {
  it('lists only the read-only tools, within 60,000 bytes, with the BETA warnings; a write is refused and changes nothing', async () => {
    const client = await connectStdio(mcpEnv(service, org, { MCP_CRM_READ_ONLY: '1' }));
    try {
      const { tools } = await client.listTools();
      const expected = allTools()
        .filter((t) => t.annotations.readOnlyHint)
        .map((t) => `crm.${t.name}`)
        .sort();
      expect(tools.map((t) => t.name).sort()).toEqual(expected);
      expect(expected.length).toBeGreaterThan(40);
      for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      expect(tools.find((t) => t.name === 'crm.list_agenda_events')?.description).toContain('BETA');
      expect(await bytesOf(client)).toBeLessThanOrEqual(READ_ONLY_BUDGET);

      const before = await org.call('GET', '/contacts');
      const refused = toolError(await call(client, 'crm.create_contact', { name: 'Should not exist' }));
      expect(refused).toMatchObject({ status: 403, name: 'ForbiddenError' });
      expect(refused.message).toMatch(/crm\.create_contact changes data.*read-only \(MCP_CRM_READ_ONLY=1\)/);
      expect(refused.details).toMatchObject({ tool: 'crm.create_contact', reason: 'read-only' });
      expect((await org.call('GET', '/contacts')).body.meta.pagination.total).toBe(
        before.body.meta.pagination.total,
      );
      expect((await read(client, 'crm.search_contacts', {})).data).toBeDefined();
    } finally {
      await client.close();
    }
  });

  it('an invalid MCP_CRM_READ_ONLY is a configuration error', async () => {
    const { loadMcpConfig } = await import('../../src/mcp/main.js');
    expect(() => loadMcpConfig({ ...mcpEnv(service, org), MCP_CRM_READ_ONLY: 'yes' })).toThrow(
      /MCP_CRM_READ_ONLY must be '1'/,
    );
    expect(loadMcpConfig({ ...mcpEnv(service, org), MCP_CRM_READ_ONLY: '1' }).MCP_CRM_READ_ONLY).toBe(true);
    expect(loadMcpConfig(mcpEnv(service, org)).MCP_CRM_READ_ONLY).toBe(false);
  });
});

describe("lists narrowed to the token's scopes", () => {
  it('stdio: a contacts:read token is listed the read tools of contacts only; other tools are refused naming the scope', async () => {
    const token = await scopedToken(['contacts:read']);
    const client = await connectStdio(mcpEnv(service, { slug: org.slug, token }));
    try {
      const names = await namesOf(client);
      expect(names).toEqual(await allowed(['contacts:read']));
      // The read tools of contacts, and nothing of another area.
      expect(names).toEqual(['crm.get_contact', 'crm.get_contacts', 'crm.search_contacts']);
      expect(names).toEqual(
        expect.arrayContaining(['crm.search_contacts', 'crm.get_contact', 'crm.get_contacts']),
      );
      const writes = new Set(
        allTools()
          .filter((t) => t.kind === 'write')
          .map((t) => `crm.${t.name}`),
      );
      expect(names.filter((n) => writes.has(n))).toEqual([]);
      expect(names).not.toContain('crm.list_boards');
      expect((await read(client, 'crm.search_contacts', {})).data).toBeDefined();

      const write = toolError(await call(client, 'crm.create_contact', { name: 'Nope' }));
      expect(write).toMatchObject({ status: 403, name: 'ForbiddenError' });
      expect(write.message).toContain('crm.create_contact is not available to this client');
      expect(write.message).toContain('contacts:write');
      expect(write.details).toMatchObject({
        missingScopes: ['contacts:write'],
        tokenScopes: ['contacts:read'],
      });
      const boards = toolError(await call(client, 'crm.list_boards', {}));
      expect(boards.details.missingScopes).toEqual(['boards:read']);
    } finally {
      await client.close();
    }
  });

  it('HTTP: each session of one multi-user server is listed what its own token may do', async () => {
    const http = await startHttpMcp({ PATH: process.env.PATH ?? '', MCP_CRM_API_URL: service.url });
    const clients: Client[] = [];
    try {
      const session = async (scopes: string[]) => {
        const token = await scopedToken(scopes);
        const client = await connectHttp(http.url, undefined, {
          authorization: `Bearer ${token}`,
          'x-tenant-id': org.slug,
        });
        clients.push(client);
        return client;
      };
      const writer = await session(['contacts:write']);
      const tasks = await session(['tasks:read']);
      const writerNames = await namesOf(writer);
      expect(writerNames).toEqual(await allowed(['contacts:write']));
      expect(writerNames).toContain('crm.create_contact');
      expect(writerNames).not.toContain('crm.list_tasks');
      expect(await namesOf(tasks)).toEqual(await allowed(['tasks:read']));
      expect(await namesOf(tasks)).toContain('crm.list_tasks');
      const refused = toolError(await call(tasks, 'crm.create_task', { title: 'x' }));
      expect(refused.details.missingScopes).toEqual(['tasks:write']);
      expect((await read(tasks, 'crm.list_tasks', {})).data).toBeDefined();
    } finally {
      for (const c of clients) await c.close();
      await http.stop();
    }
  });

  it('the stateless 2026-07-28 era (2.x SDK client over HTTP): the same narrowed list, the same refusal', async () => {
    const http = await startHttpMcp({ PATH: process.env.PATH ?? '', MCP_CRM_API_URL: service.url });
    try {
      const token = await scopedToken(['contacts:read']);
      const client = await connectModernHttp(http.url, {
        headers: { authorization: `Bearer ${token}`, 'x-tenant-id': org.slug },
      });
      try {
        const names = (await client.listTools()).tools.map((t) => t.name).sort();
        expect(names).toEqual(['crm.get_contact', 'crm.get_contacts', 'crm.search_contacts']);
        const refused = (await client.callTool({
          name: 'crm.create_contact',
          arguments: { name: 'Nope' },
        })) as {
          isError?: boolean;
          content: { type: string; text?: string }[];
        };
        expect(refused.isError).toBe(true);
        expect(JSON.parse(refused.content[0].text ?? '{}').error.details.missingScopes).toEqual([
          'contacts:write',
        ]);
      } finally {
        await client.close();
      }
    } finally {
      await http.stop();
    }
  });

  it('a token with every read scope gets the default read-only set, within 60,000 bytes', async () => {
    const reads = SCOPES.filter((s) => s.endsWith(':read'));
    const token = await scopedToken(reads);
    const client = await connectStdio(mcpEnv(service, { slug: org.slug, token }));
    try {
      const names = await namesOf(client);
      expect(names).toEqual(await allowed(reads));
      expect(names.length).toBeGreaterThan(40);
      expect(await bytesOf(client)).toBeLessThanOrEqual(READ_ONLY_BUDGET);
    } finally {
      await client.close();
    }
  });
});

describe('tools/list byte budgets', () => {
  /** The listing of an option set, from a server in this process (a token of all the role's scopes). */
  async function listed(groups: readonly ToolGroup[] | undefined, separator: '.' | '_', readOnly: boolean) {
    const client = { baseUrl: service.url, tenant: org.slug, token: org.token };
    const env = {
      api: createApiClient(client),
      dryApi: createApiClient({ ...client, dryRun: true }),
      apiUrl: service.url,
      appUrl: `${service.url}/app`,
      confirmation: 'person' as const,
      confirmationTtlSeconds: 300,
    };
    const server = buildServer(env, { separator, groups, readOnly });
    const mcp = new Client({ name: 'budget', version: '1.0.0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), mcp.connect(b)]);
    try {
      const { tools } = await mcp.listTools();
      return { count: tools.length, bytes: Buffer.byteLength(JSON.stringify({ tools })) };
    } finally {
      await mcp.close();
    }
  }

  it('every set is at most 170,000 bytes; the read-only set at most 60,000', async () => {
    const sets: [string, ToolGroup[] | undefined][] = [
      ['all', undefined],
      ...TOOL_GROUP_NAMES.map((g): [string, ToolGroup[]] => [g, [g]]),
    ];
    for (const [label, groups] of sets)
      for (const separator of ['.', '_'] as const)
        for (const readOnly of [false, true]) {
          const { count, bytes } = await listed(groups, separator, readOnly);
          expect(count, label).toBeGreaterThan(0);
          expect(bytes, `${label} ${separator} ${readOnly}`).toBeLessThanOrEqual(
            readOnly ? READ_ONLY_BUDGET : FULL_BUDGET,
          );
        }
    expect((await listed(undefined, '.', false)).count).toBe(85);
  });
});
