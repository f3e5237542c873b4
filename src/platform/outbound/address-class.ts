import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses an outbound call to a user-given URL may reach. Classification is ipaddr.js's (its ranges
 * follow the IANA IPv4 and IPv6 special-purpose registries); what is public:
 * - IPv4: only what ipaddr.js calls `unicast` (everything in the IPv4 special-purpose registry, multicast and
 *   broadcast are named ranges there, and refused);
 * - IPv6: only global unicast (2000::/3) that is in no special-purpose range, except the forms that carry an
 *   IPv4 address, which are judged by the IPv4 they reach: IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96,
 *   NAT64 64:ff9b::/96 (last 32 bits), 6to4 2002::/16 (bits 16–47) and Teredo 2001::/32 (server in bits 32–63,
 *   client in the last 32 bits XOR 0xffffffff: both must be public). The local-use NAT64 prefix 64:ff9b:1::/48
 *   (RFC 8215) is refused outright: it is not globally reachable and where its IPv4 sits depends on the
 *   operator's prefix length, so the address it reaches cannot be known from the address alone.
 */
export type AddressClass =
  | { public: true }
  | {
      public: false;
      /** The special-purpose range, as ipaddr.js names it (`loopback`, `private`, `carrierGradeNat`…). */
      range: string;
      /** For the IPv6 forms that carry an IPv4: the IPv4 judged. */
      embedded?: string;
    };

const PUBLIC: AddressClass = { public: true };

function ipv4Of(bytes: number[], from: number, xor = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(from, from + 4).map((b) => b ^ xor));
}

function judgeIpv4(v4: ipaddr.IPv4, embedded?: string): AddressClass {
  const range = v4.range();
  if (range === 'unicast') return PUBLIC;
  return embedded ? { public: false, range, embedded } : { public: false, range };
}

/** The IPv4 addresses an IPv6 translation form reaches, or undefined when the address is not one. */
function embeddedIpv4(v6: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const w = v6.parts;
  const b = v6.toByteArray();
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && w[5] === 0xffff) return [ipv4Of(b, 12)]; // ::ffff:a.b.c.d (mapped)
  if (zero(0, 6)) return [ipv4Of(b, 12)]; // ::a.b.c.d (compatible; :: and ::1 are refused before)
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return [ipv4Of(b, 12)]; // 64:ff9b::/96
  if (w[0] === 0x2002) return [ipv4Of(b, 2)]; // 6to4
  if (w[0] === 0x2001 && w[1] === 0) return [ipv4Of(b, 4), ipv4Of(b, 12, 0xff)]; // Teredo: server, client
  return undefined;
}

export function classifyAddress(address: string): AddressClass {
  if (!ipaddr.isValid(address)) return { public: false, range: 'invalid' };
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return judgeIpv4(ip as ipaddr.IPv4);
  const v6 = ip as ipaddr.IPv6;
  const named = v6.range();
  if (named === 'unspecified' || named === 'loopback') return { public: false, range: named };
  if (v6.match(ipaddr.IPv6.parse('64:ff9b:1::'), 48)) {
    return { public: false, range: 'rfc8215LocalNat64', embedded: ipv4Of(v6.toByteArray(), 12).toString() };
  }
  const embedded = embeddedIpv4(v6);
  if (embedded) {
    for (const v4 of embedded) {
      const judged = judgeIpv4(v4, v4.toString());
      if (!judged.public) return judged;
    }
    return PUBLIC;
  }
  if (!v6.match(ipaddr.IPv6.parse('2000::'), 3))
    return { public: false, range: named === 'unicast' ? 'reserved' : named };
  return named === 'unicast' ? PUBLIC : { public: false, range: named };
}

/** Is this IP address one an outbound call may reach? (see classifyAddress) */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).public;
}

/** `127.0.0.1 (loopback)`, `2002:7f00:1:: (6to4 of 127.0.0.1, loopback)`: for error messages. */
export function describeAddress(address: string): string {
  const c = classifyAddress(address);
  if (c.public) return address;
  return c.embedded ? `${address} (reaches ${c.embedded}, ${c.range})` : `${address} (${c.range})`;
}
