import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_MESSAGE_LIMIT } from '../../src/mcp/confirmation.js';
import { loadMcpConfig } from '../../src/mcp/main.js';
import {
  BIN,
  call,
  childEnv,
  connectHttp,
  connectStdio,
  decide,
  type Elicit,
  mcpEnv,
  newOrg,
  type Org,
  read,
  runToExit,
  type Service,
  startHttpMcp,
  startService,
  stopChild,
  toolError,
} from './harness.js';
import { OPEN_WORLD, READ_TOOLS, TOOL_NAMES } from './tool-names.js';

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

describe('configuration of HTTP mode (issue 30)', () => {
  const BEARER = 'b'.repeat(40);

  it('a single-user server refuses to listen off loopback without a bearer of its own: exit 2, saying why', async () => {
    for (const host of ['192.0.2.10', 'crm.example']) {
      const res = await runToExit({
        ...mcpEnv(service, org),
        MCP_CRM_HTTP_PORT: '0',
        MCP_CRM_HTTP_HOST: host,
      });
      expect(res.code, res.stderr).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain(`MCP_CRM_HTTP_HOST ${host} is not a loopback address`);
      expect(res.stderr).toContain('MCP_CRM_HTTP_BEARER');
    }
    // All interfaces, checked in process (a test never listens there).
    for (const host of ['0.0.0.0', '::', '10.0.0.5'])
      expect(() =>
        loadMcpConfig({ ...mcpEnv(service, org), MCP_CRM_HTTP_PORT: '0', MCP_CRM_HTTP_HOST: host }),
      ).toThrow(/not a loopback address.*MCP_CRM_HTTP_BEARER/s);
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost'])
      expect(
        loadMcpConfig({ ...mcpEnv(service, org), MCP_CRM_HTTP_PORT: '0', MCP_CRM_HTTP_HOST: host })
          .MCP_CRM_HTTP_HOST,
      ).toBe(host);
    // With a bearer, or multi-user (no server token: every client brings its own), any address.
    expect(
      loadMcpConfig({
        ...mcpEnv(service, org),
        MCP_CRM_HTTP_PORT: '0',
        MCP_CRM_HTTP_HOST: '0.0.0.0',
        MCP_CRM_HTTP_BEARER: BEARER,
      }).MCP_CRM_HTTP_BEARER,
    ).toBe(BEARER);
    expect(
      loadMcpConfig({ MCP_CRM_API_URL: service.url, MCP_CRM_HTTP_PORT: '0', MCP_CRM_HTTP_HOST: '0.0.0.0' })
        .MCP_CRM_HTTP_HOST,
    ).toBe('0.0.0.0');
  });

  it('a bearer must be long, belongs to a single-user server, and allowed hosts must be host names', async () => {
    const short = await runToExit({
      ...mcpEnv(service, org),
      MCP_CRM_HTTP_PORT: '0',
      MCP_CRM_HTTP_BEARER: 'secret',
    });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/MCP_CRM_HTTP_BEARER must be at least 32 characters/);
    expect(() =>
      loadMcpConfig({ MCP_CRM_API_URL: service.url, MCP_CRM_HTTP_PORT: '0', MCP_CRM_HTTP_BEARER: BEARER }),
    ).toThrow(/MCP_CRM_HTTP_BEARER protects a single-user server/);
    expect(() =>
      loadMcpConfig({ ...mcpEnv(service, org), MCP_CRM_ALLOWED_HOSTS: 'ok.example, bad/path' }),
    ).toThrow(/MCP_CRM_ALLOWED_HOSTS.*bad\/path is not a host name/);
    expect(
      loadMcpConfig({
        ...mcpEnv(service, org),
        MCP_CRM_ALLOWED_HOSTS: 'Crm.Example:8443, https://mcp.example.com/',
      }).MCP_CRM_ALLOWED_HOSTS,
    ).toEqual(['crm.example', 'mcp.example.com']);
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
      expect(tool.annotations?.openWorldHint, tool.name).toBe(OPEN_WORLD.has(tool.name));
      if (read) expect(tool.inputSchema.properties).not.toHaveProperty('confirmationToken');
      else expect(tool.inputSchema.properties).toHaveProperty('confirmationToken');
    }
  });

  it('names itself with the software version of package.json (the contract version stays in the OpenAPI document)', () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'));
    expect(stdio.getServerVersion()).toEqual({ name: 'crm', version });
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

  it('serves crm_ names instead with MCP_CRM_TOOL_SEPARATOR=_, in descriptions, instructions and messages too', async () => {
    const client = await connectStdio(mcpEnv(service, org, { MCP_CRM_TOOL_SEPARATOR: '_' }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        TOOL_NAMES.map((n) => n.replace('crm.', 'crm_')).sort(),
      );
      expect(JSON.stringify(tools)).not.toMatch(/crm\.[a-z]/);
      expect(client.getInstructions()).not.toMatch(/crm\.[a-z]/);
      const res = await read(client, 'crm_list_product_categories');
      expect(res.data).toEqual([]);
      const preview = await call(client, 'crm_create_product_category', { name: 'Sep' });
      expect(preview.structuredContent!.message).toContain('call crm_create_product_category again');
      expect(preview.structuredContent!.preview).toMatchObject({ tool: 'crm_create_product_category' });
    } finally {
      await client.close();
    }
  });

  it('MCP_CRM_TOOL_GROUPS serves only the chosen groups; an unknown group is a configuration error', async () => {
    const client = await connectStdio(mcpEnv(service, org, { MCP_CRM_TOOL_GROUPS: 'products,tasks' }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('crm.list_products');
      expect(names).toContain('crm.list_tasks');
      expect(names).not.toContain('crm.search_contacts');
      const res = await call(client, 'crm.search_contacts', {});
      expect(res.isError).toBe(true);
    } catch (err) {
      // The SDK client may throw the protocol error for an unknown tool instead of returning it.
      expect(String(err)).toMatch(/Unknown tool crm.search_contacts/);
    } finally {
      await client.close();
    }
    const bad = await runToExit({ ...mcpEnv(service, org), MCP_CRM_TOOL_GROUPS: 'products,crm' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/MCP_CRM_TOOL_GROUPS.*contacts, boards/);
  });
});

describe('input errors', () => {
  it('refuses unknown arguments by name, in the service error shape, before asking anyone', async () => {
    const res = await call(stdio, 'crm.create_product_category', { name: 'X', colour: 'red' });
    expect(res.isError).toBe(true);
    const err = toolError(res);
    expect(err).toMatchObject({ status: 400, name: 'ValidationError' });
    expect(err.message).toMatch(/unknown argument\(s\) colour .*takes name/);
    expect(err.details.errors[0]).toMatchObject({ unknown: ['colour'] });
  });

  it('a wrong type names the field to fix', async () => {
    const res = await call(stdio, 'crm.list_products', { pageSize: 'ten' });
    const err = toolError(res);
    expect(err).toMatchObject({ status: 400, name: 'ValidationError' });
    expect(err.details.errors[0].path).toEqual(['pageSize']);
    expect(err.message).toMatch(/pageSize/);
  });
});

describe('confirmation by a person in the web application (client without elicitation)', () => {
  const args = () => ({ name: `Cat ${Math.random().toString(36).slice(2, 8)}` });
  const names = async () => (await org.call('GET', '/product-categories')).body.data.map((c: any) => c.name);

  it('a write changes nothing and returns the approval page of the web application and a token', async () => {
    const a = args();
    const res = await call(stdio, 'crm.create_product_category', a);
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      status: 'confirmation_required',
      preview: { tool: 'crm.create_product_category', arguments: a },
    });
    const { confirmationToken, confirmationUrl } = res.structuredContent!;
    expect(confirmationUrl).toBe(`${service.url}/app/confirm/${confirmationToken}?org=${org.slug}`);
    expect(res.structuredContent!.message).toContain(confirmationUrl);
    expect(await names()).not.toContain(a.name);
  });

  it('a model-side script cannot complete the write: not with the token, not by approving with the API token', async () => {
    const a = args();
    const { structuredContent: p } = await call(stdio, 'crm.create_product_category', a);
    const again = await call(stdio, 'crm.create_product_category', {
      ...a,
      confirmationToken: p!.confirmationToken,
    });
    expect(again.structuredContent).toMatchObject({
      status: 'confirmation_required',
      confirmationToken: p!.confirmationToken,
    });
    // The API token the tool server holds cannot approve: only the person's session can.
    const self = await org.call('POST', `/agent-confirmations/${p!.confirmationToken}/approve`);
    expect(self.status).toBe(403);
    const still = await call(stdio, 'crm.create_product_category', {
      ...a,
      confirmationToken: p!.confirmationToken,
    });
    expect(still.structuredContent!.status).toBe('confirmation_required');
    expect(await names()).not.toContain(a.name);
  });

  it('approved by the person: the next identical call completes once; reusing the token is refused', async () => {
    const a = args();
    const { structuredContent: p } = await call(stdio, 'crm.create_product_category', a);
    await decide(p!.confirmationUrl);
    const done = await call(stdio, 'crm.create_product_category', {
      ...a,
      confirmationToken: p!.confirmationToken,
    });
    expect(done.structuredContent).toMatchObject({ status: 'completed', result: { name: a.name } });
    // Renaming (a call that would succeed again): the spent approval does not confirm it twice.
    const rename = { categoryId: done.structuredContent!.result.documentId, name: `${a.name} renamed` };
    const { structuredContent: r } = await call(stdio, 'crm.update_product_category', rename);
    await decide(r!.confirmationUrl);
    const renamed = await call(stdio, 'crm.update_product_category', {
      ...rename,
      confirmationToken: r!.confirmationToken,
    });
    expect(renamed.structuredContent!.status).toBe('completed');
    const again = await call(stdio, 'crm.update_product_category', {
      ...rename,
      confirmationToken: r!.confirmationToken,
    });
    expect(toolError(again), JSON.stringify(again)).toMatchObject({ status: 403, name: 'ConfirmationError' });
    expect(toolError(again).message).toMatch(/already used/);
    expect((await names()).filter((n: string) => n.startsWith(a.name))).toEqual([`${a.name} renamed`]);
  });

  it('declined by the person: the call answers declined and nothing changes', async () => {
    const a = args();
    const { structuredContent: p } = await call(stdio, 'crm.create_product_category', a);
    await decide(p!.confirmationUrl, 'decline');
    const res = await call(stdio, 'crm.create_product_category', {
      ...a,
      confirmationToken: p!.confirmationToken,
    });
    expect(res.structuredContent!.status).toBe('declined');
    expect(await names()).not.toContain(a.name);
  });

  it('refuses an unknown token, and an approval for other arguments or another tool', async () => {
    const a = args();
    const wrong = await call(stdio, 'crm.create_product_category', {
      ...a,
      confirmationToken: 'abc.123.def',
    });
    expect(toolError(wrong)).toMatchObject({ status: 403, name: 'ConfirmationError' });
    const { structuredContent: p } = await call(stdio, 'crm.create_product_category', a);
    await decide(p!.confirmationUrl);
    const other = await call(stdio, 'crm.create_product_category', {
      name: `${a.name}x`,
      confirmationToken: p!.confirmationToken,
    });
    expect(toolError(other).message).toMatch(/other arguments/);
    const cat = await org.call('POST', '/product-categories', { data: { name: `${a.name}-victim` } });
    const otherTool = await call(stdio, 'crm.delete_product_category', {
      categoryId: cat.body.documentId,
      confirmationToken: p!.confirmationToken,
    });
    expect(toolError(otherTool).name).toBe('ConfirmationError');
    expect(await names()).toContain(`${a.name}-victim`);
    expect(await names()).not.toContain(a.name);
  });

  it('refuses an expired request', async () => {
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

  it('a request survives a restart of the tool server', async () => {
    const a = args();
    const first = await connectStdio(mcpEnv(service, org));
    const { structuredContent: p } = await call(first, 'crm.create_product_category', a);
    await first.close();
    await decide(p!.confirmationUrl);
    const second = await connectStdio(mcpEnv(service, org));
    try {
      const done = await call(second, 'crm.create_product_category', {
        ...a,
        confirmationToken: p!.confirmationToken,
      });
      expect(done.structuredContent).toMatchObject({ status: 'completed', result: { name: a.name } });
    } finally {
      await second.close();
    }
  });

  it("a call that would fail is never put to the person: the service's error comes back at once", async () => {
    const missing = await call(stdio, 'crm.delete_product_category', {
      categoryId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
    });
    expect(toolError(missing)).toMatchObject({ status: 404 });
    const dup = (await org.call('POST', '/product-categories', { data: { name: `Dup ${Date.now()}` } })).body;
    const conflict = await call(stdio, 'crm.create_product_category', { name: dup.name });
    expect(toolError(conflict).status).toBe(400);
  });

  it('previews name the records the call touches', async () => {
    const cat = (await org.call('POST', '/product-categories', { data: { name: `Named ${Date.now()}` } }))
      .body;
    const res = await call(stdio, 'crm.delete_product_category', { categoryId: cat.documentId });
    expect(res.structuredContent!.status).toBe('confirmation_required');
    expect(res.structuredContent!.preview.summary).toContain(`"${cat.name}"`);
    expect(await names()).toContain(cat.name);
  });

  it('an operator may waive confirmation for a trusted headless deployment, and the instructions say so', async () => {
    const client = await connectStdio(mcpEnv(service, org, { MCP_CRM_CONFIRMATION: 'none' }));
    try {
      expect(client.getInstructions()).toMatch(/waived/);
      const a = args();
      const res = await call(client, 'crm.create_product_category', a);
      expect(res.structuredContent).toMatchObject({ status: 'completed', result: { name: a.name } });
      expect(
        toolError(
          await call(client, 'crm.delete_product_category', { categoryId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }),
        ).status,
      ).toBe(404);
    } finally {
      await client.close();
    }
    expect(stdio.getInstructions()).not.toMatch(/waived/);
  });

  it('reads never ask', async () => {
    const res = await call(stdio, 'crm.list_product_categories', {});
    expect(res.structuredContent).toHaveProperty('data');
  });
});

describe('confirmation through URL elicitation', () => {
  it('the client opens the approval page; the call waits for the person and completes after approval', async () => {
    const opened: string[] = [];
    const client = new Client(
      { name: 'url-client', version: '1.0.0' },
      { capabilities: { elicitation: { url: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const params = req.params as { mode?: string; url?: string };
      expect(params.mode).toBe('url');
      opened.push(params.url!);
      // The person approves in the browser a moment later.
      setTimeout(() => void decide(params.url!), 300);
      return { action: 'accept' };
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN],
        env: childEnv(mcpEnv(service, org)),
        stderr: 'pipe',
      }),
    );
    try {
      await client.listTools();
      const name = `Url ${Date.now()}`;
      const res = await call(client, 'crm.create_product_category', { name });
      expect(res.structuredContent).toMatchObject({ status: 'completed', result: { name } });
      expect(opened).toHaveLength(1);
      expect(opened[0]).toMatch(new RegExp(`/app/confirm/\\w+\\?org=${org.slug}$`));
    } finally {
      await client.close();
    }
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

  it('a call that would fail is never put to the person (bad price, unknown record)', async () => {
    await withAnswer('accept', async (client, asked) => {
      const missing = await call(client, 'crm.delete_product', { productId: 'aaaaaaaaaaaaaaaaaaaaaaaa' });
      expect(toolError(missing).status).toBe(404);
      const price = await call(client, 'crm.create_product', { name: `P ${Date.now()}`, price: -5 });
      expect(toolError(price).status).toBe(400);
      expect(asked).toEqual([]);
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

  it('a text too long for a form goes to the approval page, which shows it whole (issue 30)', async () => {
    const html = `<p>${'Newsletter body. '.repeat(1_200)}<a href="https://end.example/">end</a></p>`;
    expect(html.length).toBeGreaterThan(FORM_MESSAGE_LIMIT);
    const args = { name: `Long ${Date.now()}`, subject: 'Long', html };
    // A form-only client: never a cut prompt; the link and token instead.
    await withAnswer('accept', async (client, asked) => {
      const res = await call(client, 'crm.create_email_template', args);
      expect(res.structuredContent?.status).toBe('confirmation_required');
      expect(asked).toEqual([]);
      expect(res.structuredContent!.preview.arguments.html).toBe(html);
    });
    // A client that offers both: URL elicitation to the approval page, whose request holds the whole HTML.
    const modes: string[] = [];
    const client = new Client(
      { name: 'both-client', version: '1.0.0' },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const params = req.params as { mode?: string; url?: string };
      modes.push(params.mode ?? 'form');
      if (params.mode === 'url') {
        const id = /\/confirm\/([^?]+)/.exec(params.url!)![1];
        const stored = await org.call('GET', `/agent-confirmations/${id}`);
        expect(stored.body.arguments.html).toBe(html);
        setTimeout(() => void decide(params.url!), 200);
      }
      return { action: 'accept', content: {} };
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN],
        env: childEnv(mcpEnv(service, org)),
        stderr: 'pipe',
      }),
    );
    try {
      await client.listTools();
      const done = await call(client, 'crm.create_email_template', { ...args, name: `${args.name} 2` });
      expect(done.structuredContent, JSON.stringify(done.content)).toMatchObject({ status: 'completed' });
      expect(modes).toEqual(['url']);
      // A short call still asks in the form.
      const small = await call(client, 'crm.create_product_category', { name: `Both ${Date.now()}` });
      expect(small.structuredContent?.status).toBe('completed');
      expect(modes).toEqual(['url', 'form']);
    } finally {
      await client.close();
    }
  });

  it('reads never ask', async () => {
    await withAnswer('decline', async (client, asked) => {
      await read(client, 'crm.list_product_categories');
      expect(asked).toHaveLength(0);
    });
  });
});

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

/** A request with any Host header (fetch cannot set Host): status, headers and body text. */
function rawRequest(
  url: string,
  {
    method = 'GET',
    host,
    headers = {},
    body,
  }: { method?: string; host?: string; headers?: Record<string, string>; body?: string },
) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const req = request(
        url,
        {
          method,
          headers: {
            ...(host ? { host } : {}),
            ...(body
              ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
              : {}),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

/** POSTs an initialize request with a forged Host header. */
async function postWithHost(url: string, host: string) {
  return (await rawRequest(url, { method: 'POST', host, body: INITIALIZE })).status;
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

  it('one server for many users: each session brings its own token and organization (protected resource)', async () => {
    const orgB = await newOrg(service);
    await org.call('POST', '/product-categories', { data: { name: 'Only A' } });
    await orgB.call('POST', '/product-categories', { data: { name: 'Only B' } });
    const { MCP_CRM_TENANT_ID: _t, MCP_CRM_USER_TOKEN: _u, ...shared } = mcpEnv(service, org);
    const http = await startHttpMcp(shared);
    try {
      const anonymous = await fetch(`${http.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
      });
      expect(anonymous.status).toBe(401);
      const challenge = anonymous.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(
        /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"/,
      );
      const prm = await fetch(/resource_metadata="([^"]+)"/.exec(challenge)![1]);
      expect(prm.status).toBe(200);
      expect(await prm.json()).toMatchObject({
        resource: `${http.url}/mcp`,
        bearer_methods_supported: ['header'],
        authorization_servers: [service.url],
      });

      const asA = await connectHttp(http.url, undefined, {
        authorization: `Bearer ${org.token}`,
        'x-tenant-id': org.slug,
      });
      const asB = await connectHttp(http.url, undefined, {
        authorization: `Bearer ${orgB.token}`,
        'x-tenant-id': orgB.slug,
      });
      const namesA = (await read(asA, 'crm.list_product_categories')).data.map((c: any) => c.name);
      const namesB = (await read(asB, 'crm.list_product_categories')).data.map((c: any) => c.name);
      expect(namesA).toContain('Only A');
      expect(namesA).not.toContain('Only B');
      expect(namesB).toEqual(['Only B']);
      // A confirmation token issued to B does not confirm the same call for A.
      const previewB = await call(asB, 'crm.create_product_category', { name: 'Shared name' });
      const crossed = await call(asA, 'crm.create_product_category', {
        name: 'Shared name',
        confirmationToken: previewB.structuredContent!.confirmationToken,
      });
      expect(toolError(crossed)).toMatchObject({ status: 403, name: 'ConfirmationError' });
      await asA.close();
      await asB.close();

      await expect(
        connectHttp(http.url, undefined, { authorization: 'Bearer crm_pat_wrong', 'x-tenant-id': org.slug }),
      ).rejects.toThrow();
    } finally {
      await http.stop();
    }
  });

  it('refuses a foreign Origin with 403 and accepts its own', async () => {
    const http = await startHttpMcp(mcpEnv(service, org));
    try {
      const post = (origin: string) =>
        fetch(`${http.url}/mcp`, {
          method: 'POST',
          headers: {
            origin,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 't', version: '1' },
            },
          }),
        });
      expect((await post('https://evil.example')).status).toBe(403);
      expect((await post(http.url)).status).toBe(200);
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

describe('HTTP mode: bearer, Host, health (issue 30)', () => {
  const BEARER = `bearer-${'k'.repeat(40)}`;

  it('single-user mode with MCP_CRM_HTTP_BEARER: 401 without it (an API token is not it), the tools with it', async () => {
    const http = await startHttpMcp(mcpEnv(service, org, { MCP_CRM_HTTP_BEARER: BEARER }));
    try {
      const anonymous = await rawRequest(`${http.url}/mcp`, { method: 'POST', body: INITIALIZE });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="crm-mcp"');
      expect(anonymous.text).toContain('MCP_CRM_HTTP_BEARER');
      for (const authorization of [`Bearer ${BEARER}x`, `Bearer ${org.token}`, `Basic ${BEARER}`]) {
        const wrong = await rawRequest(`${http.url}/mcp`, {
          method: 'POST',
          body: INITIALIZE,
          headers: { authorization, 'x-tenant-id': org.slug },
        });
        expect(wrong.status, authorization).toBe(401);
        expect(wrong.headers['www-authenticate']).toBe('Bearer realm="crm-mcp", error="invalid_token"');
      }
      // The SDK client without the bearer cannot connect, so it cannot approve anything either.
      await expect(connectHttp(http.url, () => 'accept')).rejects.toThrow();

      const asked: string[] = [];
      const client = await connectHttp(
        http.url,
        (m) => {
          asked.push(m);
          return 'accept';
        },
        { authorization: `Bearer ${BEARER}` },
      );
      try {
        const name = `Bearer ${Date.now()}`;
        const done = await call(client, 'crm.create_product_category', { name });
        expect(done.structuredContent).toMatchObject({ status: 'completed', result: { name } });
        expect(asked).toHaveLength(1);
      } finally {
        await client.close();
      }

      // /health: the user and organization only to the bearer's holder.
      const bare = await fetch(`${http.url}/health`);
      expect(bare.status).toBe(200);
      expect(await bare.json()).toEqual({ status: 'ok', api: 'ok' });
      const full = await fetch(`${http.url}/health`, { headers: { authorization: `Bearer ${BEARER}` } });
      expect(await full.json()).toMatchObject({
        status: 'ok',
        api: 'ok',
        tenant: org.slug,
        user: expect.any(String),
      });
    } finally {
      await http.stop();
    }
  });

  it('says at start which mode it runs in and which Host names it answers to', async () => {
    const child = spawn(process.execPath, [BIN], {
      env: childEnv({
        ...mcpEnv(service, org),
        MCP_CRM_HTTP_PORT: '0',
        MCP_CRM_ALLOWED_HOSTS: 'crm.internal',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const said = await new Promise<string>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (c: Buffer) => {
          err += c.toString();
          if (/Host must name.*\n/.test(err)) resolve(err);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      expect(said).toMatch(/single-user mode .*without MCP_CRM_HTTP_BEARER/);
      expect(said).toMatch(/Host must name localhost, 127\.0\.0\.1, \[::1\], crm\.internal/);
    } finally {
      await stopChild(child);
    }
  });

  it('Host is checked on every route: a DNS-rebinding page reads neither /health nor the metadata nor /mcp', async () => {
    const http = await startHttpMcp(mcpEnv(service, org));
    const port = new URL(http.url).port;
    try {
      for (const path of ['/health', '/.well-known/oauth-protected-resource', '/mcp', '/nope']) {
        const res = await rawRequest(`${http.url}${path}`, { host: `rebind.example:${port}` });
        expect(res.status, path).toBe(403);
        expect(res.text).toMatch(/Host rebind\.example:\d+ is not one of this server's names/);
        expect(res.text).not.toContain(org.slug);
        expect(res.text).not.toContain('rebind.example/mcp');
      }
      expect(await postWithHost(`${http.url}/mcp`, `rebind.example:${port}`)).toBe(403);
      // Its own names pass, whatever the port a proxy puts in the header.
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `[::1]:${port}`]) {
        const res = await rawRequest(`${http.url}/health`, { host });
        expect(res.status, host).toBe(200);
        expect(JSON.parse(res.text)).toMatchObject({ tenant: org.slug });
      }
      const prm = await rawRequest(`${http.url}/.well-known/oauth-protected-resource`, {
        host: `localhost:${port}`,
      });
      expect(JSON.parse(prm.text).resource).toBe(`http://localhost:${port}/mcp`);
    } finally {
      await http.stop();
    }
  });

  it('MCP_CRM_PUBLIC_URL and MCP_CRM_ALLOWED_HOSTS add names; the metadata names the public URL, never the Host', async () => {
    const http = await startHttpMcp(
      mcpEnv(service, org, {
        MCP_CRM_PUBLIC_URL: 'https://mcp.example.com',
        MCP_CRM_ALLOWED_HOSTS: 'crm.internal',
      }),
    );
    try {
      for (const host of ['mcp.example.com', 'crm.internal:8080']) {
        expect((await rawRequest(`${http.url}/health`, { host })).status, host).toBe(200);
        const prm = await rawRequest(`${http.url}/.well-known/oauth-protected-resource`, { host });
        expect(prm.status).toBe(200);
        expect(JSON.parse(prm.text).resource).toBe('https://mcp.example.com/mcp');
      }
      expect((await rawRequest(`${http.url}/health`, { host: 'evil.example' })).status).toBe(403);
      expect((await rawRequest(`${http.url}/health`, { host: 'mcp.example.com.evil.example' })).status).toBe(
        403,
      );
    } finally {
      await http.stop();
    }
  });

  it('multi-user /health answers 200 while the service is up (it probes /api/health), 503 when it is down', async () => {
    const { MCP_CRM_TENANT_ID: _t, MCP_CRM_USER_TOKEN: _u, ...shared } = mcpEnv(service, org);
    for (const apiUrl of [service.url, `${service.url}/api`]) {
      const http = await startHttpMcp({ ...shared, MCP_CRM_API_URL: apiUrl });
      try {
        const res = await fetch(`${http.url}/health`);
        const body = await res.json();
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(body).toEqual({ status: 'ok', api: 'ok', auth: 'per-session' });
        expect((await rawRequest(`${http.url}/health`, { host: 'rebind.example' })).status).toBe(403);
      } finally {
        await http.stop();
      }
    }
    const down = await startHttpMcp({ ...shared, MCP_CRM_API_URL: 'http://127.0.0.1:9' });
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
      // The write's dry run is refused like the reads: nobody is asked about a call that cannot succeed.
      const write = await call(client, 'crm.create_product_category', { name: 'A in B' });
      expect(toolError(write)).toMatchObject({ status: 403, name: 'ForbiddenError' });
      const bList = await orgB.call('GET', '/product-categories');
      expect(bList.body.data.map((c: any) => c.name)).toEqual(['B secret']);
    } finally {
      await client.close();
    }
  }, 120_000);
});
