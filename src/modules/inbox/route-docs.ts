import type { Scope } from '../../platform/auth/scopes.js';

// What every inbox route group shares in its OpenAPI entry: the tag, the scopes and the wording.
export const tags = ['Inbox'];
export const read: Scope = 'chat:read';
export const write: Scope = 'chat:write';
export const beta = (s: string) => `BETA: ${s}`;
export const ids =
  'Inbox, conversation and message ids are numeric; contact, card and board ids are documentIds.';
