import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { DnsFacts } from '../domain/dns-check.ts';

/**
 * The DNS lookups of a custom hostname's check (src/domain/dns-check.ts says what they mean):
 * through a resolver of its own, on DNS_SERVERS (default: the system's), each query tried once
 * and the whole check bounded by DNS_TIMEOUT (its queries are cancelled then).
 */

export interface DnsOptions {
  /** `ip` or `ip:port` entries; empty: the system's resolvers. */
  servers: string[];
  timeoutMs: number;
}

/** Codes of an answer that says the name has no such record (not a failure of the lookup). */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND']);

export async function lookupHostname(hostname: string, target: string, options: DnsOptions): Promise<DnsFacts> {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
  if (options.servers.length > 0) resolver.setServers(options.servers);
  let failure: string | undefined;
  const records = async (lookup: () => Promise<string[]>): Promise<string[]> => {
    try {
      return await lookup();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'ERROR';
      if (!NO_RECORD.has(code)) failure ??= code;
      return [];
    }
  };
  const addresses = (name: string) =>
    isIP(name)
      ? Promise.resolve([name.toLowerCase()])
      : Promise.all([records(() => resolver.resolve4(name)), records(() => resolver.resolve6(name))]).then(([a, b]) =>
          [...a, ...b].map((x) => x.toLowerCase()),
        );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
  });
  try {
    const facts = await Promise.race([
      Promise.all([records(() => resolver.resolveCname(hostname)), addresses(hostname), addresses(target)]),
      deadline,
    ]);
    if (facts === 'timeout') return { cnames: [], addresses: [], targetAddresses: [], failure: 'ETIMEOUT' };
    const [cnames, found, targetAddresses] = facts;
    return { cnames, addresses: found, targetAddresses, ...(failure ? { failure } : {}) };
  } finally {
    clearTimeout(timer);
    resolver.cancel();
  }
}
