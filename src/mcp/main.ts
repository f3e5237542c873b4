/**
 * crm-mcp: the CRM's agent tool server. stdio when MCP_CRM_HTTP_PORT is unset (stdout carries only the
 * protocol; diagnostics go to stderr), otherwise Streamable HTTP at /mcp plus GET /health.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { ApiError, createApiClient, unwrap } from './api-client.js';
import { type BuildServerOptions, buildServer, TOOL_GROUP_NAMES } from './build-server.js';
import { BodyTooLarge, MAX_BODY_BYTES, readBody, sendWebResponse, toWebRequest } from './node-web.js';
import {
  checkOauthToken,
  isOauthAccessToken,
  PRM_PATH,
  protectedResourceMetadata,
} from './oauth-resource.js';
import { authInfoOf, type Credentials, statelessFactory, statelessHttpHandler } from './stateless.js';
import { serveBothEras } from './stdio.js';
import type { ToolEnv } from './tool-kit.js';

export type { Credentials } from './stateless.js';

const tenantSlug = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be an organization slug (lowercase letters, digits, dashes)');

const envSchema = z.object({
  MCP_CRM_API_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be the http(s) URL of the CRM service, e.g. http://127.0.0.1:1337',
    })
    .describe('base URL of the CRM service'),
  MCP_CRM_TENANT_ID: tenantSlug.optional(),
  MCP_CRM_USER_TOKEN: z.string().trim().min(1, 'must not be empty').optional(),
  MCP_CRM_HTTP_PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int('must be a port number')
    .min(0, 'must be 0..65535')
    .max(65535, 'must be 0..65535')
    .optional(),
  MCP_CRM_HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  MCP_CRM_HTTP_BEARER: z
    .string()
    .trim()
    .min(32, 'must be at least 32 characters (e.g. the output of openssl rand -hex 32)')
    .optional(),
  MCP_CRM_ALLOWED_HOSTS: z
    .string()
    .transform((v, ctx) =>
      v
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean)
        .map((h) => {
          const name = hostnameOf(h.includes('://') ? h.replace(/^[a-z]+:\/\/([^/]*)\/?$/i, '$1') : h);
          if (!name)
            ctx.addIssue({ code: 'custom', message: `${h} is not a host name (e.g. mcp.example.com)` });
          return name ?? '';
        }),
    )
    .default([]),
  MCP_CRM_TOOL_SEPARATOR: z.enum(['.', '_'], { error: "must be '.' or '_'" }).default('.'),
  MCP_CRM_TOOL_GROUPS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((g) => g.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.enum(TOOL_GROUP_NAMES, { error: `must list groups among ${TOOL_GROUP_NAMES.join(', ')}` }))
        .min(1, `must list at least one of ${TOOL_GROUP_NAMES.join(', ')}`),
    )
    .optional(),
  MCP_CRM_READ_ONLY: z
    .enum(['0', '1', 'true', 'false'], {
      error: "must be '1' (serve only the tools that read) or '0' (default: every tool)",
    })
    .transform((v) => v === '1' || v === 'true')
    .default(false),
  MCP_CRM_ALLOWED_ORIGINS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim().replace(/\/+$/, ''))
        .filter(Boolean),
    )
    .default([]),
  MCP_CRM_APP_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be the http(s) URL of the web application, e.g. https://crm.example/app',
    })
    .optional(),
  MCP_CRM_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be the public http(s) URL of this server' })
    .optional(),
  MCP_CRM_STATE_SECRET: z
    .string()
    .trim()
    .min(32, 'must be at least 32 characters (e.g. the output of openssl rand -hex 32)')
    .optional(),
  MCP_CRM_CONFIRMATION_TTL_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .int()
    .min(1, 'must be 1..3600')
    .max(3600, 'must be 1..3600')
    .default(300),
  MCP_CRM_CONFIRMATION: z
    .enum(['person', 'none'], {
      error:
        "must be 'person' (a person approves every write) or 'none' (waived: a trusted headless deployment)",
    })
    .default('person'),
});

export type McpConfig = z.infer<typeof envSchema>;

/** The host name of a Host header value (port dropped, lowercased, IPv6 in brackets), as the SDK's
 * hostHeaderValidation parses it; undefined when it is not one. */
function hostnameOf(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}`);
    return url.username || url.password || url.pathname !== '/' ? undefined : url.hostname;
  } catch {
    return undefined;
  }
}

/** `localhost`, 127.0.0.0/8 and ::1 (also IPv4-mapped); a name other than localhost is not known to be one. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  if (h.toLowerCase() === 'localhost') return true;
  return ipaddr.isValid(h) && ipaddr.process(h).range() === 'loopback';
}

export class ConfigError extends Error {}

export function loadMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  // An empty variable counts as unset (shells and client configs often pass VAR= ).
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')} ${i.message}`);
  // stdio serves one person: its credentials come from the environment. HTTP sessions may bring their own.
  if (present.MCP_CRM_HTTP_PORT === undefined) {
    if (!present.MCP_CRM_TENANT_ID)
      lines.push('  MCP_CRM_TENANT_ID is required: the slug of the organization (the x-tenant-id header)');
    if (!present.MCP_CRM_USER_TOKEN)
      lines.push(
        '  MCP_CRM_USER_TOKEN is required: an API token of the user (crm token create, or POST /users/generate-token)',
      );
  }
  if (present.MCP_CRM_HTTP_PORT !== undefined && parsed.success) {
    const { MCP_CRM_USER_TOKEN: token, MCP_CRM_HTTP_BEARER: bearer, MCP_CRM_HTTP_HOST: host } = parsed.data;
    if (bearer && !(token && parsed.data.MCP_CRM_TENANT_ID))
      lines.push(
        "  MCP_CRM_HTTP_BEARER protects a single-user server (one started with MCP_CRM_USER_TOKEN and MCP_CRM_TENANT_ID); a multi-user server takes each client's own API token instead: unset it",
      );
    // Single-user mode gives whoever reaches the port the token's rights, approvals included (a client that
    // declares elicitation answers its own prompts): off loopback only behind a bearer of the server's own.
    if (token && !bearer && !isLoopbackHost(host))
      lines.push(
        `  MCP_CRM_HTTP_HOST ${host} is not a loopback address: with MCP_CRM_USER_TOKEN (single-user mode) anyone who can reach the port would act as that user, approvals included. Set MCP_CRM_HTTP_BEARER (a secret of at least 32 characters that clients send as Authorization: Bearer …), listen on 127.0.0.1, or run multi-user (without MCP_CRM_USER_TOKEN, each client brings its own API token)`,
      );
  }
  if (parsed.success && !lines.length) return parsed.data;
  throw new ConfigError(`crm-mcp: invalid configuration:\n${lines.join('\n')}`);
}

function toolEnv(config: McpConfig, creds: Credentials): ToolEnv {
  const apiUrl = config.MCP_CRM_API_URL;
  const client = { baseUrl: apiUrl, tenant: creds.tenant, token: creds.token };
  return {
    api: createApiClient(client),
    dryApi: createApiClient({ ...client, dryRun: true }),
    apiUrl,
    appUrl: (config.MCP_CRM_APP_URL ?? `${apiUrl.replace(/\/+$/, '').replace(/\/api$/, '')}/app`).replace(
      /\/+$/,
      '',
    ),
    confirmation: config.MCP_CRM_CONFIRMATION,
    confirmationTtlSeconds: config.MCP_CRM_CONFIRMATION_TTL_SECONDS,
    credentialKey: credentialKey(creds),
  };
}

function envCredentials(config: McpConfig): Credentials | undefined {
  const { MCP_CRM_TENANT_ID: tenant, MCP_CRM_USER_TOKEN: token } = config;
  return tenant && token ? { tenant, token } : undefined;
}

/** Whether the service answers with the token, and whether the token's user belongs to the tenant. */
export async function checkHealth(
  config: McpConfig,
  creds: Credentials | undefined = envCredentials(config),
) {
  if (!creds) {
    // A multi-user server has no token of its own: report whether the service answers at all.
    try {
      const res = await fetch(`${serviceOrigin(config)}/api/health`);
      return res.ok
        ? { ok: true, body: { status: 'ok', api: 'ok', auth: 'per-session' } }
        : { ok: false, body: { status: 'error', api: 'error', message: `HTTP ${res.status}` } };
    } catch (err) {
      return { ok: false, body: { status: 'error', api: 'unreachable', message: String(err) } };
    }
  }
  const api = createApiClient({
    baseUrl: config.MCP_CRM_API_URL,
    tenant: creds.tenant,
    token: creds.token,
    retry: { retries: 0 },
  });
  const tenant = creds.tenant;
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

/** What the 2026-07-28 era's servers are built from. */
const statelessDeps = (config: McpConfig, options: BuildServerOptions) => ({
  options,
  envOf: (creds: Credentials) => toolEnv(config, creds),
  secret: config.MCP_CRM_STATE_SECRET,
  ttlSeconds: config.MCP_CRM_CONFIRMATION_TTL_SECONDS,
});

/** The service's base URL without its `/api` (MCP_CRM_API_URL may name either). */
const serviceOrigin = (config: McpConfig) => config.MCP_CRM_API_URL.replace(/\/+$/, '').replace(/\/api$/, '');

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  sendJson(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}

/** Sessions unused for this long are closed (clients that vanish without DELETE /mcp). */
const SESSION_IDLE_MS = 30 * 60_000;

/** How long a request's token, once accepted by the service, is not checked again (2026-07-28 era). */
const TOKEN_CHECK_MS = 60_000;

interface Session {
  transport: StreamableHTTPServerTransport;
  /** Hash of the credentials that opened it: later requests must bring the same ones. */
  owner: string;
  lastSeen: number;
}

const credentialKey = (c: Credentials) =>
  createHash('sha256').update(`${c.tenant}\n${c.token}`).digest('hex');

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Loopback names every server answers to; `localhost` and the literals cannot be rebound by a web page. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The host names a request's `Host` may name (port-agnostic, like the SDK's hostHeaderValidation): the
 * loopback names, the listening address unless it is a wildcard, MCP_CRM_PUBLIC_URL's and MCP_CRM_ALLOWED_HOSTS.
 * Any other name is a page that had a name of its own resolve to this server (DNS rebinding) or a misrouted
 * request: 403 on every route.
 */
export function allowedHostnames(config: McpConfig): string[] {
  const listening = config.MCP_CRM_HTTP_HOST.replace(/^\[(.*)\]$/, '$1');
  const wildcard = listening === '0.0.0.0' || listening === '::';
  const own = wildcard
    ? undefined
    : hostnameOf(ipaddr.IPv6.isValid(listening) ? `[${listening}]` : listening);
  const pub = config.MCP_CRM_PUBLIC_URL ? new URL(config.MCP_CRM_PUBLIC_URL).hostname : undefined;
  return [
    ...new Set([
      ...LOOPBACK_NAMES,
      ...(own ? [own] : []),
      ...(pub ? [pub] : []),
      ...config.MCP_CRM_ALLOWED_HOSTS,
    ]),
  ];
}

/**
 * Streamable HTTP: one MCP server per session, keyed by the Mcp-Session-Id header. Each session brings its
 * own credentials (`Authorization: Bearer <API token>`, `x-tenant-id`), as an OAuth protected resource
 * would; without them the server's own (MCP_CRM_USER_TOKEN, MCP_CRM_TENANT_ID) apply when configured.
 */
export async function startHttp(config: McpConfig, options: BuildServerOptions) {
  const sessions = new Map<string, Session>();
  const sweep = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const s of sessions.values()) if (s.lastSeen < cutoff) void s.transport.close();
  }, 60_000);
  sweep.unref();
  const hostnames = allowedHostnames(config);
  /** Credentials the service accepted lately (a cache: each process checks on its own). */
  const checkedTokens = new Map<string, number>();
  const stateless = statelessHttpHandler(statelessDeps(config, options));
  const bearer = config.MCP_CRM_HTTP_BEARER ? digest(config.MCP_CRM_HTTP_BEARER) : undefined;
  /** Whether the request carries the server's own bearer (single-user mode with MCP_CRM_HTTP_BEARER). */
  const hasServerBearer = (req: IncomingMessage) => {
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    return !!bearer && !!match && timingSafeEqual(digest(match[1]), bearer);
  };
  let localOrigins: string[] = [];

  const publicUrl = (req: IncomingMessage) =>
    (config.MCP_CRM_PUBLIC_URL ?? `http://${req.headers.host ?? `${config.MCP_CRM_HTTP_HOST}`}`).replace(
      /\/+$/,
      '',
    );
  const challenge = (req: IncomingMessage, error?: string) => ({
    'www-authenticate': `Bearer resource_metadata="${publicUrl(req)}${PRM_PATH}"${error ? `, error="${error}"` : ''}`,
  });

  /** The request's credentials, the server's own, or an answer already sent (401/400). */
  const credentialsOf = (req: IncomingMessage, res: ServerResponse): Credentials | undefined => {
    if (bearer) {
      // Single-user mode behind a bearer: that bearer, and nothing else, stands for the server's user.
      if (hasServerBearer(req)) return envCredentials(config);
      jsonRpcError(
        res,
        401,
        'Authentication required: send Authorization: Bearer <the MCP_CRM_HTTP_BEARER this server was started with>',
        {
          'www-authenticate': `Bearer realm="crm-mcp"${req.headers.authorization ? ', error="invalid_token"' : ''}`,
        },
      );
      return;
    }
    const auth = req.headers.authorization;
    const headerTenant = req.headers['x-tenant-id'];
    const tenantText = typeof headerTenant === 'string' ? headerTenant : config.MCP_CRM_TENANT_ID;
    if (auth) {
      const match = /^Bearer\s+(\S+)$/i.exec(auth);
      if (!match) {
        jsonRpcError(
          res,
          401,
          'Authorization must be "Bearer <API token>"',
          challenge(req, 'invalid_request'),
        );
        return;
      }
      const tenant = tenantSlug.safeParse(tenantText);
      // An OAuth access token names its organization itself (handleMcp asks the service).
      if (isOauthAccessToken(match[1])) return { tenant: '', token: match[1] };
      if (!tenant.success) {
        jsonRpcError(
          res,
          400,
          'Send x-tenant-id: <organization slug> with the token (the organization to act in)',
        );
        return;
      }
      return { tenant: tenant.data, token: match[1] };
    }
    const own = envCredentials(config);
    if (own) return own;
    jsonRpcError(
      res,
      401,
      'Authentication required: send Authorization: Bearer <API token> and x-tenant-id: <organization slug>',
      challenge(req),
    );
  };

  /**
   * A request's own token is checked once per session (2025 era) or, at most once a minute per process, per
   * request (2026-07-28), so a wrong one fails at connect, not at a call. True when it answered the request.
   */
  const refusedToken = async (req: IncomingMessage, res: ServerResponse, creds: Credentials) => {
    if (!req.headers.authorization) return false;
    const key = credentialKey(creds);
    if ((checkedTokens.get(key) ?? 0) > Date.now()) return false;
    const health = await checkHealth(config, creds);
    if (!health.ok && health.body.api === 'unauthorized') {
      jsonRpcError(res, 401, 'The API token was refused by the CRM service', challenge(req, 'invalid_token'));
      return true;
    }
    if (!health.ok && 'message' in health.body) {
      jsonRpcError(res, health.body.api === 'ok' ? 403 : 503, String(health.body.message));
      return true;
    }
    if (checkedTokens.size > 10_000) checkedTokens.clear();
    checkedTokens.set(key, Date.now() + TOKEN_CHECK_MS);
    return false;
  };

  /** The 2025 era: a session per client, kept by this process (Mcp-Session-Id). */
  const handleSession = async (
    req: IncomingMessage,
    res: ServerResponse,
    creds: Credentials,
    body: unknown,
  ) => {
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) {
      // A session id is not a credential: another token cannot take over someone's session.
      if (existing.owner !== credentialKey(creds))
        return jsonRpcError(res, 403, 'This session belongs to other credentials; initialize your own');
      existing.lastSeen = Date.now();
      return existing.transport.handleRequest(req, res, body);
    }
    if (sessionId) return jsonRpcError(res, 404, 'Unknown or expired session; initialize a new one');
    if (req.method !== 'POST') return jsonRpcError(res, 400, 'Initialize a session with a POST first');
    checkedTokens.delete(credentialKey(creds));
    if (await refusedToken(req, res, creds)) return;
    const owner = credentialKey(creds);
    // Host is checked before routing, for every route (hostAllowed below): the transport's own check compares
    // whole host:port values, which a reverse proxy's Host does not always match.
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, owner, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await buildServer(toolEnv(config, creds), options).connect(transport);
    await transport.handleRequest(req, res, body);
  };

  /**
   * /mcp serves both eras and decides per request as the SDKs do (isLegacyRequest): a request carrying the
   * 2026-07-28 `_meta` envelope goes to the stateless handler, anything else (initialize, a session's requests,
   * GET and DELETE) to the sessions.
   */
  const handleMcp = async (req: IncomingMessage, res: ServerResponse) => {
    let creds = credentialsOf(req, res);
    if (!creds) return;
    if (!bearer && isOauthAccessToken(creds.token)) {
      const check = await checkOauthToken(serviceOrigin(config), creds.token, `${publicUrl(req)}/mcp`);
      if (!check.ok) return jsonRpcError(res, check.status, check.message, challenge(req, 'invalid_token'));
      creds = { ...creds, tenant: check.tenant };
    }
    let raw: Buffer | undefined;
    let body: unknown;
    if (req.method === 'POST') {
      try {
        raw = await readBody(req);
      } catch (err) {
        if (err instanceof BodyTooLarge)
          return jsonRpcError(res, 413, `The request body is over ${MAX_BODY_BYTES} bytes`);
        throw err;
      }
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return sendJson(res, 400, {
          jsonrpc: '2.0',
          error: { code: -32700, message: 'Parse error: the body is not JSON' },
          id: null,
        });
      }
    }
    const request = toWebRequest(req, res, raw);
    if (await isLegacyRequest(request, body)) return handleSession(req, res, creds, body);
    if (await refusedToken(req, res, creds)) return;
    const response = await stateless.fetch(request, { authInfo: authInfoOf(creds), parsedBody: body });
    await sendWebResponse(res, response);
  };

  /** Browsers send Origin: only this server's own origins and MCP_CRM_ALLOWED_ORIGINS may call it. */
  const originAllowed = (req: IncomingMessage) => {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    const o = origin.replace(/\/+$/, '');
    return (
      config.MCP_CRM_ALLOWED_ORIGINS.includes(o) ||
      localOrigins.includes(o) ||
      (config.MCP_CRM_PUBLIC_URL !== undefined && new URL(config.MCP_CRM_PUBLIC_URL).origin === o)
    );
  };

  /** DNS rebinding: a page of a name that resolves to this server must not read any route. */
  const hostAllowed = (req: IncomingMessage) => {
    const name = req.headers.host === undefined ? undefined : hostnameOf(req.headers.host);
    return name !== undefined && hostnames.includes(name);
  };

  /** /health: the user and tenant only to a caller that may act as them (the bearer, when one is required). */
  const health = async (req: IncomingMessage) => {
    const h = await checkHealth(config);
    if (!bearer || hasServerBearer(req)) return h;
    return { ok: h.ok, body: { status: h.body.status, api: h.body.api } };
  };

  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (!hostAllowed(req))
      return jsonRpcError(
        res,
        403,
        `Host ${req.headers.host ?? '(none)'} is not one of this server's names (${hostnames.join(', ')}; MCP_CRM_PUBLIC_URL and MCP_CRM_ALLOWED_HOSTS add more)`,
      );
    if (!originAllowed(req))
      return jsonRpcError(res, 403, `Origin ${req.headers.origin} is not allowed (MCP_CRM_ALLOWED_ORIGINS)`);
    const handle =
      path === '/health' && req.method === 'GET'
        ? health(req).then((h) => sendJson(res, h.ok ? 200 : 503, h.body))
        : (path === PRM_PATH || path === `${PRM_PATH}/mcp`) && req.method === 'GET'
          ? Promise.resolve(
              // The CRM service is the authorization server (OAuth 2.1) and issues the API tokens too.
              sendJson(res, 200, protectedResourceMetadata(`${publicUrl(req)}/mcp`, serviceOrigin(config))),
            )
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
  localOrigins = hostnames.map((h) => `http://${h}:${port}`);
  const listening = ipaddr.IPv6.isValid(config.MCP_CRM_HTTP_HOST)
    ? `[${config.MCP_CRM_HTTP_HOST}]`
    : config.MCP_CRM_HTTP_HOST;
  process.stderr.write(`crm-mcp listening on http://${listening}:${port}/mcp\n`);
  process.stderr.write(
    `crm-mcp: ${
      !envCredentials(config)
        ? 'multi-user mode: each session brings Authorization: Bearer <API token> and x-tenant-id'
        : bearer
          ? `single-user mode (MCP_CRM_USER_TOKEN, organization ${config.MCP_CRM_TENANT_ID}): every request must carry Authorization: Bearer <MCP_CRM_HTTP_BEARER>`
          : `single-user mode (MCP_CRM_USER_TOKEN, organization ${config.MCP_CRM_TENANT_ID}) without MCP_CRM_HTTP_BEARER: whatever can reach this loopback port acts as the token's user`
    }; Host must name ${hostnames.join(', ')}\n`,
  );
  process.stderr.write(
    config.MCP_CRM_STATE_SECRET
      ? 'crm-mcp: eras 2025-06-18, 2025-11-25 (sessions) and 2026-07-28 (stateless; round trips sealed with MCP_CRM_STATE_SECRET)\n'
      : 'crm-mcp: eras 2025-06-18, 2025-11-25 (sessions) and 2026-07-28 (stateless; round trips sealed with a key of this process only: set MCP_CRM_STATE_SECRET, the same on every process, to run several behind a load balancer)\n',
  );
  return {
    port,
    close: async () => {
      clearInterval(sweep);
      for (const s of sessions.values()) await s.transport.close();
      await stateless.close();
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
  const options: BuildServerOptions = {
    separator: config.MCP_CRM_TOOL_SEPARATOR,
    groups: config.MCP_CRM_TOOL_GROUPS,
    readOnly: config.MCP_CRM_READ_ONLY,
  };
  const own = envCredentials(config);
  if (config.MCP_CRM_HTTP_PORT === undefined && own) {
    const env = toolEnv(config, own);
    await serveBothEras(
      () => buildServer(env, options),
      statelessFactory(statelessDeps(config, options), own),
    );
    return;
  }
  const http = await startHttp(config, options);
  const stop = () => {
    http.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
