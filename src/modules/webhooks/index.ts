// The webhooks module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
// Automations sign their http_request actions as webhooks are signed (Standard Webhooks).
export { newWebhookSecret, webhookHeaders } from './signing.js';
