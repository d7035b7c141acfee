/**
 * What a DNS check of a custom hostname found, and the status it gives (GitBook's
 * CustomHostnameStatus). A hostname is served by this service when it is a CNAME of the sites'
 * host (CUSTOM_HOSTNAME_TARGET), or when it resolves to one of that host's addresses (an A or
 * AAAA record, for an apex or a CNAME through another name).
 *
 * Once DNS passes, the hostname's next step is its TLS certificate, which this service neither
 * issues nor serves (whoever terminates TLS in front of it does): the status says so with
 * `ssl_unknown`, and the hostname is active. `live`, `ssl_pending`, `ssl_failed` and
 * `ssl_retry_expired` would claim knowledge the service does not have, and are never answered.
 */

export const DNS_STATUSES = ['dns_passed', 'dns_wrong_cname', 'dns_no_cname', 'dns_cloudflare_proxied', 'dns_wrong_caa'] as const;
export const SSL_STATUSES = ['live', 'ssl_unknown', 'ssl_pending', 'ssl_failed', 'ssl_retry_expired'] as const;
export const ERROR_STATUSES = ['invalid_domain', 'internal_error'] as const;

export type HostnameStatus = (typeof DNS_STATUSES)[number] | (typeof SSL_STATUSES)[number] | (typeof ERROR_STATUSES)[number];

/** What the resolver answered about a hostname and about the sites' host. */
export interface DnsFacts {
  /** The hostname's CNAME records (empty: none). */
  cnames: string[];
  /** The hostname's A and AAAA addresses, CNAMEs followed (empty: none). */
  addresses: string[];
  /** The sites' host's A and AAAA addresses (itself, when it is an IP address). */
  targetAddresses: string[];
  /** Set when a lookup could not be answered (timeout, refused, server failure): nothing is known. */
  failure?: string;
}

/** A DNS name as compared: lower case, without its trailing dot. */
export const normalizeName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** The status a check's facts give, and whether the hostname is active (served once TLS is in place). */
export function hostnameStatus(facts: DnsFacts, target: string): { status: HostnameStatus; active: boolean } {
  const wanted = normalizeName(target);
  const pointsAtTarget =
    facts.cnames.some((name) => normalizeName(name) === wanted) ||
    facts.addresses.some((address) => facts.targetAddresses.includes(address.toLowerCase()));
  if (pointsAtTarget) return { status: 'ssl_unknown', active: true };
  // A lookup that failed may have hidden the record that points at the target: nothing is known.
  if (facts.failure) return { status: 'internal_error', active: false };
  if (facts.cnames.length > 0 || facts.addresses.length > 0) return { status: 'dns_wrong_cname', active: false };
  return { status: 'dns_no_cname', active: false };
}
