import type { ElicitRequest, ElicitResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/**
 * How a call reaches the person who approves it, by protocol era (docs/mcp.md, "Two protocol eras"):
 * - `push` (2025-06-18, 2025-11-25: a session): the server sends `elicitation/create` to the client and waits;
 * - `round-trip` (2026-07-28, stateless): the call answers with an input request and ends; the client asks the
 *   person and calls again with the answer and the signed `requestState` (Multi Round-Trip Requests). Any
 *   process of the deployment may answer the retry: nothing is kept in memory between the rounds.
 */
export type PersonChannel = PushChannel | RoundTrip;

export interface PushChannel {
  era: 'push';
  signal: AbortSignal;
  elicit(params: ElicitRequest['params'], timeoutMs: number): Promise<ElicitResult>;
  notify(notification: ServerNotification): Promise<void>;
}

/** What a confirmation carries from one round to the next, signed (MCP_CRM_STATE_SECRET) and bound to the caller. */
export interface RoundState {
  v: 1;
  /** `form`: the person answers in the client; `url`: on the CRM's approval page. */
  kind: 'form' | 'url';
  /** The served tool name and the sha256 of its bound arguments: the answer approves exactly this call. */
  tool: string;
  args: string;
  /** form: the approval's one-time id (spent in the service); url: the service's confirmation request. */
  id: string;
}

export interface RoundTrip {
  era: 'round-trip';
  signal: AbortSignal;
  /** The verified state of the previous round, undefined on the first. */
  state: RoundState | undefined;
  /** The client's answers to the previous round's input requests, by key (untrusted input). */
  responses: Record<string, unknown> | undefined;
  /** Seals a state for the next round (HMAC, with an expiry, bound to the caller's credentials). */
  mint(state: RoundState): Promise<string>;
}
