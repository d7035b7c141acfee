import type { Space } from '../../db/entities.ts';
import { spacePermissions, type Role } from '../../domain/roles.ts';
import type { Urls } from '../object-urls.ts';
import type { SpaceGitSync } from '../../db/access.ts';

/** GitBook's `GitSyncProvider`: the Git Sync installations GitBook knows. */
export type GitSyncProvider = 'github' | 'gitlab' | 'github-legacy';

/** GitBook's `GitSyncInstallationStatus`. */
export type GitSyncInstallationStatus = 'unauthenticated' | 'active' | 'pending';

const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
};

/**
 * The provider of a space's Git Sync, from the repository URL's host: github.com (or a GitHub
 * Enterprise host, named after GitHub) is `github`, gitlab.com or a host named after GitLab is
 * `gitlab`. Any other host (Gitea, Bitbucket, a self-hosted server) answers the provider the caller
 * stated when it is one of the two, and otherwise `gitlab`: GitBook's GitLab Git Sync is the one
 * that syncs with a repository on a host of the user's choosing with a token the user gives, which
 * is how this service syncs with any host. `github-legacy` (GitBook's retired GitHub app) never fits.
 */
export function gitSyncProvider(url: string, stated: string | null): GitSyncProvider {
  const host = hostOf(url);
  if (host === 'github.com' || host.endsWith('.github.com') || host.split('.').includes('github')) return 'github';
  if (host === 'gitlab.com' || host.endsWith('.gitlab.com') || host.split('.').includes('gitlab')) return 'gitlab';
  return stated === 'github' ? 'github' : 'gitlab';
}

/**
 * The state of a space's Git Sync installation, from its sync state: `unauthenticated` when the
 * last sync failed because the repository host refused the credentials (AUTH_REFUSED); `active`
 * once a sync has completed (the repository was reached with what was given), even if a later one
 * failed for another reason; `pending` while none has completed yet (the first is queued or
 * running, or failed for a reason other than credentials).
 */
export function gitSyncInstallationStatus(
  sync: Pick<SpaceGitSync, 'status' | 'last_applied_at' | 'last_sync_error'>,
): GitSyncInstallationStatus {
  const error = sync.last_sync_error as { code?: unknown } | null;
  if (sync.status === 'failed' && error?.code === 'AUTH_REFUSED') return 'unauthenticated';
  return sync.last_applied_at !== null ? 'active' : 'pending';
}

/**
 * `gitSync` on a space, as GitBook's `GitSyncState`. The installation is the space's Git Sync
 * configuration, the one `git_sync` row a space has: its id is that row's key, the space id,
 * which stays the same while the space syncs (also when the repository or branch changes).
 */
export function presentSpaceGitSync(sync: SpaceGitSync & { url: string }) {
  return {
    installationId: sync.space_id,
    installationProvider: gitSyncProvider(sync.url, sync.provider),
    installationStatus: gitSyncInstallationStatus(sync),
    ...(sync.repo_name ? { repoName: sync.repo_name } : {}),
    ...(sync.integration ? { integration: sync.integration } : {}),
    url: sync.url,
    updatedAt: new Date(sync.updated_at).toISOString(),
  };
}

/** A space with its counters, which the database keeps on the space row. */
export function presentSpace(space: Space, role: Role | null, urls: Urls, gitSync?: SpaceGitSync) {
  const spaceUrls: { location: string; app: string; published?: string; public?: string } = urls.space(space.id);
  return {
    object: 'space' as const,
    id: space.id,
    title: space.title,
    emoji: space.emoji,
    visibility: space.visibility,
    createdAt: space.createdAt.toISOString(),
    updatedAt: space.updatedAt.toISOString(),
    ...(space.deletedAt ? { deletedAt: space.deletedAt.toISOString() } : {}),
    editMode: space.editMode,
    organization: space.organizationId,
    ...(space.parentId ? { parent: space.parentId } : {}),
    ...(gitSync?.url ? { gitSync: presentSpaceGitSync({ ...gitSync, url: gitSync.url }) } : {}),
    revision: space.revisionId,
    defaultLevel: space.defaultLevel ?? null,
    comments: space.commentsOpen,
    changeRequests: space.changeRequests,
    changeRequestsOpen: space.changeRequestsOpen,
    changeRequestsDraft: space.changeRequestsDraft,
    mergeRules: space.mergeRules ?? { type: 'inherit' },
    urls: spaceUrls,
    permissions: spacePermissions(role, space.editMode),
  };
}
