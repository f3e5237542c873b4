import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type Ask,
  type Confirmation,
  createRequest,
  formMessage,
  linkOf,
  linkResult,
  type ResultOf,
  redeem,
  refused,
  waitForDecision,
} from './approval-requests.js';
import type { PushChannel } from './person-channel.js';
import { confirmByRoundTrip } from './round-trip.js';
import type { ToolCall } from './tool-call.js';

export {
  type Ask,
  describeTokenProblem,
  FORM_MESSAGE_LIMIT,
  type TokenProblem,
} from './approval-requests.js';

/**
 * Human confirmation of a write (issue 20, docs/mcp.md). The model never holds anything that approves a call:
 * - form elicitation (the client asks the person) where the client supports it: pushed to the client in a
 *   2025-era session, or an input request of a round trip in the 2026-07-28 era (round-trip.ts);
 * - otherwise a confirmation request kept by the CRM service, which the person approves or declines in the web
 *   application, signed in (an API token cannot decide); with URL elicitation the client opens that page and
 *   the call waits for the decision, else the link goes back with a `confirmationToken` (the request's id) for
 *   a second, identical call, which completes only once the person approved. The service binds the request to
 *   the token's user and organization and spends an approval once, for exactly those arguments; requests live
 *   in its database, so they survive a restart of this server.
 */

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

export type Refusal = CallToolResult;

/**
 * Asks the person; undefined when the call may go ahead, else the tool result to return instead (a refusal,
 * a link to approve, an input request of the next round, or an error about the token).
 */
export async function confirmCall(ctx: ToolCall, ask: Ask, result: ResultOf) {
  if (ctx.env.confirmation === 'none') return undefined;
  const bound = boundArguments(ask.args) as Record<string, unknown>;
  if (ask.token !== undefined) return redeem(ctx, ask.token, bound, ask.summary, result);
  const { person } = ctx;
  if (person.era === 'round-trip') return confirmByRoundTrip(ctx, person, ask, bound, result);
  const message = formMessage(ctx, ask.summary, bound);
  if (message) return askInClient(person, ctx, message, ask.summary, result);
  const created = await createRequest(ctx, ask, bound);
  if (ctx.canOpenUrl) return askByUrl(person, ctx, created, ask.summary, bound, result);
  return linkResult(ctx, created, ask.summary, bound, result);
}

/** Form elicitation: the client shows the change to the person, who accepts, declines or cancels. */
async function askInClient(
  person: PushChannel,
  ctx: ToolCall,
  message: string,
  summary: string,
  result: ResultOf,
) {
  // A person may take minutes to answer; the SDK's default request timeout is 60 s.
  const answer = await person.elicit(
    { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
    ctx.elicitationTimeoutMs,
  );
  return answer.action === 'accept' ? undefined : refused(answer.action, summary, result);
}

/** URL elicitation: the client opens the approval page; the call waits for the person's decision there. */
async function askByUrl(
  person: PushChannel,
  ctx: ToolCall,
  created: Confirmation,
  summary: string,
  args: Record<string, unknown>,
  result: ResultOf,
) {
  const answer = await person.elicit(
    {
      mode: 'url',
      elicitationId: created.documentId,
      url: linkOf(ctx, created),
      message: `The assistant wants to ${summary}. Open the CRM to approve or decline this change.`,
    },
    ctx.elicitationTimeoutMs,
  );
  if (answer.action !== 'accept') return refused(answer.action, summary, result);
  await waitForDecision(ctx, created.documentId, created.status);
  await person
    .notify({
      method: 'notifications/elicitation/complete',
      params: { elicitationId: created.documentId },
    })
    .catch(() => undefined);
  return redeem(ctx, created.documentId, args, summary, result);
}
