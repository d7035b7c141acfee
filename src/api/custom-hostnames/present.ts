import type { HostnameStatus } from '../../domain/dns-check.ts';

/** A site's custom hostname with its last check (GitBook's CustomHostname). */
export function presentCustomHostname(
  row: { siteId: string; hostname: string },
  check: { status: string; active: boolean; checkedAt: Date },
  publicUrl: string,
) {
  return {
    object: 'custom-hostname' as const,
    hostname: row.hostname,
    target: { type: 'site' as const, site: row.siteId },
    isActive: check.active,
    status: check.status as HostnameStatus,
    checkedAt: check.checkedAt.toISOString(),
    urls: { location: `${publicUrl}/v1/custom-hostnames/${encodeURIComponent(row.hostname)}` },
  };
}
