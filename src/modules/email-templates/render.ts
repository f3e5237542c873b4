import { validationError } from '../../platform/http/errors.js';
import { htmlToText } from '../../platform/http/rich-text.js';

/**
 * E-mail template variables (DESIGN.md §11): {{contact.name}}, {{contact.email}}, {{contact.phone}},
 * {{organization.name}}, {{unsubscribeUrl}}, {{contact.customFields.KEY}} and a campaign's own
 * {{variables.KEY}}. Values are HTML-escaped in the HTML part; an unknown variable is refused when the
 * template is saved, so a send never meets one.
 */

const VARIABLE = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
const FIXED = new Set([
  'contact.name',
  'contact.email',
  'contact.phone',
  'organization.name',
  'unsubscribeUrl',
]);
const PREFIXED = /^(contact\.customFields|variables)\.[A-Za-z0-9_-]{1,64}$/;

export interface RenderContext {
  contact: {
    name: string;
    email: string | null;
    phone: string | null;
    customFields: Record<string, unknown>;
  };
  organization: { name: string };
  unsubscribeUrl: string;
  variables: Record<string, unknown>;
}

export function checkVariables(parts: { subject?: string; html?: string; text?: string | null }) {
  const errors: { path: string[]; message: string; name: string }[] = [];
  for (const [key, value] of Object.entries(parts)) {
    if (!value) continue;
    for (const m of value.matchAll(VARIABLE)) {
      if (!FIXED.has(m[1]) && !PREFIXED.test(m[1]))
        errors.push({
          path: [key],
          message: `unknown variable {{${m[1]}}}; known: ${[...FIXED].join(', ')}, contact.customFields.KEY, variables.KEY`,
          name: 'ValidationError',
        });
    }
  }
  if (errors.length) throw validationError(errors[0].message, errors);
}

function lookup(name: string, ctx: RenderContext): string {
  const own = (o: Record<string, unknown>, k: string) => (Object.hasOwn(o, k) ? o[k] : undefined);
  let value: unknown;
  if (name === 'contact.name') value = ctx.contact.name;
  else if (name === 'contact.email') value = ctx.contact.email;
  else if (name === 'contact.phone') value = ctx.contact.phone;
  else if (name === 'organization.name') value = ctx.organization.name;
  else if (name === 'unsubscribeUrl') value = ctx.unsubscribeUrl;
  else if (name.startsWith('contact.customFields.'))
    value = own(ctx.contact.customFields, name.slice('contact.customFields.'.length));
  else if (name.startsWith('variables.')) value = own(ctx.variables, name.slice('variables.'.length));
  if (value == null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderString(tpl: string, ctx: RenderContext, html: boolean): string {
  return tpl.replace(VARIABLE, (_, name: string) =>
    html ? escapeHtml(lookup(name, ctx)) : lookup(name, ctx),
  );
}

export function renderEmail(
  tpl: { subject: string; html: string; text: string | null },
  ctx: RenderContext,
): { subject: string; html: string; text: string } {
  const html = renderString(tpl.html, ctx, true);
  return {
    // Header injection: a subject never carries line breaks, whatever a contact's name holds.
    subject: renderString(tpl.subject, ctx, false).replace(/[\r\n]+/g, ' '),
    html,
    text: tpl.text ? renderString(tpl.text, ctx, false) : htmlToText(html),
  };
}
