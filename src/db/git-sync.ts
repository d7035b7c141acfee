import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/** Git Sync state, requests and webhook deliveries (see Migration0011GitSync). */

/** The context a request's sealed credentials are bound to: they open for that request only. */
export const requestSecretContext = (requestId: string) => `git-sync-request:${requestId}`;

export interface GitSyncRow {
  space_id: string;
  provider: string | null;
  url: string | null;
  ref: string | null;
  repo_name: string | null;
  integration: string | null;
  project_directory: string | null;
  last_applied_at: Date | null;
  last_commit: string | null;
  last_revision: string | null;
  last_operation: string | null;
  status: string;
  last_sync_error: { code: string; message: string; at: string } | null;
  conflict_change_request: string | null;
  webhook_provider: string | null;
  webhook_repository: string | null;
  webhook_branch: string | null;
  webhook_secret: string | null;
  webhook_credentials: string | null;
  created_at: Date;
  updated_at: Date;
}

export type GitSyncRequestState = 'queued' | 'applied' | 'unchanged' | 'skipped' | 'failed' | 'conflict';

export interface GitSyncRequestRow {
  id: string;
  space_id: string;
  kind: 'import' | 'export';
  requested_at: Date;
  params: GitSyncParams;
  credentials: string | null;
  requested_by: string | null;
  state: GitSyncRequestState;
  revision_id: string | null;
  commit: string | null;
  detail: { code?: string; message?: string; changeRequestId?: string } | null;
  created_at: Date;
  finished_at: Date | null;
}

/** What a request asks for, without credentials (the URL is stored without them). */
export interface GitSyncParams {
  url: string;
  ref: string;
  repoCacheID?: string;
  repoTreeURL?: string;
  repoCommitURL?: string;
  repoProjectDirectory?: string;
  force?: boolean;
  standalone?: boolean;
  commitMessage?: string;
  provider?: string;
}

export async function loadGitSync(em: Em, spaceId: string): Promise<GitSyncRow | undefined> {
  return (await sql<GitSyncRow>(em, 'select * from git_sync where space_id = ?', [spaceId]))[0];
}

/** Git sync rows of many spaces (those that have one), by space id, in one statement. */
export async function loadGitSyncs(em: Em, spaceIds: string[]): Promise<Map<string, GitSyncRow>> {
  if (spaceIds.length === 0) return new Map();
  const rows = await sql<GitSyncRow>(
    em,
    'select * from git_sync where space_id in (select jsonb_array_elements_text(?::jsonb)) and url is not null',
    [JSON.stringify(spaceIds)],
  );
  return new Map(rows.map((r) => [r.space_id, r]));
}

/** The git sync row of a space, locked for the rest of the transaction (created when missing). */
export async function lockGitSync(em: Em, spaceId: string): Promise<GitSyncRow> {
  await sql(em, 'insert into git_sync (space_id) values (?) on conflict do nothing', [spaceId]);
  return (await sql<GitSyncRow>(em, 'select * from git_sync where space_id = ? for update', [spaceId]))[0];
}

/** Sets (or creates) the repository a space syncs with. */
export async function saveGitSyncTarget(
  em: Em,
  spaceId: string,
  target: {
    provider: string | null;
    url: string;
    ref: string;
    repoName: string;
    integration: string | null;
    projectDirectory: string | null;
  },
): Promise<void> {
  await sql(
    em,
    `insert into git_sync (space_id, provider, url, ref, repo_name, integration, project_directory)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (space_id) do update set provider = excluded.provider, url = excluded.url, ref = excluded.ref,
       repo_name = excluded.repo_name, integration = excluded.integration, project_directory = excluded.project_directory, updated_at = now()`,
    [spaceId, target.provider, target.url, target.ref, target.repoName, target.integration, target.projectDirectory],
  );
}

/** Updates the sync state of a space with the given columns. */
export async function updateGitSync(em: Em, spaceId: string, patch: Partial<Omit<GitSyncRow, 'space_id' | 'created_at'>>): Promise<void> {
  const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return;
  const sets = entries.map(([k]) => `${k} = ?${k === 'last_sync_error' ? '::jsonb' : ''}`);
  const values = entries.map(([k, v]) => (k === 'last_sync_error' && v !== null ? JSON.stringify(v) : v));
  await sql(em, `update git_sync set ${sets.join(', ')}, updated_at = now() where space_id = ?`, [...values, spaceId]);
}

/** Records a request; false when one with that id exists already (a repeated delivery). */
export async function insertGitSyncRequest(
  em: Em,
  row: {
    id: string;
    spaceId: string;
    kind: 'import' | 'export';
    requestedAt: Date;
    params: GitSyncParams;
    credentials: string | null;
    requestedBy: string | null;
  },
): Promise<boolean> {
  const rows = await sql(
    em,
    `insert into git_sync_request (id, space_id, kind, requested_at, params, credentials, requested_by)
     values (?, ?, ?, ?, ?::jsonb, ?, ?) on conflict (id) do nothing returning id`,
    [row.id, row.spaceId, row.kind, row.requestedAt, JSON.stringify(row.params), row.credentials, row.requestedBy],
  );
  return rows.length > 0;
}

export async function loadGitSyncRequest(em: Em, id: string): Promise<GitSyncRequestRow | undefined> {
  return (await sql<GitSyncRequestRow>(em, 'select * from git_sync_request where id = ?', [id]))[0];
}

/** The request, locked; null once it has finished (it is never run twice). */
export async function lockQueuedRequest(em: Em, id: string): Promise<GitSyncRequestRow | null> {
  const rows = await sql<GitSyncRequestRow>(em, 'select * from git_sync_request where id = ? for update', [id]);
  return rows[0] && rows[0].state === 'queued' ? rows[0] : null;
}

/** Marks a request finished and erases its credentials. */
export async function finishGitSyncRequest(
  em: Em,
  id: string,
  state: Exclude<GitSyncRequestState, 'queued'>,
  outcome: { revisionId?: string | null; commit?: string | null; detail?: GitSyncRequestRow['detail'] } = {},
): Promise<void> {
  await sql(
    em,
    `update git_sync_request set state = ?, revision_id = ?, commit = ?, detail = ?::jsonb, credentials = null, finished_at = now()
      where id = ? and state = 'queued'`,
    [state, outcome.revisionId ?? null, outcome.commit ?? null, outcome.detail ? JSON.stringify(outcome.detail) : null, id],
  );
}

/**
 * Notes on a queued export the commit it is about to push, before the push: an attempt that dies
 * after pushing leaves the commit here, so the next attempt finds it at the tip of the branch and
 * knows the push was its own.
 */
export async function noteExportCommit(em: Em, id: string, commit: string): Promise<void> {
  await sql(em, "update git_sync_request set commit = ? where id = ? and state = 'queued'", [commit, id]);
}

/** Sets the git metadata of a revision. */
export async function setRevisionGit(em: Em, revisionId: string, git: Record<string, unknown>): Promise<void> {
  await sql(em, 'update revision set git = ?::jsonb where id = ?', [JSON.stringify(git), revisionId]);
}

/** Points a space at a revision. */
export async function setSpaceRevision(em: Em, spaceId: string, revisionId: string): Promise<void> {
  await sql(em, 'update space set revision_id = ?, updated_at = now() where id = ?', [revisionId, spaceId]);
}

/** The space's current revision and organization, the row locked. */
export async function lockSpace(
  em: Em,
  spaceId: string,
): Promise<{ revision_id: string; organization_id: string; deleted_at: Date | null } | undefined> {
  return (
    await sql<{ revision_id: string; organization_id: string; deleted_at: Date | null }>(
      em,
      'select revision_id, organization_id, deleted_at from space where id = ? for update',
      [spaceId],
    )
  )[0];
}

/** Opens a change request numbered after the space's last one, whose content is `revisionId` based on `initialRevisionId`. */
export async function insertChangeRequest(
  em: Em,
  input: { id: string; spaceId: string; subject: string; createdBy: string | null; revisionId: string; initialRevisionId: string },
): Promise<number> {
  const seq = await sql<{ n: number }>(
    em,
    'update space set change_request_seq = change_request_seq + 1 where id = ? returning change_request_seq as n',
    [input.spaceId],
  );
  await sql(
    em,
    `insert into change_request (id, space_id, number, status, subject, created_by, created_at, updated_at, revision_id, revision_initial)
     values (?, ?, ?, 'open', ?, ?, now(), now(), ?, ?)`,
    [input.id, input.spaceId, seq[0].n, input.subject, input.createdBy, input.revisionId, input.initialRevisionId],
  );
  return seq[0].n;
}

/** Sets the push webhook of a space. */
export async function saveWebhook(
  em: Em,
  spaceId: string,
  hook: { provider: string; repository: string; branch: string; secret: string; credentials: string | null },
): Promise<void> {
  await sql(
    em,
    `insert into git_sync (space_id, webhook_provider, webhook_repository, webhook_branch, webhook_secret, webhook_credentials)
     values (?, ?, ?, ?, ?, ?)
     on conflict (space_id) do update set webhook_provider = excluded.webhook_provider, webhook_repository = excluded.webhook_repository,
       webhook_branch = excluded.webhook_branch, webhook_secret = excluded.webhook_secret, webhook_credentials = excluded.webhook_credentials,
       updated_at = now()`,
    [spaceId, hook.provider, hook.repository, hook.branch, hook.secret, hook.credentials],
  );
}

/** Records a webhook delivery; false when it was received before. */
export async function recordDelivery(em: Em, spaceId: string, deliveryId: string): Promise<boolean> {
  const rows = await sql(
    em,
    'insert into git_webhook_delivery (space_id, delivery_id) values (?, ?) on conflict do nothing returning delivery_id',
    [spaceId, deliveryId],
  );
  return rows.length > 0;
}

/** The organization a space belongs to (deleted spaces included); undefined when there is no such space. */
export async function spaceOrganization(em: Em, spaceId: string): Promise<string | undefined> {
  return (await sql<{ organization_id: string }>(em, 'select organization_id from space where id = ?', [spaceId]))[0]?.organization_id;
}

/** The space's organization and git sync row, for the unauthenticated webhook receiver. */
export async function webhookTarget(em: Em, spaceId: string): Promise<(GitSyncRow & { organization_id: string }) | undefined> {
  return (
    await sql<GitSyncRow & { organization_id: string }>(
      em,
      `select g.*, s.organization_id from git_sync g join space s on s.id = g.space_id
      where g.space_id = ? and s.deleted_at is null and g.webhook_secret is not null`,
      [spaceId],
    )
  )[0];
}
