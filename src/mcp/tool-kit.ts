import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  ElicitResultSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type ApiClient, ApiError } from './api-client.js';
import { type ConfirmationTokens, describeTokenProblem } from './confirmation.js';

/** What every tool handler gets: the typed API client and the confirmation-token issuer. */
export interface ToolEnv {
  api: ApiClient;
  apiUrl: string;
  tokens: ConfirmationTokens;
}

type Shape = z.ZodRawShape;
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Args<I extends Shape> = z.infer<z.ZodObject<I>>;

interface ToolBase<I extends Shape, O extends z.ZodObject> {
  /** Name without the `crm.` prefix, e.g. `search_contacts`. */
  name: string;
  title: string;
  /** Written for a model: what it does, when to use it, which ids it takes. */
  description: string;
  input: I;
  output: O;
}

export interface ReadToolDef<I extends Shape, O extends z.ZodObject> extends ToolBase<I, O> {
  run(args: Args<I>, env: ToolEnv): Promise<z.infer<O>>;
}

export interface WriteToolDef<I extends Shape, O extends z.ZodObject> extends ToolBase<I, O> {
  /** Overwrites or removes data (update, move, delete) rather than only adding. */
  destructive: boolean;
  /** Repeating the call with the same arguments has no further effect. */
  idempotent: boolean;
  /** One sentence for the person who confirms, e.g. `create the contact "Ana"`. */
  summary(args: Args<I>): string;
  run(args: Args<I>, env: ToolEnv): Promise<z.infer<O>>;
}

/** A tool ready to be registered on a server under one or more names. */
export interface Tool {
  name: string;
  kind: 'read' | 'write';
  register(server: McpServer, names: string[], env: ToolEnv): void;
}

const listMeta = z
  .object({
    // Optional in the REST schema (the offset form and withCount=false drop some); the tools always ask
    // for pages with a count, so all four come back.
    pagination: z.object({
      page: z.number().optional().describe('Current page, from 1'),
      pageSize: z.number().optional().describe('Items per page'),
      pageCount: z.number().optional().describe('Number of pages'),
      total: z.number().optional().describe('Items matching the query'),
    }),
  })
  .loose();

/** A page of a list route: `{ data: [...], meta: { pagination } }`. */
export function listOutput(item: z.ZodObject) {
  return z.object({ data: z.array(item).describe('Items of this page'), meta: listMeta });
}

/** Common list arguments (the service's pagination and sort). */
export const paging = {
  page: z.number().int().min(1).optional().describe('Page number, from 1 (default 1)'),
  pageSize: z.number().int().min(1).max(100).optional().describe('Items per page, 1..100 (default 25)'),
  sort: z
    .string()
    .optional()
    .describe('Sort as `field:asc` or `field:desc`, e.g. `updatedAt:desc`; omit for the default order'),
};

export function pagingQuery(args: { page?: number; pageSize?: number; sort?: string }) {
  return {
    pagination: { page: args.page, pageSize: args.pageSize },
    ...(args.sort ? { sort: args.sort } : {}),
  };
}

/** Drops undefined values so PUT bodies only carry the fields the model set. */
export function defined<T extends Record<string, unknown>>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const confirmationTokenField = z
  .string()
  .optional()
  .describe(
    'Only for clients without interactive confirmation: the token returned by a first call of this tool with the same arguments, after the person approved the preview. Omit it on the first call.',
  );

function writeOutput(result: z.ZodObject) {
  return z.object({
    status: z
      .enum(['completed', 'confirmation_required', 'declined', 'cancelled'])
      .describe(
        'completed: the change was made (see result). confirmation_required: nothing was changed yet; show the preview to the person and, if they agree, call again with the same arguments plus confirmationToken. declined/cancelled: the person refused; do not retry unless they ask.',
      ),
    message: z.string().describe('What happened, in one sentence'),
    result: result.optional().describe('The service answer, when status is completed'),
    confirmationToken: z
      .string()
      .optional()
      .describe('One-time token to pass back as confirmationToken, valid until expiresAt'),
    expiresAt: z.string().optional().describe('ISO time after which confirmationToken is refused'),
    preview: z
      .object({
        tool: z.string(),
        summary: z.string(),
        arguments: z.record(z.string(), z.unknown()),
      })
      .optional()
      .describe('The change that will be made once confirmed'),
  });
}

function textResult(structured: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }],
    structuredContent: structured,
  };
}

/**
 * API errors become tool results the model can read and act on, never thrown protocol errors. The error is
 * JSON in the text content and not structuredContent, which clients check against the tool's output schema.
 */
export function errorResult(err: ApiError): CallToolResult {
  const error = { status: err.status, name: err.errorName, message: err.message, details: err.details };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }, null, 2) }] };
}

async function guarded(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) return errorResult(err);
    throw err;
  }
}

const readAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export function readTool<I extends Shape, O extends z.ZodObject>(def: ReadToolDef<I, O>): Tool {
  return {
    name: def.name,
    kind: 'read',
    register(server, names, env) {
      for (const name of names) {
        server.registerTool(
          name,
          {
            title: def.title,
            description: def.description,
            inputSchema: def.input,
            outputSchema: def.output,
            annotations: { title: def.title, ...readAnnotations },
          },
          // The SDK infers the handler's argument type from the shape; it is the same Args<I>.
          ((args: Args<I>) =>
            guarded(async () => textResult(def.output.parse(await def.run(args, env))))) as never,
        );
      }
    },
  };
}

export function writeTool<I extends Shape, O extends z.ZodObject>(def: WriteToolDef<I, O>): Tool {
  const canonical = `crm.${def.name}`;
  const output = writeOutput(def.output);
  return {
    name: def.name,
    kind: 'write',
    register(server, names, env) {
      const handler = async (
        input: Args<I> & { confirmationToken?: string },
        extra: Extra,
      ): Promise<CallToolResult> =>
        guarded(async () => {
          const { confirmationToken, ...rest } = input;
          const args = rest as Args<I>;
          const summary = def.summary(args);
          const refusal = canAskPerson(server)
            ? await askPerson(extra, canonical, summary, args)
            : checkToken(env.tokens, confirmationToken, canonical, summary, args);
          if (refusal) return refusal;
          const result = def.output.parse(await def.run(args, env));
          return textResult({ status: 'completed', message: `Done: ${summary}.`, result });
        });
      for (const name of names) {
        server.registerTool(
          name,
          {
            title: def.title,
            description: `${def.description}\n\nThis tool changes data, so a person must confirm each call: the client may ask them directly; otherwise the first call returns status confirmation_required with a preview and a confirmationToken (single use, short-lived), and the same call repeated with that token performs the change.`,
            inputSchema: { ...def.input, confirmationToken: confirmationTokenField },
            outputSchema: output,
            annotations: {
              title: def.title,
              readOnlyHint: false,
              destructiveHint: def.destructive,
              idempotentHint: def.idempotent,
              openWorldHint: false,
            },
          },
          // As for reads: the SDK's inferred argument type is this Args<I> plus confirmationToken.
          handler as never,
        );
      }
    },
  };
}

/** Form elicitation: declared as `elicitation: { form }`, or as a bare `elicitation: {}` (older clients). */
function canAskPerson(server: McpServer): boolean {
  const elicitation = server.server.getClientCapabilities()?.elicitation as
    | { form?: object; url?: object }
    | undefined;
  return !!elicitation && (!!elicitation.form || !elicitation.url);
}

/** Elicitation: the client shows the change to the person, who accepts, declines or cancels. */
async function askPerson(
  extra: Extra,
  tool: string,
  summary: string,
  args: Record<string, unknown>,
): Promise<CallToolResult | undefined> {
  const answer = await extra.sendRequest(
    {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: `The assistant wants to ${summary}.\n\nTool: ${tool}\nArguments: ${JSON.stringify(args, null, 2)}\n\nAllow this change?`,
        requestedSchema: { type: 'object', properties: {} },
      },
    },
    ElicitResultSchema,
  );
  if (answer.action === 'accept') return undefined;
  const status = answer.action === 'decline' ? 'declined' : 'cancelled';
  return textResult({
    status,
    message: `The person ${status} the change (${summary}); nothing was changed. Do not retry unless they ask.`,
  });
}

function checkToken(
  tokens: ConfirmationTokens,
  token: string | undefined,
  tool: string,
  summary: string,
  args: Record<string, unknown>,
): CallToolResult | undefined {
  if (token === undefined) {
    const issued = tokens.issue(tool, args);
    return textResult({
      status: 'confirmation_required',
      message: `Nothing was changed yet. Show the person this preview (${summary}); if they approve, call ${tool} again with exactly the same arguments and confirmationToken.`,
      confirmationToken: issued.token,
      expiresAt: issued.expiresAt,
      preview: { tool, summary, arguments: args },
    });
  }
  const problem = tokens.redeem(token, tool, args);
  if (!problem) return undefined;
  return errorResult(new ApiError(403, 'ConfirmationError', describeTokenProblem(problem), { problem }));
}
