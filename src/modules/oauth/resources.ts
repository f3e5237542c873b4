import ipaddr from 'ipaddr.js';

/**
 * Which RFC 8707 resource indicators (agent servers' URLs) tokens may be issued for: CRM_OAUTH_RESOURCES,
 * a comma list of absolute URLs (`https://mcp.example.com/mcp`); unset, only agent servers on this machine
 * (http(s) URLs of a loopback address or `localhost`), for development.
 */
export function resourceMatcher(list: string | undefined): (resource: string) => boolean {
  const allowed = new Set(
    (list ?? '')
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean),
  );
  return (resource) => {
    const url = URL.parse(resource);
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash) return false;
    if (allowed.size) return allowed.has(resource);
    return isLoopbackAddress(url.hostname);
  };
}

/** `localhost`, 127.0.0.0/8 and ::1 (brackets allowed). */
function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  if (h.toLowerCase() === 'localhost') return true;
  return ipaddr.isValid(h) && ipaddr.process(h).range() === 'loopback';
}
