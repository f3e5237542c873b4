/**
 * crm-mcp: the CRM's agent tool server. stdio when MCP_CRM_HTTP_PORT is unset (stdout carries only the
 * protocol; diagnostics go to stderr), otherwise Streamable HTTP at /mcp plus GET /health.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { ApiError, createApiClient, unwrap } from './api-client.js';
import { type BuildServerOptions, buildServer } from './build-server.js';
import { ConfirmationTokens } from './confirmation.js';
import type { ToolEnv } from './tool-kit.js';

const envSchema = z.object({
  MCP_CRM_API_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be the http(s) URL of the CRM service, e.g. http://127.0.0.1:1337',
    })
    .describe('base URL of the CRM service'),
  MCP_CRM_TENANT_ID: z
    .string({ error: 'is required: the slug of the organization (the x-tenant-id header)' })
    .trim()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be an organization slug (lowercase letters, digits, dashes)'),
  MCP_CRM_USER_TOKEN: z
    .string({
      error: 'is required: an API token of the user (crm token create, or POST /users/generate-token)',
    })
    .trim()
    .min(1, 'must not be empty'),
  MCP_CRM_HTTP_PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int('must be a port number')
    .min(0, 'must be 0..65535')
    .max(65535, 'must be 0..65535')
    .optional(),
  MCP_CRM_HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  MCP_CRM_TOOL_SEPARATOR: z.enum(['.', '_'], { error: "must be '.' or '_'" }).default('.'),
  MCP_CRM_CONFIRMATION_TTL_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .int()
    .min(1, 'must be 1..3600')
    .max(3600, 'must be 1..3600')
    .default(300),
});

export type McpConfig = z.infer<typeof envSchema>;

export class ConfigError extends Error {}

export function loadMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  // An empty variable counts as unset (shells and client configs often pass VAR= ).
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')} ${i.message}`);
  throw new ConfigError(`crm-mcp: invalid configuration:\n${lines.join('\n')}`);
}

function toolEnv(config: McpConfig): ToolEnv {
  const apiUrl = config.MCP_CRM_API_URL;
  return {
    api: createApiClient({
      baseUrl: apiUrl,
      tenant: config.MCP_CRM_TENANT_ID,
      token: config.MCP_CRM_USER_TOKEN,
    }),
    apiUrl,
    tokens: new ConfirmationTokens(config.MCP_CRM_CONFIRMATION_TTL_SECONDS * 1000),
  };
}

/** Whether the service answers with the token, and whether the token's user belongs to the tenant. */
export async function checkHealth(config: McpConfig) {
  const api = createApiClient({
    baseUrl: config.MCP_CRM_API_URL,
    tenant: config.MCP_CRM_TENANT_ID,
    token: config.MCP_CRM_USER_TOKEN,
    retry: { retries: 0 },
  });
  const tenant = config.MCP_CRM_TENANT_ID;
  try {
    const me = await unwrap(api.GET('/api/users/me'), config.MCP_CRM_API_URL);
    const member = me.organizations.some((o) => o.slug === tenant);
    return member
      ? { ok: true, body: { status: 'ok', api: 'ok', user: me.username, tenant } }
      : {
          ok: false,
          body: {
            status: 'error',
            api: 'ok',
            tenant,
            message: `The token's user is not a member of ${tenant}`,
          },
        };
  } catch (err) {
    const e = err instanceof ApiError ? err : new ApiError(503, 'Error', String(err));
    // A token narrowed to other scopes (no account:read) is valid but may not read its user: the tools it can
    // use still work, and membership is checked by each call.
    if (e.status === 403) return { ok: true, body: { status: 'ok', api: 'ok', tenant, note: e.message } };
    const api = e.status === 401 ? 'unauthorized' : e.status === 503 ? 'unreachable' : 'error';
    return { ok: false, body: { status: 'error', api, tenant, message: e.message } };
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function jsonRpcError(res: ServerResponse, status: number, message: string) {
  sendJson(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/** Sessions unused for this long are closed (clients that vanish without DELETE /mcp). */
const SESSION_IDLE_MS = 30 * 60_000;

/** Streamable HTTP: one MCP server per session, keyed by the Mcp-Session-Id header. */
export async function startHttp(config: McpConfig, env: ToolEnv, options: BuildServerOptions) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const lastSeen = new Map<string, number>();
  const sweep = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, seen] of lastSeen) {
      if (seen < cutoff) void sessions.get(id)?.close();
    }
  }, 60_000);
  sweep.unref();
  // On a loopback address, refuse other Host headers: a web page cannot reach the server by DNS rebinding.
  let allowedHosts: string[] | undefined;

  const handleMcp = async (req: IncomingMessage, res: ServerResponse) => {
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) {
      lastSeen.set(sessionId as string, Date.now());
      return existing.handleRequest(req, res);
    }
    if (sessionId) return jsonRpcError(res, 404, 'Unknown or expired session; initialize a new one');
    if (req.method !== 'POST') return jsonRpcError(res, 400, 'Initialize a session with a POST first');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: allowedHosts !== undefined,
      allowedHosts,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        lastSeen.set(id, Date.now());
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
        lastSeen.delete(id);
      },
    });
    transport.onclose = () => {
      if (!transport.sessionId) return;
      sessions.delete(transport.sessionId);
      lastSeen.delete(transport.sessionId);
    };
    await buildServer(env, options).connect(transport);
    await transport.handleRequest(req, res);
  };

  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const handle =
      path === '/health' && req.method === 'GET'
        ? checkHealth(config).then((h) => sendJson(res, h.ok ? 200 : 503, h.body))
        : path === '/mcp'
          ? handleMcp(req, res)
          : Promise.resolve(sendJson(res, 404, { error: 'Not found: use /mcp or /health' }));
    handle.catch((err) => {
      process.stderr.write(`crm-mcp: ${err instanceof Error ? err.stack : String(err)}\n`);
      if (!res.headersSent) jsonRpcError(res, 500, 'Internal server error');
    });
  });
  // Idle kept-alive connections outlive the clients' own keep-alive (undici: 4 s; load balancers: 60 s), so a
  // client never sends a request on a socket the server is closing at that moment ("fetch failed").
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.MCP_CRM_HTTP_PORT, config.MCP_CRM_HTTP_HOST, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  if (['127.0.0.1', 'localhost', '::1'].includes(config.MCP_CRM_HTTP_HOST))
    allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  process.stderr.write(`crm-mcp listening on http://${config.MCP_CRM_HTTP_HOST}:${port}/mcp\n`);
  return {
    port,
    close: async () => {
      clearInterval(sweep);
      for (const t of sessions.values()) await t.close();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

export async function main(env: NodeJS.ProcessEnv = process.env) {
  let config: McpConfig;
  try {
    config = loadMcpConfig(env);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  const tools = toolEnv(config);
  const options: BuildServerOptions = { separator: config.MCP_CRM_TOOL_SEPARATOR };
  if (config.MCP_CRM_HTTP_PORT === undefined) {
    const server = buildServer(tools, options);
    server.server.onclose = () => process.exit(0);
    await server.connect(new StdioServerTransport());
    return;
  }
  const http = await startHttp(config, tools, options);
  const stop = () => {
    http.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
