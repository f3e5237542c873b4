import { createHash, randomBytes } from 'node:crypto';
import {
  type AuthInfo,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createMcpHandler,
  createRequestStateCodec,
  type McpRequestContext,
  Server as ModernServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  type BuildServerOptions,
  callTool,
  clientListing,
  SERVER_INFO,
  serverInstructions,
} from './build-server.js';
import type { RoundState } from './person-channel.js';
import type { ToolEnv } from './tool-kit.js';

/**
 * The 2026-07-28 era (stateless): every request brings its protocol version, client info and capabilities, and
 * a fresh server answers it and is gone. Between the rounds of a confirmation nothing stays in this process:
 * the `requestState` travels with the client, sealed with MCP_CRM_STATE_SECRET (or a key of this process when
 * it runs alone), and the approvals are spent in the CRM service (round-trip.ts). Any process of a deployment
 * sharing the secret answers any request.
 */

/** The credentials a request acts with, as the SDK passes them through to the handlers. */
export interface Credentials {
  tenant: string;
  token: string;
}

export const authInfoOf = (creds: Credentials): AuthInfo => ({
  token: creds.token,
  clientId: 'crm-mcp',
  scopes: [],
  extra: { tenant: creds.tenant },
});

function credentialsOf(auth: AuthInfo | undefined): Credentials {
  const tenant = auth?.extra?.tenant;
  if (!auth || typeof tenant !== 'string')
    throw new Error('crm-mcp: a stateless request reached the server without credentials');
  return { tenant, token: auth.token };
}

/**
 * `tools/list` names the same tools for an hour to every caller of the same options; private: a client's
 * list may depend on its token (what it may do), so shared caches do not keep it.
 */
const CACHE_HINTS = {
  'tools/list': { ttlMs: 3_600_000, cacheScope: 'private' as const },
  'server/discover': { ttlMs: 3_600_000, cacheScope: 'private' as const },
};

export interface StatelessDeps {
  options: BuildServerOptions;
  /** The tools' environment for these credentials. */
  envOf(creds: Credentials): ToolEnv;
  /** MCP_CRM_STATE_SECRET; undefined: a random key of this process (one process only). */
  secret: string | undefined;
  /** How long a round's state stays valid (the confirmation's time to live). */
  ttlSeconds: number;
}

const principal = (ctx: ServerContext) => {
  const auth = ctx.http?.authInfo;
  const tenant = auth?.extra?.tenant;
  return createHash('sha256')
    .update(`${ctx.mcpReq.method}\n${typeof tenant === 'string' ? tenant : ''}\n${auth?.token ?? ''}`)
    .digest('hex');
};

/** The capabilities the request declares in its `_meta` envelope (the 2026-07-28 era has no session). */
const capabilitiesOf = (ctx: ServerContext) =>
  (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    | ClientCapabilities
    | undefined;

/** A server factory for the 2026-07-28 era: credentials from the request (HTTP) or fixed (stdio). */
export function statelessFactory(deps: StatelessDeps, fixed?: Credentials) {
  const codec = createRequestStateCodec<RoundState>({
    key: deps.secret ?? randomBytes(32),
    ttlSeconds: deps.ttlSeconds,
    // Bound to the caller: a state minted for one token is refused with another.
    bind: (ctx) => (fixed ? `stdio\n${ctx.mcpReq.method}` : principal(ctx)),
  });
  return (request: McpRequestContext) => {
    const env = deps.envOf(fixed ?? credentialsOf(request.authInfo));
    const server = new ModernServer(SERVER_INFO, {
      instructions: serverInstructions(env, deps.options),
      capabilities: { tools: {} },
      cacheHints: CACHE_HINTS,
      requestState: { verify: codec.verify },
    });
    server.setRequestHandler(
      'tools/list',
      async () => (await clientListing(env, deps.options)).result as never,
    );
    server.setRequestHandler(
      'tools/call',
      (req, ctx) =>
        callTool(env, deps.options, req.params, {
          capabilities: capabilitiesOf(ctx) ?? server.getClientCapabilities(),
          person: {
            era: 'round-trip',
            signal: ctx.mcpReq.signal,
            state: ctx.mcpReq.requestState<RoundState>(),
            responses: ctx.mcpReq.inputResponses,
            mint: (state) => codec.mint(state, ctx),
          },
        }) as never,
    );
    return server;
  };
}

/** The 2026-07-28 leg of /mcp; the 2025 era is answered by the sessions of main.ts. */
export function statelessHttpHandler(deps: StatelessDeps) {
  return createMcpHandler(statelessFactory(deps), {
    legacy: 'reject',
    onerror: (err) => process.stderr.write(`crm-mcp: ${err.message}\n`),
  });
}
