import { removeHostname, saveHostnameCheck, siteByHostname, type HostnameRow } from '../../db/custom-hostnames.ts';
import { transaction } from '../../db/orm.ts';
import { hostnameStatus } from '../../domain/dns-check.ts';
import { atLeast } from '../../domain/roles.ts';
import { lookupHostname } from '../../lib/dns-check.ts';
import type { Ctx } from '../context.ts';
import { HttpError, notFound } from '../errors.ts';
import { siteRole } from '../sites/site-access.ts';
import { presentCustomHostname } from './present.ts';

/**
 * Custom hostnames: a site's `hostname` setting, seen from the hostname. Only members who can
 * manage the site (the admin role on it, organization role or site grant) see it; everyone else
 * gets 404, as for a hostname no site uses. Its status is a real DNS check (src/lib/dns-check.ts,
 * src/domain/dns-check.ts), stored with the time it was made: made on the first read of a hostname
 * and again on every revalidation.
 */

/** The site using the hostname, for a caller who can manage it; 404 otherwise. */
async function managedHostname(ctx: Ctx, hostname: string): Promise<HostnameRow> {
  const row = await siteByHostname(ctx.em, hostname.toLowerCase());
  if (!row) throw notFound('Custom hostname');
  const role = await siteRole(ctx, row.organizationId, row.siteId).catch((error: unknown) => {
    if (error instanceof HttpError && error.statusCode === 404) return undefined;
    throw error;
  });
  if (!atLeast(role, 'admin')) throw notFound('Custom hostname');
  return row;
}

/** Checks the hostname's DNS now (bounded by DNS_TIMEOUT, outside any transaction) and stores the result. */
async function check(ctx: Ctx, row: HostnameRow) {
  const { target, dnsServers, dnsTimeoutMs } = ctx.deps.config.customHostnames;
  const facts = await lookupHostname(row.hostname, target, { servers: dnsServers, timeoutMs: dnsTimeoutMs });
  const result = { hostname: row.hostname, ...hostnameStatus(facts, target), checkedAt: new Date() };
  await transaction(ctx.em, (tx) => saveHostnameCheck(tx, row.siteId, result));
  return result;
}

export async function getCustomHostname(ctx: Ctx, hostname: string) {
  const row = await managedHostname(ctx, hostname);
  const last = row.check ?? (await check(ctx, row));
  return presentCustomHostname(row, last, ctx.deps.config.publicUrl);
}

/** Checks the hostname's DNS again. */
export async function revalidateCustomHostname(ctx: Ctx, hostname: string): Promise<void> {
  await check(ctx, await managedHostname(ctx, hostname));
}

/** Takes the hostname away from its site (the site is served at its address under SITES_URL again). */
export async function removeCustomHostname(ctx: Ctx, hostname: string): Promise<void> {
  const row = await managedHostname(ctx, hostname);
  if (!(await removeHostname(ctx.em, row.siteId, row.hostname))) throw notFound('Custom hostname');
}
