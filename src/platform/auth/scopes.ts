import { z } from 'zod';

/**
 * The closed catalogue of token scope areas (DESIGN.md §6): one area per resource family. A scope is
 * `area:read` or `area:write`; `write` includes `read`; a scope never widens the role. Areas of the BETA
 * modules are in the catalogue before their routes exist, so tokens made for them keep working.
 */
export const SCOPE_AREAS = {
  account: 'the user itself: profile, API tokens, the organizations it belongs to or creates',
  members: 'memberships and invitations of the organization',
  teams: 'teams and their members',
  boards: 'boards and their structure: phases, fields, tags, field conditions, templates',
  cards: 'cards, comments, moves, card products, card files, the board report',
  contacts: 'contacts, their timeline, import, merge and bulk operations',
  segments: 'segments and their previews (routes that return contacts also need contacts:read)',
  tasks: 'tasks',
  products: 'products and product categories',
  quotes: 'quotes, their PDFs and the PDF templates',
  notifications: 'the user’s notifications in the organization',
  channels: 'chat channels (WhatsApp, e-mail, SMS) and their WhatsApp templates',
  email_templates: 'e-mail templates and assets',
  campaigns: 'campaigns and their sends',
  chat: 'the inbox: inboxes, conversations, messages',
  agenda: 'the agenda, calendar connections and meetings',
  lead_ads: 'lead ads integrations and form routes',
  automations: 'automations and their runs',
  webhooks: 'outbound webhook subscriptions',
  distribution: 'distribution queues',
  saved_filters: 'saved filters',
  conversions: 'conversion pixels',
  audit: 'the organization’s audit log (owners and admins; read only)',
} as const;

export type ScopeArea = keyof typeof SCOPE_AREAS;
export type Scope = `${ScopeArea}:${'read' | 'write'}`;

export const SCOPES = (Object.keys(SCOPE_AREAS) as ScopeArea[]).flatMap(
  (area) => [`${area}:read`, `${area}:write`] as Scope[],
);

export const scopeSchema = z.enum(SCOPES as [Scope, ...Scope[]]);

/** Does a token's scope list (null: all of the role's) grant `required`? `area:write` grants `area:read`. */
export function grants(tokenScopes: readonly string[] | null, required: Scope): boolean {
  if (!tokenScopes) return true;
  if (tokenScopes.includes(required)) return true;
  const [area, access] = required.split(':');
  return access === 'read' && tokenScopes.includes(`${area}:write`);
}

/** The scopes of `required` a token lacks (empty: allowed). */
export function missingScopes(tokenScopes: readonly string[] | null, required: readonly Scope[]): Scope[] {
  return required.filter((s) => !grants(tokenScopes, s));
}
