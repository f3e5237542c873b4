import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SOFTWARE_VERSION } from '../platform/version.js';
import { ApiError } from './api-client.js';
import type { PersonChannel } from './person-channel.js';
import { refusalResult, toolAccess } from './tool-access.js';
import { errorResult, type Tool, type ToolEnv } from './tool-kit.js';
import { agendaTools } from './tools/agenda.js';
import { analyticsTools, boardTools, cardTools } from './tools/boards.js';
import { contactTools } from './tools/contacts.js';
import { inboxTools } from './tools/inbox.js';
import { messagingTools } from './tools/messaging.js';
import { productTools } from './tools/products.js';
import { segmentTools } from './tools/segments.js';
import { taskTools } from './tools/tasks.js';

/** The software version (package.json), as `crm --version` and `/api/health` show it. */
export const SERVER_INFO = { name: 'crm', version: SOFTWARE_VERSION };

/** Tool groups an operator can choose with MCP_CRM_TOOL_GROUPS (default: all), in listing order. */
export const TOOL_GROUPS = {
  contacts: () => contactTools,
  boards: () => [...boardTools, ...cardTools, ...analyticsTools],
  segments: () => segmentTools,
  tasks: () => taskTools,
  products: () => productTools,
  messaging: () => messagingTools,
  agenda: () => agendaTools,
  inbox: () => inboxTools,
} satisfies Record<string, () => Tool[]>;

export type ToolGroup = keyof typeof TOOL_GROUPS;
export const TOOL_GROUP_NAMES = Object.keys(TOOL_GROUPS) as ToolGroup[];

const instructionsWithConfirmation = `Tools over a multi-tenant CRM (contacts, boards and cards, segments, tasks, products, agenda and meetings, message and e-mail templates, chat channels, the WhatsApp inbox).
Identifiers: contacts, boards, cards, phases, segments, tasks, products, templates, meetings and channels are documentIds (24 lowercase letters and digits), never numeric ids. Inbox ids, conversation ids and message ids are numbers; the two kinds are not interchangeable. Find them with the list/search tools first.
Reads run at once. Every write is first checked by the service (a dry run: a call that would fail comes back as that error, and nobody is asked), then needs a person's approval: either the client asks them, or the client opens the CRM's approval page, or the call returns status confirmation_required with a confirmationUrl for the person to open and approve (signed in to the CRM) and a confirmationToken to pass on a second, identical call after they did (until then that call answers confirmation_required again). You cannot approve a change yourself. Status completed: done, see result; declined/cancelled: the person refused, do not retry unless they ask.
Errors come back as tool errors with { error: { status, name, message, details } } (for 400s, details.errors names the fields to fix).`;

export interface BuildServerOptions {
  /** `.` serves `crm.search_contacts`; `_` serves `crm_search_contacts` instead, for clients that refuse dots. */
  separator: '.' | '_';
  /** Groups to serve; undefined: all. */
  groups?: readonly ToolGroup[];
  /** How long an elicitation waits for the person (ms). */
  elicitationTimeoutMs?: number;
  /** Only the tools whose annotations say read-only (MCP_CRM_READ_ONLY=1). */
  readOnly?: boolean;
}

const waived = `Writes run at once: the operator waived the person's confirmation for this deployment (MCP_CRM_CONFIRMATION=none); each write is still checked by the service first.`;

function instructions(confirmation: ToolEnv['confirmation']) {
  if (confirmation === 'person') return instructionsWithConfirmation;
  return instructionsWithConfirmation.replace(
    /Reads run at once\. Every write .*?ask\.\n/s,
    `Reads run at once. ${waived}\n`,
  );
}

/** The tools of the chosen groups (all by default), in the order they are listed. */
export function allTools(groups: readonly ToolGroup[] = TOOL_GROUP_NAMES): Tool[] {
  return TOOL_GROUP_NAMES.filter((g) => groups.includes(g)).flatMap((g) => TOOL_GROUPS[g]());
}

/** Rewrites the dotted tool names in a text to the names served with this separator. */
export function servedNames(text: string, separator: '.' | '_'): string {
  return separator === '.' ? text : text.replace(/\bcrm\.([a-z][a-z_]*)/g, 'crm_$1');
}

/**
 * JSON Schema of a tool's input or output; a block used twice is written once under `definitions`. Outputs
 * keep only the shape (types, enums, nesting): no descriptions (field names and the tool's description say
 * what comes back), no `required` or `additionalProperties` lists. The listing is read at the start of every
 * conversation, so every token counts.
 */
function jsonSchema(schema: z.ZodObject, io: 'input' | 'output') {
  const json = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  delete json.$schema;
  // Unknown arguments are refused by name when called (inputError); saying so in every listing costs 28 bytes a tool.
  if (io === 'input' && json.additionalProperties === false) delete json.additionalProperties;
  return io === 'output'
    ? (compact(json) as Record<string, unknown>)
    : (dropFormatPatterns(json) as Record<string, unknown>);
}

/** zod's `.int()` bounds every integer by ±2^53−1: true of any id, and a dozen tokens each time. */
function isSafeIntegerBound(key: string, value: unknown) {
  return (
    (key === 'minimum' || key === 'maximum') &&
    typeof value === 'number' &&
    Math.abs(value) === Number.MAX_SAFE_INTEGER
  );
}

/** `format: date-time` says it all: the long regular expression zod adds beside it only costs tokens. */
function dropFormatPatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropFormatPatterns);
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node).filter(
    ([k, v]) => !(k === 'pattern' && 'format' in node) && !isSafeIntegerBound(k, v),
  );
  return Object.fromEntries(entries.map(([k, v]) => [k, dropFormatPatterns(v)]));
}

function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (
      key === 'description' ||
      key === 'required' ||
      key === 'additionalProperties' ||
      key === 'propertyNames' ||
      isSafeIntegerBound(key, value)
    )
      continue;
    out[key] =
      key === 'properties'
        ? mapValues(value as Record<string, unknown>)
        : key === 'items'
          ? shortest(compact(value))
          : compact(value);
  }
  return out;
}

function mapValues(props: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, shortest(compact(v))]));
}

/**
 * An output field in fewer bytes, same meaning for what the tools return: `anyOf [X, null]` → X with `null` in
 * its type; a nested object → its properties (no `"type":"object"`); a plain string → `{}` (every output is JSON
 * text, and the field's name says what it holds; numbers, booleans, enums, arrays and objects keep their types).
 * Issue 32: the read-only listing must fit 60,000 bytes.
 */
function shortest(node: unknown): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const n = node as Record<string, any>;
  const branches = Array.isArray(n.anyOf) ? n.anyOf : undefined;
  if (branches?.length === 2 && branches[1]?.type === 'null' && Object.keys(branches[1]).length === 1) {
    const { anyOf: _, ...rest } = n;
    const x = branches[0] as Record<string, any>;
    if (typeof x.type === 'string' && !x.enum) return { ...rest, ...x, type: [x.type, 'null'] };
  }
  if (n.type === 'object' && n.properties) {
    const { type: _, ...rest } = n;
    return rest;
  }
  if (n.type === 'string' && Object.keys(n).length === 1) return {};
  return node;
}

/** The `tools/list` answer is the same for every session with the same options: built once per process. */
const listings = new Map<string, { tools: Tool[]; byName: Map<string, Tool>; result: ListToolsResult }>();

/** The tools of these options (or these of them) by served name, and the `tools/list` answer. */
export function listing(options: BuildServerOptions, of?: readonly Tool[]) {
  const groups = options.groups ?? TOOL_GROUP_NAMES;
  const key = `${options.separator}|${of ? of.map((t) => t.name).join(',') : groups.join(',')}`;
  let entry = listings.get(key);
  if (!entry) {
    const tools = of ? [...of] : allTools(groups);
    const served = (t: Tool) => servedNames(`crm.${t.name}`, options.separator);
    entry = {
      tools,
      byName: new Map(tools.map((t) => [served(t), t])),
      result: {
        tools: tools.map((t) => ({
          name: served(t),
          title: t.title,
          description: servedNames(t.description, options.separator),
          inputSchema: JSON.parse(
            servedNames(JSON.stringify(jsonSchema(t.input, 'input')), options.separator),
          ) as ListToolsResult['tools'][number]['inputSchema'],
          outputSchema: jsonSchema(t.output, 'output') as ListToolsResult['tools'][number]['outputSchema'],
          annotations: t.annotations,
        })),
      },
    };
    listings.set(key, entry);
  }
  return entry;
}

/** Input errors in the service's error shape, naming unknown arguments and the fields to fix. */
function inputError(tool: Tool, servedName: string, error: z.ZodError) {
  const known = Object.keys(tool.input.shape);
  const errors = error.issues.map((i) => ({
    path: i.path.map(String),
    message: i.message,
    ...(i.code === 'unrecognized_keys' ? { unknown: i.keys } : {}),
  }));
  const unknown = error.issues.flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys : []));
  const fields = errors
    .filter((e) => !e.unknown)
    .map((e) => `${e.path.join('.') || '(arguments)'}: ${e.message}`);
  const parts = [
    ...(unknown.length
      ? [`unknown argument(s) ${unknown.join(', ')} (this tool takes ${known.join(', ')})`]
      : []),
    ...fields,
  ];
  return errorResult(
    new ApiError(400, 'ValidationError', `Invalid arguments for ${servedName}: ${parts.join('; ')}`, {
      errors,
    }),
  );
}

/** What a call needs besides its name and arguments, from the server that answers it. */
export interface CallContext {
  person: PersonChannel;
  /** The client's declared capabilities (the session's, or the request's own in the 2026-07-28 era). */
  capabilities: { elicitation?: unknown } | undefined;
}

/** What this client is offered: the options' tools, narrowed by read-only and its token's scopes (tool-access.ts). */
export async function clientListing(env: ToolEnv, options: BuildServerOptions) {
  const access = await toolAccess(env, listing(options).tools, options.readOnly);
  return { access, ...listing(options, access.tools) };
}

/** `tools/call` in either era: validates the arguments, then runs the tool. */
export async function callTool(
  env: ToolEnv,
  options: BuildServerOptions,
  params: { name: string; arguments?: Record<string, unknown> },
  call: CallContext,
): Promise<CallToolResult> {
  const { access, byName } = await clientListing(env, options);
  const name = params.name;
  const tool = byName.get(name);
  if (!tool) {
    // A tool of the served groups this client is not offered: why, in a tool error the model can read.
    const served = listing(options).byName.get(name);
    const refusal = served && refusalResult(access, served, name);
    if (refusal) return refusal;
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${name}; tools/list gives the names`);
  }
  const parsed = tool.input.safeParse(params.arguments ?? {});
  if (!parsed.success) return inputError(tool, name, parsed.error);
  const elicitation = call.capabilities?.elicitation as { form?: object; url?: object } | undefined;
  return tool.call(parsed.data as Record<string, unknown>, {
    env,
    person: call.person,
    // Form elicitation: declared as `elicitation: { form }`, or as a bare `elicitation: {}` (older clients).
    canAskPerson: !!elicitation && (!!elicitation.form || !elicitation.url),
    canOpenUrl: !!elicitation?.url,
    servedName: name,
    elicitationTimeoutMs: options.elicitationTimeoutMs ?? env.confirmationTtlSeconds * 1000,
  });
}

/** The server's instructions as served (the separator applied). */
export const serverInstructions = (env: ToolEnv, options: BuildServerOptions) =>
  servedNames(instructions(env.confirmation), options.separator);

/** A fresh 2025-era MCP server with the chosen tools (one per stdio process or HTTP session). */
export function buildServer(env: ToolEnv, options: BuildServerOptions): Server {
  const server = new Server(SERVER_INFO, {
    instructions: serverInstructions(env, options),
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => (await clientListing(env, options)).result);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(env, options, request.params, {
      capabilities: server.getClientCapabilities(),
      person: {
        era: 'push',
        signal: extra.signal,
        elicit: (params, timeout) =>
          extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, { timeout }),
        notify: (notification) => extra.sendNotification(notification),
      },
    }),
  );
  return server;
}
