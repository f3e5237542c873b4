import {
  type CallToolResult,
  Client,
  type FetchLike,
  type InputRequiredResult,
  isInputRequiredResult,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN, childEnv } from './harness.js';

/**
 * Clients of the 2.x SDK (@modelcontextprotocol/client), which speak the stateless 2026-07-28 revision: they
 * probe with `server/discover`, send the per-request `_meta` envelope, and fulfil input requests (Multi Round-
 * Trip Requests) with the same `elicitation/create` handler a 2025-era client registers.
 */

export type Action = 'accept' | 'decline' | 'cancel';

export interface ModernOptions {
  /** Answers form elicitations (declares the form capability); undefined: no elicitation capability. */
  elicit?: (message: string) => Action;
  /** Declares URL elicitation and answers it. */
  openUrl?: (url: string) => Action | Promise<Action>;
  /** Hands input requests back to the caller instead of fulfilling them (manual rounds). */
  manual?: boolean;
  headers?: Record<string, string>;
  /** The HTTP client's fetch (e.g. one that spreads requests over several processes). */
  fetch?: FetchLike;
}

function modernClient(options: ModernOptions) {
  const elicitation = {
    ...(options.elicit ? { form: {} } : {}),
    ...(options.openUrl ? { url: {} } : {}),
  };
  const client = new Client(
    { name: 'crm-mcp-test-modern', version: '2.0.0' },
    {
      versionNegotiation: { mode: 'auto' },
      capabilities: options.elicit || options.openUrl ? { elicitation } : {},
      ...(options.manual ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  if (options.elicit || options.openUrl)
    client.setRequestHandler('elicitation/create', async (req) => {
      const params = req.params as { mode?: string; message: string; url?: string };
      const action =
        params.mode === 'url'
          ? await options.openUrl!(params.url ?? '')
          : (options.elicit?.(params.message) ?? 'cancel');
      return action === 'accept' ? { action, content: {} } : { action };
    });
  return client;
}

export async function connectModernHttp(url: string, options: ModernOptions = {}) {
  const client = modernClient(options);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
  );
  return client;
}

export async function connectModernStdio(env: Record<string, string>, options: ModernOptions = {}) {
  const client = modernClient(options);
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN], env: childEnv(env), stderr: 'pipe' }),
  );
  return client;
}

type Structured = Record<string, any>;

/** Calls a tool; the structured content of its result (throws on a tool error). */
export async function callModern(client: Client, name: string, args: Record<string, unknown> = {}) {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content)}`);
  return res.structuredContent as Structured;
}

/** One round of a tools/call in manual mode: the result, or the input request and the state to echo. */
export async function round(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  retry?: { inputResponses: Record<string, unknown>; requestState?: string },
) {
  return (await client.request(
    { method: 'tools/call', params: { name, arguments: args, ...(retry ?? {}) } },
    { allowInputRequired: true },
  )) as CallToolResult | InputRequiredResult;
}

export { isInputRequiredResult };
