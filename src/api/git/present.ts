import type { GitSyncRow } from '../../db/git-sync.ts';
import { redactText } from '../../domain/git/errors.ts';
import { gitSyncInstallationStatus, gitSyncProvider } from '../spaces/present.ts';

/** Git Sync rows → API objects. Pure. */

const iso = (d: Date | string) => new Date(d).toISOString();

/**
 * A space's Git Sync as GitBook's GitSyncState (as `gitSync` on the space, spaces/present.ts),
 * with what this service adds: the branch, the last sync's outcome and the push webhook.
 */
export function presentGitInfo(row: GitSyncRow, webhookUrl: string) {
  return {
    installationId: row.space_id,
    installationProvider: gitSyncProvider(row.url ?? '', row.provider),
    installationStatus: gitSyncInstallationStatus(row),
    repoName: row.repo_name ?? '',
    integration: row.integration ?? 'git-sync',
    url: row.url ?? '',
    updatedAt: iso(row.updated_at),
    ...(row.ref ? { ref: row.ref } : {}),
    status: row.status,
    ...(row.last_commit ? { lastSyncedCommit: row.last_commit } : {}),
    ...(row.last_operation ? { lastOperation: row.last_operation } : {}),
    ...(row.last_sync_error
      ? {
          lastSyncError: {
            code: row.last_sync_error.code,
            message: redactText(row.last_sync_error.message),
            at: iso(row.last_sync_error.at),
          },
        }
      : {}),
    ...(row.conflict_change_request ? { conflictChangeRequest: row.conflict_change_request } : {}),
    ...(row.webhook_provider && row.webhook_repository && row.webhook_branch
      ? { webhook: { provider: row.webhook_provider, repository: row.webhook_repository, branch: row.webhook_branch, url: webhookUrl } }
      : {}),
  };
}
