import ipaddr from 'ipaddr.js';

/**
 * Which part of the address space an IP address belongs to, as far as outbound fetches are
 * concerned. Only 'public' addresses are reachable by default; everything else is refused unless
 * an operator opts in. Classification is conservative: anything IANA does not list as globally
 * reachable unicast is not 'public'.
 */
export const ADDRESS_CLASSES = ['public', 'loopback', 'private', 'link-local', 'metadata', 'reserved'] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

const v4 = (cidr: string): Range => ipaddr.IPv4.parseCIDR(cidr);
const v6 = (cidr: string): Range => ipaddr.IPv6.parseCIDR(cidr);

/**
 * Cloud instance metadata and similar host-local control endpoints. Most already sit in a
 * non-public range; naming them lets callers and logs tell "someone aimed at the metadata service"
 * apart from an ordinary private address.
 */
const METADATA = [
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle … instance metadata
  '169.254.170.2', // AWS ECS task metadata and credentials
  '169.254.170.23', // AWS EKS pod identity agent
  '100.100.100.200', // Alibaba Cloud metadata
  '168.63.129.16', // Azure WireServer / host agent
  'fd00:ec2::254', // AWS instance metadata over IPv6
  'fd00:ec2::23', // AWS EKS pod identity agent over IPv6
].map((a) => ipaddr.parse(a).toNormalizedString());

const V4_RANGES: [Range, AddressClass][] = [
  [v4('0.0.0.0/8'), 'reserved'], // "this network"; 0.0.0.0 reaches the local host on Linux
  [v4('10.0.0.0/8'), 'private'],
  [v4('100.64.0.0/10'), 'private'], // carrier-grade NAT shared space
  [v4('127.0.0.0/8'), 'loopback'],
  [v4('169.254.0.0/16'), 'link-local'],
  [v4('172.16.0.0/12'), 'private'],
  [v4('192.0.0.0/24'), 'reserved'], // IETF protocol assignments
  [v4('192.0.2.0/24'), 'reserved'], // TEST-NET-1
  [v4('192.88.99.0/24'), 'reserved'], // deprecated 6to4 relay anycast
  [v4('192.168.0.0/16'), 'private'],
  [v4('198.18.0.0/15'), 'reserved'], // benchmarking
  [v4('198.51.100.0/24'), 'reserved'], // TEST-NET-2
  [v4('203.0.113.0/24'), 'reserved'], // TEST-NET-3
  [v4('224.0.0.0/4'), 'reserved'], // multicast
  [v4('240.0.0.0/4'), 'reserved'], // future use, includes 255.255.255.255 broadcast
];

/** IPv6 ranges that carry an IPv4 address in their last 32 bits and are judged by it. */
const V6_EMBEDDING_V4: Range[] = [
  v6('::ffff:0:0/96'), // IPv4-mapped
  v6('::ffff:0:0:0/96'), // IPv4-translated (RFC 6145)
  v6('64:ff9b::/96'), // NAT64 well-known prefix (RFC 6052)
];

const V6_RANGES: [Range, AddressClass][] = [
  [v6('64:ff9b:1::/48'), 'private'], // local-use NAT64 (RFC 8215)
  [v6('::/8'), 'reserved'], // the IETF-reserved block, including deprecated IPv4-compatible ::a.b.c.d
  [v6('100::/64'), 'reserved'], // discard-only
  [v6('2001::/23'), 'reserved'], // IETF protocol assignments: Teredo, ORCHID, benchmarking …
  [v6('2001:db8::/32'), 'reserved'], // documentation
  [v6('3fff::/20'), 'reserved'], // documentation (RFC 9637)
  [v6('5f00::/16'), 'reserved'], // SRv6 SIDs
  [v6('fc00::/7'), 'private'], // unique local
  [v6('fe80::/10'), 'link-local'],
  [v6('fec0::/10'), 'private'], // deprecated site-local
  [v6('ff00::/8'), 'reserved'], // multicast
];

const UNSPECIFIED_V6 = v6('::/128');
const LOOPBACK_V6 = v6('::1/128');
const GLOBAL_UNICAST_V6 = v6('2000::/3');
const SIX_TO_FOUR = v6('2002::/16');

function parse(ip: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (!ipaddr.isValid(text)) throw new Error(`"${ip}" is not an IP address`);
  return ipaddr.parse(text);
}

function classifyV4(addr: ipaddr.IPv4): AddressClass {
  if (METADATA.includes(addr.toNormalizedString())) return 'metadata';
  for (const [range, cls] of V4_RANGES) if (addr.match(range)) return cls;
  return 'public';
}

function classifyV6(addr: ipaddr.IPv6): AddressClass {
  const plain = new ipaddr.IPv6(addr.parts); // without any zone id
  if (METADATA.includes(plain.toNormalizedString())) return 'metadata';
  if (plain.match(UNSPECIFIED_V6)) return 'reserved';
  if (plain.match(LOOPBACK_V6)) return 'loopback';
  for (const range of V6_EMBEDDING_V4) if (plain.match(range)) return classifyV4(lastFourBytes(plain));
  if (plain.match(SIX_TO_FOUR)) {
    // 6to4 routes to the IPv4 address in bits 16–48; it must not become a way around the IPv4 rules.
    return classifyV4(new ipaddr.IPv4(plain.toByteArray().slice(2, 6)));
  }
  for (const [range, cls] of V6_RANGES) if (plain.match(range)) return cls;
  return plain.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
}

function lastFourBytes(addr: ipaddr.IPv6): ipaddr.IPv4 {
  return new ipaddr.IPv4(addr.toByteArray().slice(12));
}

/**
 * Classifies an IPv4 or IPv6 address (IPv6 may be bracketed or carry a zone id). IPv6 forms that
 * embed an IPv4 address (mapped, translated, NAT64, 6to4) are classified by the embedded address.
 * Throws when the text is not an IP address.
 */
export function classifyAddress(ip: string): AddressClass {
  const addr = parse(ip.trim());
  return addr.kind() === 'ipv4' ? classifyV4(addr as ipaddr.IPv4) : classifyV6(addr as ipaddr.IPv6);
}

/** True when the text is an IPv4 or IPv6 literal (brackets allowed around IPv6). */
export function isIpLiteral(host: string): boolean {
  const text = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.IPv6.isValid(text) || ipaddr.IPv4.isValidFourPartDecimal(text);
}

interface HostPort {
  host: string;
  port: string | null;
}

/** Splits `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 literal; lowercases, drops a trailing dot. */
function splitHostPort(text: string): HostPort {
  let host = text.trim().toLowerCase();
  let port: string | null = null;
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end !== -1) {
      const rest = host.slice(end + 1);
      if (rest.startsWith(':')) port = rest.slice(1);
      host = host.slice(1, end);
    }
  } else if (host.split(':').length === 2) {
    [host, port] = host.split(':');
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (ipaddr.IPv6.isValid(host)) host = ipaddr.IPv6.parse(host).toNormalizedString();
  return { host, port: port === '' ? null : port };
}

/**
 * Whether `hostname` (optionally with `:port`) is covered by an operator's allow list. Entries
 * match case-insensitively and exactly; an entry without a port matches any port, one with a
 * port only that port; `*.example.com` matches every subdomain of example.com but not
 * example.com itself. IPv6 entries may be written with or without brackets.
 */
export function isHostAllowed(hostname: string, allowHosts: readonly string[]): boolean {
  const target = splitHostPort(hostname);
  if (target.host === '') return false;
  for (const raw of allowHosts) {
    if (raw.trim() === '') continue;
    const entry = splitHostPort(raw);
    if (entry.port !== null && entry.port !== target.port) continue;
    if (entry.host.startsWith('*.')) {
      const suffix = entry.host.slice(1); // ".example.com"
      if (suffix.length > 1 && target.host.endsWith(suffix) && target.host.length > suffix.length) return true;
    } else if (entry.host === target.host) {
      return true;
    }
  }
  return false;
}
