import type { ApiClient } from './api-client.js';
import type { PersonChannel } from './person-channel.js';

/** What every tool handler gets: the typed API clients and how writes are confirmed. */
export interface ToolEnv {
  api: ApiClient;
  /** The same client asking for dry runs: a write answers what it would do (or its 4xx) and does nothing. */
  dryApi: ApiClient;
  apiUrl: string;
  /** Base URL of the web application (…/app), for record links and confirmation pages. */
  appUrl: string;
  /** `person`: every write waits for a person's approval; `none`: waived by the operator (MCP_CRM_CONFIRMATION). */
  confirmation: 'person' | 'none';
  /** How long a person has to decide (seconds). */
  confirmationTtlSeconds: number;
  /** A hash of the credentials, for what is cached per token (its scopes: tool-access.ts); unset: per environment. */
  credentialKey?: string;
}

/** What a call gets besides its arguments. */
export interface ToolCall {
  env: ToolEnv;
  /** How the person who approves a write is asked: pushed requests (2025 era) or round trips (2026-07-28). */
  person: PersonChannel;
  /** The client declared form elicitation: the person can be asked in the client. */
  canAskPerson: boolean;
  /** The client declared URL elicitation: it can open the approval page for the person. */
  canOpenUrl: boolean;
  /** The name this server serves the tool under (the separator applied), for messages. */
  servedName: string;
  /** How long to wait for a person's answer to an elicitation. */
  elicitationTimeoutMs: number;
}
