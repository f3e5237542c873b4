import { type LookupAddress, lookup } from 'node:dns';
import { isIP } from 'node:net';
import { isPublicAddress, OutboundBlockedError } from './safe-fetch.js';

/**
 * For user-given endpoints that are not HTTP (a channel's SMTP server): resolves the host once and refuses it
 * unless every address is public or the host is allow-listed; the caller then connects to the address checked,
 * so a second, different DNS answer cannot slip through.
 */
export async function resolvePublicHost(host: string, allowlist: Set<string>): Promise<string> {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, '');
  const addresses: LookupAddress[] = isIP(bare)
    ? [{ address: bare, family: isIP(bare) }]
    : await new Promise((resolve, reject) =>
        lookup(bare, { all: true }, (err, list) => (err ? reject(err) : resolve(list))),
      );
  if (allowlist.has(bare)) return addresses[0].address;
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  if (bad) throw new OutboundBlockedError(bare, bad.address);
  return addresses[0].address;
}
