import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ApiError, unwrap } from './api-client.js';
import { confirmCall } from './confirmation.js';
import type { ToolCall, ToolEnv } from './tool-call.js';
import { forModel } from './tool-errors.js';

export type { ToolCall, ToolEnv } from './tool-call.js';

type Shape = z.ZodRawShape;
type Args<I extends Shape> = z.infer<z.ZodObject<I>>;

interface ToolBase<I extends Shape, O extends z.ZodObject> {
  /** Name without the `crm.` prefix, e.g. `search_contacts`. */
  name: string;
  title: string;
  /** Written for a model: what it does, when to use it, which ids it takes. */
  description: string;
  input: I;
  output: O;
  /** Reaches a person or an outside system (a message, an e-mail, a calendar): `openWorldHint`. */
  openWorld?: boolean;
  /**
   * The web application's page of a returned record (path under /app), set as `link` on the result, or on
   * each item of a page's `data`.
   */
  link?: (args: Args<I>, record: { documentId: string }) => string;
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

/**
 * A tool as the server lists and calls it. `input` is strict (unknown arguments are refused, by name) and
 * `call` gets arguments that already passed it.
 */
export interface Tool {
  /** Name without the `crm.` prefix, e.g. `search_contacts`. */
  name: string;
  kind: 'read' | 'write';
  title: string;
  /** Uses dotted names (`crm.x`); the server rewrites them to the names it serves. */
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  call(args: Record<string, unknown>, ctx: ToolCall): Promise<CallToolResult>;
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
  page: z.number().int().min(1).optional().describe('From 1'),
  pageSize: z.number().int().min(1).max(100).optional().describe('Default 25'),
  sort: z.string().optional().describe('`field:asc|desc`'),
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
    'Omit at first. After confirmation_required, once the person approved at confirmationUrl: its token.',
  );

function writeOutput(result: z.ZodObject) {
  return z.object({
    status: z.enum(['completed', 'confirmation_required', 'declined', 'cancelled']),
    message: z.string(),
    result: result.optional(),
    confirmationToken: z.string().optional(),
    confirmationUrl: z.string().optional(),
    expiresAt: z.string().optional(),
    preview: z.looseObject({}).optional(),
  });
}

function withLinks<I extends Shape, O extends z.ZodObject>(
  def: ToolBase<I, O>,
  args: Args<I>,
  result: unknown,
  appUrl: string,
): unknown {
  if (!def.link || !result || typeof result !== 'object') return result;
  const add = (r: unknown) => {
    if (r && typeof r === 'object' && 'documentId' in r && typeof r.documentId === 'string')
      return { ...r, link: `${appUrl}${def.link?.(args, r as { documentId: string })}` };
    return r;
  };
  const data = (result as { data?: unknown }).data;
  return Array.isArray(data) ? { ...result, data: data.map(add) } : add(result);
}

/** Structured content, also as compact JSON text for clients that read only text. */
function textResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * API errors become tool results the model can read and act on, never thrown protocol errors. The error is
 * JSON in the text content and not structuredContent, which clients check against the tool's output schema.
 */
export function errorResult(apiError: ApiError): CallToolResult {
  // Told in tools and arguments: a model cannot call a REST route the service's message names.
  const err = forModel(apiError);
  const error = { status: err.status, name: err.errorName, message: err.message, details: err.details };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }] };
}

async function guarded(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) return errorResult(err);
    throw err;
  }
}

export function readTool<I extends Shape, O extends z.ZodObject>(def: ReadToolDef<I, O>): Tool {
  return {
    name: def.name,
    kind: 'read',
    title: def.title,
    description: def.description,
    input: z.strictObject(def.input),
    output: def.output,
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: def.openWorld ?? false,
    },
    call: (args, { env }) =>
      guarded(async () => {
        const result = await def.run(args as Args<I>, env);
        return textResult(def.output.parse(withLinks(def, args as Args<I>, result, env.appUrl)));
      }),
  };
}

export function writeTool<I extends Shape, O extends z.ZodObject>(def: WriteToolDef<I, O>): Tool {
  return {
    name: def.name,
    kind: 'write',
    title: def.title,
    description: `${def.description}\n\nChanges data: a person confirms each call (see the server instructions).`,
    input: z.strictObject({ ...def.input, confirmationToken: confirmationTokenField }),
    output: writeOutput(def.output),
    annotations: {
      readOnlyHint: false,
      destructiveHint: def.destructive,
      idempotentHint: def.idempotent,
      openWorldHint: def.openWorld ?? false,
    },
    call: (input, ctx) =>
      guarded(async () => {
        const { confirmationToken, ...rest } = input as Args<I> & { confirmationToken?: string };
        const args = rest as Args<I>;
        // Validate before asking: the service answers the call's dry run (what it would do, or its 4xx), so a
        // person is only asked about calls that would succeed, and sees the records by name.
        const wouldBe = await def.run(args, { ...ctx.env, api: ctx.env.dryApi });
        const summary = `${def.summary(args)}${await namesOf(ctx.env, args, wouldBe)}`;
        const refusal = await confirmCall(
          ctx,
          { summary, args, preview: wouldBe, token: confirmationToken },
          textResult,
        );
        if (refusal) return refusal;
        const result = def.output.parse(withLinks(def, args, await def.run(args, ctx.env), ctx.env.appUrl));
        return textResult({ status: 'completed', message: `Done: ${summary}.`, result });
      }),
  };
}

const quoted = (v: unknown) => (typeof v === 'string' && v ? `"${v}"` : undefined);

/**
 * The records a write touches, by name, from its dry run (title or name, phase, contact) and the board it is on:
 * ` — card "Proposta ACME" · phase "Negociação" · contact "Ana Souza" · board "Funil de vendas"`.
 */
async function namesOf(env: ToolEnv, args: Record<string, unknown>, wouldBe: unknown): Promise<string> {
  const body = wouldBe && typeof wouldBe === 'object' ? (wouldBe as Record<string, unknown>) : {};
  const record = (
    body.data && typeof body.data === 'object' && !Array.isArray(body.data) ? body.data : body
  ) as Record<string, any>;
  const parts = [
    quoted(record.title ?? record.name ?? record.subject),
    record.currentPhase?.name && `phase "${record.currentPhase.name}"`,
    record.contact?.name && `contact "${record.contact.name}"`,
  ];
  if (typeof args.boardId === 'string') {
    const board = await unwrap(
      env.api.GET('/api/boards/{id}', { params: { path: { id: args.boardId } } }),
      env.apiUrl,
    ).catch(() => undefined);
    if (board?.name) parts.push(`board "${board.name}"`);
  }
  const named = parts.filter(Boolean);
  return named.length ? ` — ${named.join(' · ')}` : '';
}
