import { createHash, randomBytes } from 'node:crypto';
import type { SiteRow } from '../../db/sites.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import type { AppDeps } from '../context.ts';

/**
 * The secrets of sites: each site's visitor signing key, sealed with the service's secrets key, and
 * share-link keys, stored only as their SHA-256 hash.
 */

const box = (deps: AppDeps) => deps.secrets();
const keyContext = (siteId: string) => `site-visitor-key:${siteId}`;

export async function sealSigningKey(deps: AppDeps, siteId: string, key: string) {
  return (await box(deps)).seal(key, keyContext(siteId));
}

export async function openSigningKey(deps: AppDeps, site: Pick<SiteRow, 'id' | 'auth_key_sealed'>) {
  return openSiteSigningKey(await box(deps), site);
}

/** The site's visitor signing key, opened with the service's secret box (an API or a worker process's). */
export function openSiteSigningKey(secrets: SecretBox, site: { id: string; auth_key_sealed: string }): string {
  return secrets.open(site.auth_key_sealed, keyContext(site.id));
}

export const newSigningKey = () => randomBytes(32).toString('base64url');

export const hashShareKey = (key: string) => createHash('sha256').update(key).digest('hex');
