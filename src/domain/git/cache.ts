import { createHash } from 'node:crypto';

/**
 * The name of the bare repository that caches a Git Sync request's fetches: one per space and
 * repository URL, or, with `repoCacheID`, one per organization and cache id, shared by that
 * organization's spaces. Never across organizations: a cache holds the objects of every
 * repository fetched into it, credentials or not.
 */
export function gitCacheName(request: { spaceId: string; url: string; repoCacheID?: string; organizationId: string }): string {
  const key = request.repoCacheID
    ? `org:${request.organizationId}:cache:${request.repoCacheID}`
    : `space:${request.spaceId}:${request.url}`;
  return `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.git`;
}
