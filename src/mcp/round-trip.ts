import { createHash, randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { inputRequired } from '@modelcontextprotocol/server';
import { canonicalJson } from '../platform/canonical-json.js';
import { ApiError, unwrap } from './api-client.js';
import {
  type Ask,
  createRequest,
  formMessage,
  linkOf,
  linkResult,
  type ResultOf,
  redeem,
  refused,
  waitForDecision,
} from './approval-requests.js';
import type { RoundState, RoundTrip } from './person-channel.js';
import type { ToolCall } from './tool-call.js';

/**
 * Confirmation in the 2026-07-28 era (Multi Round-Trip Requests). The first call answers with an input request
 * (a form for the client to show the person, or the CRM's approval page to open) and a signed `requestState`
 * naming the tool and the digest of its arguments; the client calls again with the person's answer and that
 * state, possibly on another process. The state is HMAC-sealed with MCP_CRM_STATE_SECRET, expires with the
 * confirmation's time to live, and is bound to the caller's credentials (stateless-http.ts), so a model cannot
 * make one up, and one minted for another call or another person is refused.
 *
 * Spent once: an approval given in the client is spent in the CRM service before the write, as a confirmation
 * request created under the Idempotency-Key `crm-mcp-approval-<id>`; the same state and answer sent again
 * is the service's replay of that key (`Idempotent-Replayed`), and the write is refused. An approval given on
 * the approval page is the service's own confirmation request, redeemed once as in the 2025 era.
 */

const FORM_KEY = 'confirm';
const URL_KEY = 'approve';

export const argumentsDigest = (tool: string, bound: Record<string, unknown>) =>
  createHash('sha256')
    .update(`${tool}\n${canonicalJson(bound)}`)
    .digest('hex');

const stateProblems = {
  mismatch:
    'was given for another tool or other arguments (arguments must be exactly those of the first call)',
  used: 'was already used (each approval confirms one call)',
};

function stateError(problem: keyof typeof stateProblems) {
  return new ApiError(
    403,
    'ConfirmationError',
    `The person's approval ${stateProblems[problem]}. Call the tool again, without requestState, to ask the person anew.`,
    { problem },
  );
}

/** An input-required answer travels as the tool's result; the 2026-07-28 seam of the SDK recognizes it. */
const asToolResult = (value: ReturnType<typeof inputRequired>) => value as unknown as CallToolResult;

export async function confirmByRoundTrip(
  ctx: ToolCall,
  round: RoundTrip,
  ask: Ask,
  bound: Record<string, unknown>,
  result: ResultOf,
): Promise<CallToolResult | undefined> {
  const args = argumentsDigest(ctx.servedName, bound);
  const state = round.state;
  if (!state) return firstRound(ctx, round, ask, bound, args, result);
  // Signed by this deployment, for this caller: still, it must be for exactly this call.
  if (state.tool !== ctx.servedName || state.args !== args) throw stateError('mismatch');
  if (state.kind === 'form') {
    const action = actionOf(round.responses?.[FORM_KEY]);
    if (!action) return askForm(ctx, round, ask.summary, bound, state);
    if (action !== 'accept') return refused(action, ask.summary, result);
    await spendClientApproval(ctx, state.id, ask, bound);
    return undefined;
  }
  const action = actionOf(round.responses?.[URL_KEY]);
  if (action && action !== 'accept') return refused(action, ask.summary, result);
  const read = await ctx.env.api.GET('/api/agent-confirmations/{id}', { params: { path: { id: state.id } } });
  const status = read.data?.status ?? 'pending';
  await waitForDecision(ctx, state.id, status);
  return redeem(ctx, state.id, bound, ask.summary, result);
}

function actionOf(response: unknown): 'accept' | 'decline' | 'cancel' | undefined {
  const action =
    response && typeof response === 'object' ? (response as { action?: unknown }).action : undefined;
  return action === 'accept' || action === 'decline' || action === 'cancel' ? action : undefined;
}

async function firstRound(
  ctx: ToolCall,
  round: RoundTrip,
  ask: Ask,
  bound: Record<string, unknown>,
  args: string,
  result: ResultOf,
) {
  if (formMessage(ctx, ask.summary, bound))
    return askForm(ctx, round, ask.summary, bound, {
      v: 1,
      kind: 'form',
      tool: ctx.servedName,
      args,
      id: randomUUID(),
    });
  const created = await createRequest(ctx, ask, bound);
  if (!ctx.canOpenUrl) return linkResult(ctx, created, ask.summary, bound, result);
  const requestState = await round.mint({
    v: 1,
    kind: 'url',
    tool: ctx.servedName,
    args,
    id: created.documentId,
  });
  return asToolResult(
    inputRequired({
      inputRequests: {
        [URL_KEY]: inputRequired.elicitUrl({
          url: linkOf(ctx, created),
          message: `The assistant wants to ${ask.summary}. Open the CRM to approve or decline this change.`,
        }),
      },
      requestState,
    }),
  );
}

async function askForm(
  ctx: ToolCall,
  round: RoundTrip,
  summary: string,
  bound: Record<string, unknown>,
  state: RoundState,
) {
  const message = formMessage(ctx, summary, bound) ?? summary;
  return asToolResult(
    inputRequired({
      inputRequests: {
        [FORM_KEY]: inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: {} } }),
      },
      requestState: await round.mint(state),
    }),
  );
}

/**
 * Spends a person's approval given in the client, once across every process: a confirmation request the
 * service keeps under the Idempotency-Key of this approval. A second spend is the service's replay of that key
 * (or, while the first is still running, its 409): the approval was used.
 */
async function spendClientApproval(ctx: ToolCall, id: string, ask: Ask, bound: Record<string, unknown>) {
  const { env } = ctx;
  let replayed = false;
  const call = env.api
    .POST('/api/agent-confirmations', {
      headers: { 'idempotency-key': `crm-mcp-approval-${id}` },
      body: {
        data: {
          tool: ctx.servedName,
          summary: `${ask.summary} (approved in the assistant's client)`,
          arguments: bound,
          // Nothing to decide on the page: it expires at once and only records that this approval was spent.
          expiresInSeconds: 1,
        },
      },
    })
    .then((answer) => {
      replayed = answer.response.headers.get('idempotent-replayed') === 'true';
      return answer;
    });
  try {
    // Any other refusal is the service's own (e.g. a token without account:write), passed on as it is.
    await unwrap(call, env.apiUrl);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 409 || err.status === 422)) throw stateError('used');
    throw err;
  }
  if (replayed) throw stateError('used');
}
