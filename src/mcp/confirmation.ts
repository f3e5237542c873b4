import { createHash } from 'node:crypto';
import { type CallToolResult, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, unwrap } from './api-client.js';
import type { ToolCall } from './tool-call.js';

/**
 * Human confirmation of a write (issue 20, docs/mcp.md). The model never holds anything that approves a call:
 * - form elicitation (the client asks the person) where the client supports it;
 * - otherwise a confirmation request kept by the CRM service, which the person approves or declines in the web
 *   application, signed in (an API token cannot decide); with URL elicitation the client opens that page and
 *   the call waits for the decision, else the link goes back with a `confirmationToken` (the request's id) for
 *   a second, identical call, which completes only once the person approved. The service binds the request to
 *   the token's user and organization and spends an approval once, for exactly those arguments; requests live
 *   in its database, so they survive a restart of this server.
 */

export type TokenProblem = 'unknown' | 'mismatch' | 'expired' | 'used';

const problemText: Record<TokenProblem, string> = {
  unknown: 'is not a confirmation request of yours in this organization',
  mismatch:
    'was asked for another tool or other arguments (arguments must be exactly those of the first call)',
  expired: 'has expired before it was used',
  used: 'was already used (each approval confirms one call)',
};

export function describeTokenProblem(problem: TokenProblem): string {
  return `The confirmationToken ${problemText[problem]}. Call the tool again without confirmationToken to get a new confirmation link, give it to the person, and repeat the call with the new token after they approve.`;
}

/**
 * A file's content (the `base64` argument of an attachment or a media upload) longer than this is shown (and
 * bound) by its length and digest: a 50 MB attachment stays out, and nobody reads base64 anyway.
 */
const LONG_FILE = 2000;

/** The argument that carries a file's bytes; every other string is text a person must be able to read. */
const FILE_KEY = 'base64';

/**
 * The arguments as the person sees them and the approval binds them: every text in full (a message, a note, an
 * e-mail body: what will be sent is what is shown), a file's content by size and sha256.
 */
export function boundArguments(value: unknown, key?: string): unknown {
  if (typeof value === 'string' && key === FILE_KEY && value.length > LONG_FILE)
    return `${value.slice(0, 80)}… (${value.length} characters of base64, sha256 ${createHash('sha256').update(value).digest('hex')})`;
  if (Array.isArray(value)) return value.map((v) => boundArguments(v, key));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, boundArguments(v, k)]));
  return value;
}

/**
 * The longest prompt a form elicitation carries. Every text argument the tools cap fits (a WhatsApp message:
 * 4,096 characters; a note or a description: 10,000); a longer one (an e-mail template's HTML) goes to the
 * approval page of the web application, which shows it whole: URL elicitation when the client offers it,
 * else the link and token.
 */
export const FORM_MESSAGE_LIMIT = 16_000;

function formMessage(summary: string, tool: string, args: Record<string, unknown>) {
  return `The assistant wants to ${summary}.\n\nTool: ${tool}\nArguments: ${JSON.stringify(args, null, 2)}\n\nAllow this change?`;
}

type Confirmation = { documentId: string; status: string; url: string; expiresAt: string };

export interface Ask {
  summary: string;
  args: Record<string, unknown>;
  /** What the dry run answered, for the page. */
  preview: unknown;
  token: string | undefined;
}

export type Refusal = CallToolResult;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asks the person; undefined when the call may go ahead, else the tool result to return instead (a refusal,
 * a link to approve, or an error about the token).
 */
export async function confirmCall(
  ctx: ToolCall,
  ask: Ask,
  result: (s: Record<string, unknown>) => CallToolResult,
) {
  const { env } = ctx;
  if (env.confirmation === 'none') return undefined;
  const bound = boundArguments(ask.args) as Record<string, unknown>;
  const tool = ctx.servedName;
  if (ask.token !== undefined) return redeem(ctx, ask.token, bound, ask.summary, result);
  if (ctx.canAskPerson) {
    // The person sees exactly what will be sent, never a cut of it: too long for a form, the approval page.
    const message = formMessage(ask.summary, tool, bound);
    if (message.length <= FORM_MESSAGE_LIMIT) return askInClient(ctx, message, ask.summary, result);
  }

  const created = await unwrap(
    env.api.POST('/api/agent-confirmations', {
      body: {
        data: {
          tool,
          summary: ask.summary,
          arguments: bound,
          preview: ask.preview,
          expiresInSeconds: env.confirmationTtlSeconds,
        },
      },
    }),
    env.apiUrl,
  );
  const link = linkOf(ctx, created);
  if (ctx.canOpenUrl) return askByUrl(ctx, created, link, ask.summary, bound, result);
  return result({
    status: 'confirmation_required',
    message: `Nothing was changed yet. Give the person this link to approve the change (${ask.summary}) in the CRM, signed in: ${link} . After they approve it there, call ${tool} again with exactly the same arguments and confirmationToken; until then that call answers confirmation_required again.`,
    confirmationToken: created.documentId,
    confirmationUrl: link,
    expiresAt: created.expiresAt,
    preview: { tool, summary: ask.summary, arguments: bound },
  });
}

/** The web application's page, on the public origin of the app (MCP_CRM_APP_URL). */
function linkOf(ctx: ToolCall, c: Confirmation) {
  return `${ctx.env.appUrl}${c.url.replace(/^\/app/, '')}`;
}

function refused(
  action: 'decline' | 'cancel',
  summary: string,
  result: (s: Record<string, unknown>) => CallToolResult,
) {
  const status = action === 'decline' ? 'declined' : 'cancelled';
  return result({
    status,
    message: `The person ${status} the change (${summary}); nothing was changed. Do not retry unless they ask.`,
  });
}

/** Form elicitation: the client shows the change to the person, who accepts, declines or cancels. */
async function askInClient(
  ctx: ToolCall,
  message: string,
  summary: string,
  result: (s: Record<string, unknown>) => CallToolResult,
) {
  const answer = await ctx.extra.sendRequest(
    {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message,
        requestedSchema: { type: 'object', properties: {} },
      },
    },
    ElicitResultSchema,
    // A person may take minutes to answer; the SDK's default request timeout is 60 s.
    { timeout: ctx.elicitationTimeoutMs },
  );
  return answer.action === 'accept' ? undefined : refused(answer.action, summary, result);
}

/** URL elicitation: the client opens the approval page; the call waits for the person's decision there. */
async function askByUrl(
  ctx: ToolCall,
  created: Confirmation,
  link: string,
  summary: string,
  args: Record<string, unknown>,
  result: (s: Record<string, unknown>) => CallToolResult,
) {
  const answer = await ctx.extra.sendRequest(
    {
      method: 'elicitation/create',
      params: {
        mode: 'url',
        elicitationId: created.documentId,
        url: link,
        message: `The assistant wants to ${summary}. Open the CRM to approve or decline this change.`,
      },
    },
    ElicitResultSchema,
    { timeout: ctx.elicitationTimeoutMs },
  );
  if (answer.action !== 'accept') return refused(answer.action, summary, result);
  const { env } = ctx;
  const deadline = Date.now() + ctx.elicitationTimeoutMs;
  let status = created.status;
  while (status === 'pending' && Date.now() < deadline && !ctx.extra.signal.aborted) {
    await sleep(1000);
    const now = await unwrap(
      env.api.GET('/api/agent-confirmations/{id}', { params: { path: { id: created.documentId } } }),
      env.apiUrl,
    );
    status = now.status;
  }
  await ctx.extra
    .sendNotification({
      method: 'notifications/elicitation/complete',
      params: { elicitationId: created.documentId },
    })
    .catch(() => undefined);
  return redeem(ctx, created.documentId, args, summary, result);
}

/** Spends the approval for exactly this call, or says why the call cannot go ahead. */
async function redeem(
  ctx: ToolCall,
  token: string,
  args: Record<string, unknown>,
  summary: string,
  result: (s: Record<string, unknown>) => CallToolResult,
): Promise<CallToolResult | undefined> {
  const { env } = ctx;
  const tool = ctx.servedName;
  const call = env.api.POST('/api/agent-confirmations/{id}/redeem', {
    params: { path: { id: token } },
    body: { data: { tool, arguments: args } },
  });
  let answer: Awaited<ReturnType<typeof unwrap<NonNullable<Awaited<typeof call>['data']>>>>;
  try {
    answer = await unwrap(call, env.apiUrl);
  } catch (err) {
    // An id that is not one of this person's requests here (another user's, another organization's, garbage).
    if (err instanceof ApiError && (err.status === 404 || err.status === 400)) throw tokenError('unknown');
    throw err;
  }
  if (answer.redeemed) return undefined;
  switch (answer.reason) {
    case 'pending': {
      const link = linkOf(ctx, answer.data);
      return result({
        status: 'confirmation_required',
        message: `Nothing was changed: the person has not approved this change (${summary}) yet. Ask them to open ${link} and approve it, signed in to the CRM; then call ${tool} again with the same arguments and confirmationToken.`,
        confirmationToken: token,
        confirmationUrl: link,
        expiresAt: answer.data.expiresAt,
        preview: { tool, summary, arguments: args },
      });
    }
    case 'declined':
      return refused('decline', summary, result);
    default:
      throw tokenError((answer.reason ?? 'unknown') as TokenProblem);
  }
}

function tokenError(problem: TokenProblem) {
  return new ApiError(403, 'ConfirmationError', describeTokenProblem(problem), { problem });
}
