import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { startServer } from '../../src/server.js';
import { testConfig, testDatabase, unique } from '../helpers/app.js';

export const BIN = fileURLToPath(new URL('../../bin/crm-mcp.js', import.meta.url));

/**
 * The sources under test, never a dist/ some build left behind (bin/crm-mcp.js prefers a compiled dist/mcp):
 * every process the tests start gets test/helpers/setup.ts's choice (the compiled dist/ only when it is current),
 * whatever environment the test passes.
 */
export const childEnv = (env: Record<string, string>) => ({
  ...env,
  CRM_FROM_SOURCE: process.env.CRM_FROM_SOURCE ?? '1',
});

export interface Service {
  url: string;
  close(): Promise<void>;
}

/**
 * A real service listening on a free port, one per test file: startServer on in-memory PGlite; on
 * PostgreSQL (DATABASE_URL) the app over the database global setup migrated, because startServer would
 * migrate it again from several test workers at once.
 */
export async function startService(): Promise<Service> {
  const config = testConfig({ PORT: 0, HOST: '127.0.0.1', CRM_DATA_DIR: 'memory://' });
  if (!process.env.DATABASE_URL) return startServer(config);
  const db = await testDatabase();
  const app = await buildApp({ config, db });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    close: async () => {
      await app.close();
      await db.close();
    },
  };
}

export interface Org {
  slug: string;
  token: string;
  jwt: string;
  /** Calls the service directly as the org's owner (to arrange data and check effects). */
  call<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

async function http(url: string, method: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The people who approve agents' changes, by organization: the org's owner signed in (a session JWT). */
const approvers = new Map<string, { url: string; jwt: string }>();

/**
 * The person's step: approves (or declines) a confirmation request in the service as the signed-in owner, as the
 * web application's page does. `confirmationUrl` names the request and its organization.
 */
export async function decide(confirmationUrl: string, action: 'approve' | 'decline' = 'approve') {
  const m = /\/confirm\/([^?]+)\?org=([^&]+)/.exec(confirmationUrl);
  if (!m) throw new Error(`not a confirmation link: ${confirmationUrl}`);
  const approver = approvers.get(decodeURIComponent(m[2]));
  if (!approver) throw new Error(`no approver for ${m[2]}`);
  const res = await http(`${approver.url}/api/agent-confirmations/${m[1]}/${action}`, 'POST', {
    authorization: `Bearer ${approver.jwt}`,
    'x-tenant-id': decodeURIComponent(m[2]),
  });
  if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A fresh user, organization and long-lived API token on the running service. */
export async function newOrg(service: Service): Promise<Org> {
  const username = unique('u');
  const reg = await http(
    `${service.url}/api/auth/local/register`,
    'POST',
    {},
    {
      username,
      email: `${username}@test.example`,
      password: 'correct-horse-battery',
    },
  );
  const jwt = reg.body.jwt as string;
  const slug = unique('org-');
  const auth = { authorization: `Bearer ${jwt}` };
  const org = await http(`${service.url}/api/organizations`, 'POST', auth, { data: { name: slug, slug } });
  if (org.status !== 201) throw new Error(`org: ${JSON.stringify(org.body)}`);
  const tok = await http(`${service.url}/api/users/generate-token`, 'POST', auth, { expiration: '30d' });
  if (tok.status !== 201) throw new Error(`token: ${JSON.stringify(tok.body)}`);
  const token = tok.body.token as string;
  approvers.set(slug, { url: service.url, jwt });
  return {
    slug,
    token,
    jwt,
    call: (method, path, body) =>
      http(
        `${service.url}/api${path}`,
        method,
        { authorization: `Bearer ${token}`, 'x-tenant-id': slug },
        body,
      ),
  };
}

export function mcpEnv(
  service: Service,
  org: Pick<Org, 'slug' | 'token'>,
  extra: Record<string, string> = {},
) {
  return {
    PATH: process.env.PATH ?? '',
    MCP_CRM_API_URL: service.url,
    MCP_CRM_TENANT_ID: org.slug,
    MCP_CRM_USER_TOKEN: org.token,
    ...extra,
  };
}

export type Elicit = (message: string) => ElicitResult['action'];

/** An SDK client; with `elicit` it declares the elicitation capability and answers with it. */
function newClient(elicit?: Elicit) {
  const client = new Client(
    { name: 'crm-mcp-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const action = elicit(req.params.message);
      return action === 'accept' ? { action, content: {} } : { action };
    });
  return client;
}

export async function connectStdio(env: Record<string, string>, elicit?: Elicit) {
  const client = newClient(elicit);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: childEnv(env),
    stderr: 'pipe',
  });
  await client.connect(transport);
  // Like real clients: listing caches the output schemas, against which the client then checks results.
  await client.listTools();
  return client;
}

export type Transport = 'stdio' | 'http';

/** A connected client over either transport, and how to shut it (and its process) down. */
export async function connect(transport: Transport, env: Record<string, string>) {
  if (transport === 'stdio') {
    const client = await connectStdio(env);
    return { client, close: () => client.close() };
  }
  const http = await startHttpMcp(env);
  const client = await connectHttp(http.url);
  return {
    client,
    close: async () => {
      await client.close();
      await http.stop();
    },
  };
}

/** Starts crm-mcp in HTTP mode on a free port; resolves once it listens. */
export async function startHttpMcp(env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN], {
    env: childEnv({ ...env, MCP_CRM_HTTP_PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /listening on (http:\/\/\S+)\/mcp/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`crm-mcp exited ${code}: ${err}`)));
  });
  return { url, child, stop: () => stopChild(child) };
}

export async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export async function connectHttp(url: string, elicit?: Elicit, headers?: Record<string, string>) {
  const client = newClient(elicit);
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`${url}/mcp`),
      headers ? { requestInit: { headers } } : undefined,
    ),
  );
  await client.listTools();
  return client;
}

/** Runs a process to its end; for configuration errors. */
export function runToExit(env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN], { env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

type Structured = Record<string, any>;

export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult & {
    structuredContent?: Structured;
  };
}

/** Calls a read tool and expects success. */
export async function read(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Structured> {
  const res = await call(client, name, args);
  expect(res.isError, `${name}: ${JSON.stringify(res.content)}`).toBeFalsy();
  return res.structuredContent!;
}

/**
 * Calls a write tool through the link path (confirmation_required with a link, the person approves in the
 * service, then the same call with the token) and returns the result.
 */
export async function write(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Structured> {
  const preview = await call(client, name, args);
  expect(preview.isError, `${name}: ${JSON.stringify(preview.content)}`).toBeFalsy();
  expect(preview.structuredContent?.status).toBe('confirmation_required');
  await decide(preview.structuredContent!.confirmationUrl);
  const done = await call(client, name, {
    ...args,
    confirmationToken: preview.structuredContent!.confirmationToken,
  });
  expect(done.isError, `${name}: ${JSON.stringify(done.content)}`).toBeFalsy();
  expect(done.structuredContent?.status).toBe('completed');
  return done.structuredContent!.result;
}

/** The service error carried by an isError result (JSON in its text content). */
export function toolError(res: CallToolResult): Structured {
  expect(res.isError, `should fail: ${JSON.stringify(res.content)}`).toBe(true);
  const text = res.content[0]?.type === 'text' ? res.content[0].text : '';
  return JSON.parse(text).error;
}

/** Expects a tool error with the service's status and name. */
export async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  status: number,
  errorName?: string,
): Promise<Structured> {
  let res = await call(client, name, args);
  // A call the dry run accepts but that fails when made (an outside system's error): the person approves first.
  if (res.structuredContent?.status === 'confirmation_required') {
    await decide(res.structuredContent.confirmationUrl);
    res = await call(client, name, { ...args, confirmationToken: res.structuredContent.confirmationToken });
  }
  const error = toolError(res);
  expect(error?.status, JSON.stringify(res.content)).toBe(status);
  if (errorName) expect(error.name).toBe(errorName);
  expect(typeof error.message).toBe('string');
  return error;
}

/** Expects the server to refuse arguments that break the tool's input schema, naming the field. */
export async function invalid(client: Client, name: string, args: Record<string, unknown>, field: string) {
  const res = await call(client, name, args);
  expect(res.isError).toBe(true);
  // Input errors come in the service's error shape, naming the field, before anyone is asked.
  const error = toolError(res);
  expect(error).toMatchObject({ status: 400, name: 'ValidationError' });
  expect(error.message).toContain(field);
  expect(JSON.stringify(error.details.errors)).toContain(field);
}
