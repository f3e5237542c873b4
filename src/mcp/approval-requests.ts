import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, unwrap } from './api-client.js';
import type { ToolCall } from './tool-call.js';

/**
 * The confirmation requests kept by the CRM service (src/modules/agent-confirmations): the person approves or
 * declines one in the web application, signed in; the service spends an approval once, for exactly the
 * arguments it was asked for. Both protocol eras use them when the person decides on the approval page.
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

export function tokenError(problem: TokenProblem) {
  return new ApiError(403, 'ConfirmationError', describeTokenProblem(problem), { problem });
}

export type Confirmation = { documentId: string; status: string; url: string; expiresAt: string };

export type ResultOf = (s: Record<string, unknown>) => CallToolResult;

export interface Ask {
  summary: string;
  args: Record<string, unknown>;
  /** What the dry run answered, for the page. */
  preview: unknown;
  token: string | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A new request for the person to decide in the web application. */
export async function createRequest(ctx: ToolCall, ask: Ask, bound: Record<string, unknown>) {
  const { env } = ctx;
  return unwrap(
    env.api.POST('/api/agent-confirmations', {
      body: {
        data: {
          tool: ctx.servedName,
          summary: ask.summary,
          arguments: bound,
          preview: ask.preview,
          expiresInSeconds: env.confirmationTtlSeconds,
        },
      },
    }),
    env.apiUrl,
  );
}

/** The web application's page, on the public origin of the app (MCP_CRM_APP_URL). */
export function linkOf(ctx: ToolCall, c: Pick<Confirmation, 'url'>) {
  return `${ctx.env.appUrl}${c.url.replace(/^\/app/, '')}`;
}

export function refused(action: 'decline' | 'cancel', summary: string, result: ResultOf) {
  const status = action === 'decline' ? 'declined' : 'cancelled';
  return result({
    status,
    message: `The person ${status} the change (${summary}); nothing was changed. Do not retry unless they ask.`,
  });
}

/** The link and token for a person to approve on the page, and for the model to call again with. */
export function linkResult(
  ctx: ToolCall,
  created: Confirmation,
  summary: string,
  bound: Record<string, unknown>,
  result: ResultOf,
) {
  const tool = ctx.servedName;
  const link = linkOf(ctx, created);
  return result({
    status: 'confirmation_required',
    message: `Nothing was changed yet. Give the person this link to approve the change (${summary}) in the CRM, signed in: ${link} . After they approve it there, call ${tool} again with exactly the same arguments and confirmationToken; until then that call answers confirmation_required again.`,
    confirmationToken: created.documentId,
    confirmationUrl: link,
    expiresAt: created.expiresAt,
    preview: { tool, summary, arguments: bound },
  });
}

/** Waits (polling the service) while the request is pending, at most the elicitation timeout. */
export async function waitForDecision(ctx: ToolCall, id: string, status: string) {
  const { env } = ctx;
  const deadline = Date.now() + ctx.elicitationTimeoutMs;
  let now = status;
  while (now === 'pending' && Date.now() < deadline && !ctx.person.signal.aborted) {
    await sleep(1000);
    const read = await unwrap(
      env.api.GET('/api/agent-confirmations/{id}', { params: { path: { id } } }),
      env.apiUrl,
    );
    now = read.status;
  }
  return now;
}

/** Spends the approval for exactly this call, or says why the call cannot go ahead. */
export async function redeem(
  ctx: ToolCall,
  token: string,
  args: Record<string, unknown>,
  summary: string,
  result: ResultOf,
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

/**
 * The longest prompt a form elicitation carries. Every text argument the tools cap fits (a WhatsApp message:
 * 4,096 characters; a note or a description: 10,000); a longer one (an e-mail template's HTML) goes to the
 * approval page of the web application, which shows it whole: URL elicitation when the client offers it,
 * else the link and token.
 */
export const FORM_MESSAGE_LIMIT = 16_000;

/** The form a person answers in the client, or undefined when the client cannot show one or it is too long. */
export function formMessage(ctx: ToolCall, summary: string, args: Record<string, unknown>) {
  if (!ctx.canAskPerson) return undefined;
  // The person sees exactly what will be sent, never a cut of it: too long for a form, the approval page.
  const message = `The assistant wants to ${summary}.\n\nTool: ${ctx.servedName}\nArguments: ${JSON.stringify(args, null, 2)}\n\nAllow this change?`;
  return message.length <= FORM_MESSAGE_LIMIT ? message : undefined;
}
