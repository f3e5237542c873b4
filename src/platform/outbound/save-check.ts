import { type LookupAddress, lookup } from 'node:dns';
import { isIP } from 'node:net';
import { validationError } from '../http/errors.js';
import { isPublicAddress } from './address-class.js';
import { bareHost, isLocalName, OutboundBlockedError, parseAllowlist } from './safe-fetch.js';

/** A name that does not answer within this is saved (the connect-time check still guards the call). */
const RESOLVE_TIMEOUT_MS = 3_000;

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve([]), RESOLVE_TIMEOUT_MS);
    lookup(host, { all: true }, (err, list) => {
      clearTimeout(timer);
      resolve(err ? [] : list);
    });
  });
}

/**
 * The save-time half of the SSRF guard: a user-given URL whose host is an internal address (a literal, a local
 * name, or a name that resolves to one today) is refused when it is saved, not first when it is called. A name
 * that does not resolve is saved: it is judged again at connect time, where the answer may differ anyway.
 * Hosts in CRM_OUTBOUND_ALLOWLIST are exempt, as at connect time.
 */
export async function findInternalTarget(
  url: string,
  allowlist: string | undefined,
): Promise<OutboundBlockedError | null> {
  let host: string;
  try {
    host = bareHost(new URL(url).hostname);
  } catch {
    return null; // not a URL: the schema answers that
  }
  const allowed = parseAllowlist(allowlist);
  if (!host || allowed.has(host)) return null;
  if (isLocalName(host)) return new OutboundBlockedError(host, undefined, 'a local name: refused');
  if (isIP(host)) return isPublicAddress(host) ? null : new OutboundBlockedError(host);
  const bad = (await resolveAll(host)).find((a) => !isPublicAddress(a.address) && !allowed.has(a.address));
  return bad ? new OutboundBlockedError(host, bad.address) : null;
}

/**
 * A 400 (ValidationError) naming the field and the rule (`details.rule: "public_address"`) when the URL's host
 * is internal; nothing otherwise.
 */
export async function requirePublicUrl(
  url: string | undefined | null,
  field: (string | number)[],
  allowlist: string | undefined,
): Promise<void> {
  if (!url) return;
  const refused = await findInternalTarget(url, allowlist);
  if (!refused) return;
  throw validationError(
    `${field.join('.')} is refused: ${refused.message}. Use a public address the service can reach from the internet; an operator can allow an internal host with CRM_OUTBOUND_ALLOWLIST.`,
    [{ path: field, message: refused.message, name: 'public_address' }],
    { rule: 'public_address' },
  );
}
