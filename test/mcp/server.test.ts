import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  connectHttp,
  connectStdio,
  type Elicit,
  mcpEnv,
  newOrg,
  type Org,
  read,
  runToExit,
  type Service,
  startHttpMcp,
  startService,
  toolError,
} from './harness.js';
import { READ_TOOLS, TOOL_NAMES } from './tool-names.js';

let service: Service;
let org: Org;
let stdio: Client;

beforeAll(async () => {
  service = await startService();
  org = await newOrg(service);
  stdio = await connectStdio(mcpEnv(service, org));
});

afterAll(async () => {
  await stdio?.close();
  await service?.close();
});

describe('configuration', () => {
  it('exits with 2 and a clear message on stderr when variables are missing, printing nothing on stdout', async () => {
    const res = await runToExit({ PATH: process.env.PATH ?? '' });
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('invalid configuration');
    for (const v of ['MCP_CRM_API_URL', 'MCP_CRM_TENANT_ID', 'MCP_CRM_USER_TOKEN'])
      expect(res.stderr).toContain(v);
  });

  it('exits with 2 on invalid values (URL, port, separator)', async () => {
    const res = await runToExit({
      ...mcpEnv(service, org),
      MCP_CRM_API_URL: 'not a url',
      MCP_CRM_HTTP_PORT: '70000',
      MCP_CRM_TOOL_SEPARATOR: '-',
    });
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/MCP_CRM_API_URL/);
    expect(res.stderr).toMatch(/MCP_CRM_HTTP_PORT/);
    expect(res.stderr).toMatch(/MCP_CRM_TOOL_SEPARATOR/);
  });
});

describe('tool listing (stdio)', () => {
  it('lists exactly the spec names, each with described inputs, an output schema and matching annotations', async () => {
    const { tools } = await stdio.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      for (const [field, schema] of Object.entries<any>(tool.inputSchema.properties ?? {}))
        expect(schema.description, `${tool.name}.${field} has no description`).toBeTruthy();
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      const read = READ_TOOLS.has(tool.name);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(read);
      expect(typeof tool.annotations?.destructiveHint).toBe('boolean');
      expect(typeof tool.annotations?.idempotentHint).toBe('boolean');
      expect(tool.annotations?.openWorldHint).toBe(false);
      if (read) expect(tool.inputSchema.properties).not.toHaveProperty('confirmationToken');
      else expect(tool.inputSchema.properties).toHaveProperty('confirmationToken');
    }
  });

  it('annotates deletes as destructive and creates as additive; segment tools teach the recommended order', async () => {
    const { tools } = await stdio.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const t of tools) {
      if (t.name.includes('.delete_'))
        expect(t.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
      if (t.name.includes('.create_'))
        expect(t.annotations).toMatchObject({ destructiveHint: false, idempotentHint: false });
    }
    for (const n of ['crm.get_segment_filter_options', 'crm.preview_segment', 'crm.create_segment'])
      expect(byName.get(n)?.description).toMatch(
        /get_segment_filter_options.*preview_segment.*create_segment/s,
      );
    const create = byName.get('crm.create_segment')!.inputSchema;
    expect(Object.keys(create.properties ?? {})).toEqual(
      expect.arrayContaining(['conditions', 'requiredSegments', 'excludedSegments']),
    );
    expect(create.required).toEqual(expect.arrayContaining(['name', 'conditions']));
    expect(byName.get('crm.get_contact')?.description).toMatch(/documentId/);
  });

  it('also serves crm_ names with MCP_CRM_TOOL_SEPARATOR=_', async () => {
    const client = await connectStdio(mcpEnv(service, org, { MCP_CRM_TOOL_SEPARATOR: '_' }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const n of TOOL_NAMES) {
        expect(names).toContain(n);
        expect(names).toContain(n.replace('crm.', 'crm_'));
      }
      const res = await read(client, 'crm_list_product_categories');
      expect(res.data).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('confirmation by token (client without elicitation)', () => {
  const args = () => ({ name: `Cat ${Math.random().toString(36).slice(2, 8)}` });

  it('a write without token changes nothing and returns a preview with a one-time token', async () => {
    const a = args();
    const res = await call(stdio, 'crm.create_product_category', a);
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      status: 'confirmation_required',
      preview: { tool: 'crm.create_product_category', arguments: a },
    });
    expect(res.structuredContent!.confirmationToken).toEqual(expect.any(String));
    const list = await org.call('GET', '/product-categories');
    expect(list.body.data.map((c: any) => c.name)).not.toContain(a.name);
  });

  it('the token performs the write once; reusing it is refused', async () => {
    const a = args();
    const { structuredContent: p } = await call(stdio, 'crm.create_product_category', a);
    const done = await call(stdio, 'crm.create_product_category', {
      ...a,
      confirmationToken: p!.confirmationToken,
    });
    expect(done.structuredContent).toMatchObject({ status: 'completed', result: { name: a.name } });
    const again = await call(stdio, 'crm.create_product_category', {
      ...a,
      confirmationToken: p!.confirmationToken,
    });
    expect(again.isError).toBe(true);
    expect(toolError(again)).toMatchObject({ status: 403, name: 'ConfirmationError' });
    expect(toolError(again).message).toMatch(/already used/);
    const list = await org.call('GET', '/product-categories', undefined);
    expect(list.body.data.filter((c: any) => c.name === a.name)).toHaveLength(1);
  });

  it('refuses a wrong token, and a token issued for other arguments or another tool', async () => {
    const a = args();
    const wrong = await call(stdio, 'crm.create_product_category', {
      ...a,
      confirmationToken: 'abc.123.def',
    });
    expect(toolError(wrong)).toMatchObject({ status: 403, name: 'ConfirmationError' });
    const { structuredContent: p } = await call(stdio, 'crm.create_product_category', a);
    const token = p!.confirmationToken;
    const other = await call(stdio, 'crm.create_product_category', {
      name: `${a.name}x`,
      confirmationToken: token,
    });
    expect(toolError(other).message).toMatch(/other arguments/);
    const otherTool = await call(stdio, 'crm.delete_product_category', {
      categoryId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      confirmationToken: token,
    });
    expect(toolError(otherTool).name).toBe('ConfirmationError');
    const list = await org.call('GET', '/product-categories');
    expect(list.body.data.map((c: any) => c.name)).not.toContain(a.name);
  });

  it('refuses an expired token', async () => {
    const client = await connectStdio(mcpEnv(service, org, { MCP_CRM_CONFIRMATION_TTL_SECONDS: '1' }));
    try {
      const a = args();
      const { structuredContent: p } = await call(client, 'crm.create_product_category', a);
      await new Promise((r) => setTimeout(r, 1100));
      const late = await call(client, 'crm.create_product_category', {
        ...a,
        confirmationToken: p!.confirmationToken,
      });
      expect(late.isError).toBe(true);
      expect(toolError(late).message).toMatch(/expired/);
    } finally {
      await client.close();
    }
  });

  it('reads never ask', async () => {
    const res = await call(stdio, 'crm.list_product_categories', {});
    expect(res.structuredContent).toHaveProperty('data');
  });
});

describe('confirmation by elicitation', () => {
  const withAnswer = async (
    answer: ReturnType<Elicit>,
    fn: (c: Client, asked: string[]) => Promise<void>,
  ) => {
    const asked: string[] = [];
    const client = await connectStdio(mcpEnv(service, org), (message) => {
      asked.push(message);
      return answer;
    });
    try {
      await fn(client, asked);
    } finally {
      await client.close();
    }
  };

  it('accepted: the person is asked once and the write happens', async () => {
    await withAnswer('accept', async (client, asked) => {
      const name = `Elicited ${Date.now()}`;
      const res = await call(client, 'crm.create_product_category', { name });
      expect(res.structuredContent).toMatchObject({ status: 'completed', result: { name } });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(name);
      expect(asked[0]).toContain('crm.create_product_category');
    });
  });

  it('declined or cancelled: nothing changes and the model is told not to retry', async () => {
    for (const answer of ['decline', 'cancel'] as const) {
      await withAnswer(answer, async (client) => {
        const name = `Refused ${answer} ${Date.now()}`;
        const res = await call(client, 'crm.create_product_category', { name });
        expect(res.isError).toBeFalsy();
        expect(res.structuredContent!.status).toBe(answer === 'decline' ? 'declined' : 'cancelled');
        const list = await org.call('GET', '/product-categories');
        expect(list.body.data.map((c: any) => c.name)).not.toContain(name);
      });
    }
  });

  it('reads never ask', async () => {
    await withAnswer('decline', async (client, asked) => {
      await read(client, 'crm.list_product_categories');
      expect(asked).toHaveLength(0);
    });
  });
});

/** POSTs an initialize request with a forged Host header (fetch cannot set Host). */
function postWithHost(url: string, host: string) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  return new Promise<number | undefined>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTP transport', () => {
  it('serves the same tools at /mcp, with elicitation, and reports /health', async () => {
    const http = await startHttpMcp(mcpEnv(service, org));
    try {
      const health = await fetch(`${http.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', api: 'ok', tenant: org.slug });

      const client = await connectHttp(http.url);
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual([...TOOL_NAMES].sort());
      const name = `Http ${Date.now()}`;
      const preview = await call(client, 'crm.create_product_category', { name });
      expect(preview.structuredContent!.status).toBe('confirmation_required');
      await client.close();

      const asked: string[] = [];
      const eliciting = await connectHttp(http.url, (m) => {
        asked.push(m);
        return 'accept';
      });
      const done = await call(eliciting, 'crm.create_product_category', { name });
      expect(done.structuredContent).toMatchObject({ status: 'completed', result: { name } });
      expect(asked).toHaveLength(1);
      await eliciting.close();

      expect((await fetch(`${http.url}/nope`)).status).toBe(404);
      expect(await postWithHost(`${http.url}/mcp`, 'evil.example')).toBe(403);
    } finally {
      await http.stop();
    }
  });

  it('/health is 503 when the token is rejected, the user is not in the tenant, or the service is down', async () => {
    const badToken = await startHttpMcp(mcpEnv(service, { slug: org.slug, token: 'crm_pat_invalid' }));
    try {
      const res = await fetch(`${badToken.url}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'error', api: 'unauthorized' });
    } finally {
      await badToken.stop();
    }
    const otherTenant = await startHttpMcp(mcpEnv(service, { slug: 'not-my-org', token: org.token }));
    try {
      const res = await fetch(`${otherTenant.url}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'error', api: 'ok', tenant: 'not-my-org' });
    } finally {
      await otherTenant.stop();
    }
    const down = await startHttpMcp({ ...mcpEnv(service, org), MCP_CRM_API_URL: 'http://127.0.0.1:9' });
    try {
      const res = await fetch(`${down.url}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'error', api: 'unreachable' });
    } finally {
      await down.stop();
    }
  });
});

describe('tenancy', () => {
  it("a token of organization A with B's slug gets a clear 403 tool error, never B's data", async () => {
    const orgB = await newOrg(service);
    const secret = await orgB.call('POST', '/product-categories', { data: { name: 'B secret' } });
    expect(secret.status).toBe(201);
    const client = await connectStdio(mcpEnv(service, { slug: orgB.slug, token: org.token }));
    try {
      const res = await call(client, 'crm.list_product_categories', {});
      expect(res.isError).toBe(true);
      expect(toolError(res)).toMatchObject({ status: 403, name: 'ForbiddenError' });
      expect(JSON.stringify(res)).not.toContain('B secret');
      const get = await call(client, 'crm.get_product_category', { categoryId: secret.body.documentId });
      expect(toolError(get).status).toBe(403);
      expect(JSON.stringify(get)).not.toContain('B secret');
      const reads = ['crm.search_contacts', 'crm.list_boards', 'crm.list_segments', 'crm.list_tasks'];
      for (const tool of [...reads, 'crm.get_segment_filter_options', 'crm.list_templates']) {
        const res = await call(client, tool, {});
        expect(toolError(res), tool).toMatchObject({ status: 403, name: 'ForbiddenError' });
      }
      const write = await call(client, 'crm.create_product_category', { name: 'A in B' });
      const token = write.structuredContent!.confirmationToken;
      const denied = await call(client, 'crm.create_product_category', {
        name: 'A in B',
        confirmationToken: token,
      });
      expect(toolError(denied).status).toBe(403);
      const bList = await orgB.call('GET', '/product-categories');
      expect(bList.body.data.map((c: any) => c.name)).toEqual(['B secret']);
    } finally {
      await client.close();
    }
  }, 120_000);
});
