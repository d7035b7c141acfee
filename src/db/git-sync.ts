import { sql, type Selectable } from 'kysely';
import { db, type Db } from './kysely.ts';
import type { Em } from './orm.ts';

/** Git Sync state, requests and webhook deliveries (see Migration0011GitSync). */

/** The context a request's sealed credentials are bound to: they open for that request only. */
export const requestSecretContext = (requestId: string) => `git-sync-request:${requestId}`;

/** Why the last sync of a space failed (or conflicted), as `git_sync.last_sync_error` holds it. */
export interface LastSyncError {
  code: string;
  message: string;
  at: string;
}

/** A space's `git_sync` row: the repository it syncs with, the state of its last sync, its push webhook. */
export type GitSyncRow = Omit<Selectable<Db['git_sync']>, 'last_sync_error' | 'last_applied_at' | 'created_at' | 'updated_at'> & {
  last_sync_error: LastSyncError | null;
  last_applied_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type GitSyncRequestState = 'queued' | 'applied' | 'unchanged' | 'skipped' | 'failed' | 'conflict';

/** What a finished request records beside its state. */
export interface GitSyncRequestDetail {
  code?: string;
  message?: string;
  changeRequestId?: string;
}

/** A `git_sync_request` row: one import or export, its parameters, and once finished its outcome. */
export type GitSyncRequestRow = Omit<
  Selectable<Db['git_sync_request']>,
  'kind' | 'params' | 'state' | 'detail' | 'requested_at' | 'created_at' | 'finished_at' | 'signalled_at'
> & {
  requested_at: Date;
  created_at: Date;
  finished_at: Date | null;
  signalled_at: Date | null;
  kind: 'import' | 'export';
  params: GitSyncParams;
  state: GitSyncRequestState;
  detail: GitSyncRequestDetail | null;
};

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

/** Times as Dates: `db(em)` reads them as ISO text (see src/db/kysely.ts). */
const toDate = (value: string): Date => new Date(value);
const toDateOrNull = (value: string | null): Date | null => (value === null ? null : toDate(value));

// The jsonb columns are typed `unknown` by the entities; the row types name what this module writes into them.
const asGitSync = (row: Selectable<Db['git_sync']>): GitSyncRow =>
  ({
    ...row,
    last_applied_at: toDateOrNull(row.last_applied_at),
    created_at: toDate(row.created_at),
    updated_at: toDate(row.updated_at),
  }) as GitSyncRow;
const asRequest = (row: Selectable<Db['git_sync_request']>): GitSyncRequestRow =>
  ({
    ...row,
    requested_at: toDate(row.requested_at),
    created_at: toDate(row.created_at),
    finished_at: toDateOrNull(row.finished_at),
    signalled_at: toDateOrNull(row.signalled_at),
  }) as GitSyncRequestRow;

export async function loadGitSync(em: Em, spaceId: string): Promise<GitSyncRow | undefined> {
  const row = await db(em).selectFrom('git_sync').selectAll().where('space_id', '=', spaceId).executeTakeFirst();
  return row && asGitSync(row);
}

/** Git sync rows of many spaces (those that have one), by space id, in one statement. */
export async function loadGitSyncs(em: Em, spaceIds: string[]): Promise<Map<string, GitSyncRow>> {
  if (spaceIds.length === 0) return new Map();
  const rows = await db(em).selectFrom('git_sync').selectAll().where('space_id', 'in', spaceIds).where('url', 'is not', null).execute();
  return new Map(rows.map((r) => [r.space_id, asGitSync(r)]));
}

/** The git sync row of a space, locked for the rest of the transaction (created when missing). */
export async function lockGitSync(em: Em, spaceId: string): Promise<GitSyncRow> {
  await db(em)
    .insertInto('git_sync')
    .values({ space_id: spaceId })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return asGitSync(await db(em).selectFrom('git_sync').selectAll().where('space_id', '=', spaceId).forUpdate().executeTakeFirstOrThrow());
}

/** The repository a space syncs with, as a request names it. */
export interface GitSyncTarget {
  provider: string | null;
  url: string;
  ref: string;
  repoName: string;
  integration: string | null;
  projectDirectory: string | null;
}

/** Whether the space's git sync row already holds this target (read without a lock). */
export async function hasGitSyncTarget(em: Em, spaceId: string, target: GitSyncTarget): Promise<boolean> {
  const stored = await db(em)
    .selectFrom('git_sync')
    .select(['provider', 'url', 'ref', 'repo_name', 'integration', 'project_directory'])
    .where('space_id', '=', spaceId)
    .executeTakeFirst();
  return (
    stored !== undefined &&
    stored.provider === target.provider &&
    stored.url === target.url &&
    stored.ref === target.ref &&
    stored.repo_name === target.repoName &&
    stored.integration === target.integration &&
    stored.project_directory === target.projectDirectory
  );
}

/**
 * Sets (or creates) the repository a space syncs with.
 * Every push names the target again, and it rarely changes: when the row already holds it (read
 * without a lock), nothing is written, so a request is not held behind a sync that has the row
 * locked while it applies, and nothing is announced to the other processes' kept answers.
 */
export async function saveGitSyncTarget(em: Em, spaceId: string, target: GitSyncTarget): Promise<void> {
  if (await hasGitSyncTarget(em, spaceId, target)) return;
  await db(em)
    .insertInto('git_sync')
    .values({
      space_id: spaceId,
      provider: target.provider,
      url: target.url,
      ref: target.ref,
      repo_name: target.repoName,
      integration: target.integration,
      project_directory: target.projectDirectory,
    })
    .onConflict((oc) =>
      oc.column('space_id').doUpdateSet((eb) => ({
        provider: eb.ref('excluded.provider'),
        url: eb.ref('excluded.url'),
        ref: eb.ref('excluded.ref'),
        repo_name: eb.ref('excluded.repo_name'),
        integration: eb.ref('excluded.integration'),
        project_directory: eb.ref('excluded.project_directory'),
        updated_at: eb.fn<Date>('now'),
      })),
    )
    .execute();
}

/** The columns of the sync state a step may set. */
export type GitSyncPatch = Partial<Omit<GitSyncRow, 'space_id' | 'created_at' | 'updated_at'>>;

/** Updates the sync state of a space with the given columns (those not undefined). */
export async function updateGitSync(em: Em, spaceId: string, patch: GitSyncPatch): Promise<void> {
  const { last_sync_error, ...columns } = patch;
  const values = Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined)) as Omit<GitSyncPatch, 'last_sync_error'>;
  if (Object.keys(values).length === 0 && last_sync_error === undefined) return;
  await db(em)
    .updateTable('git_sync')
    .set((eb) => ({
      ...values,
      ...(last_sync_error === undefined ? {} : { last_sync_error: last_sync_error === null ? null : JSON.stringify(last_sync_error) }),
      updated_at: eb.fn<Date>('now'),
    }))
    .where('space_id', '=', spaceId)
    .execute();
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
  const inserted = await db(em)
    .insertInto('git_sync_request')
    .values({
      id: row.id,
      space_id: row.spaceId,
      kind: row.kind,
      requested_at: row.requestedAt,
      params: JSON.stringify(row.params),
      credentials: row.credentials,
      requested_by: row.requestedBy,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .execute();
  return inserted.length > 0;
}

/** Notes that requests reached their space's sync workflow (`resendGitSyncRequests` leaves them alone from then on). */
export async function markGitSyncRequestsSignalled(em: Em, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db(em)
    .updateTable('git_sync_request')
    .set((eb) => ({ signalled_at: eb.fn<Date>('now') }))
    .where('id', 'in', ids)
    .where('signalled_at', 'is', null)
    .execute();
}

/** A queued request not known to have reached its space's sync workflow, with what its signal needs (`enqueueGitSync`'s input). */
export interface UnsignalledGitSyncRequest {
  requestId: string;
  spaceId: string;
  organizationId: string;
  kind: 'import' | 'export';
  requestedAt: Date;
  requestedBy: string | null;
}

/**
 * Queued requests of live spaces recorded at least `olderThanMs` ago that never reached their
 * workflow, oldest first, `limit` at most (the partial index of migration 0029 holds just these).
 */
export async function unsignalledGitSyncRequests(em: Em, olderThanMs: number, limit: number): Promise<UnsignalledGitSyncRequest[]> {
  const rows = await db(em)
    .selectFrom('git_sync_request as r')
    .innerJoin('space as s', 's.id', 'r.space_id')
    .select(['r.id', 'r.space_id', 's.organization_id', 'r.kind', 'r.requested_at', 'r.requested_by'])
    .where('r.state', '=', 'queued')
    .where('r.signalled_at', 'is', null)
    .where(sql<boolean>`r.created_at <= now() - make_interval(secs => ${olderThanMs / 1000})`)
    .where('s.deleted_at', 'is', null)
    .orderBy('r.created_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    requestId: row.id,
    spaceId: row.space_id,
    organizationId: row.organization_id,
    kind: row.kind === 'export' ? 'export' : 'import',
    requestedAt: toDate(row.requested_at),
    requestedBy: row.requested_by,
  }));
}

export async function loadGitSyncRequest(em: Em, id: string): Promise<GitSyncRequestRow | undefined> {
  const row = await db(em).selectFrom('git_sync_request').selectAll().where('id', '=', id).executeTakeFirst();
  return row && asRequest(row);
}

/** The request, locked; null once it has finished (it is never run twice). */
export async function lockQueuedRequest(em: Em, id: string): Promise<GitSyncRequestRow | null> {
  const row = await db(em).selectFrom('git_sync_request').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  return row && row.state === 'queued' ? asRequest(row) : null;
}

/** Marks a request finished and erases its credentials. */
export async function finishGitSyncRequest(
  em: Em,
  id: string,
  state: Exclude<GitSyncRequestState, 'queued'>,
  outcome: { revisionId?: string | null; commit?: string | null; detail?: GitSyncRequestDetail | null } = {},
): Promise<void> {
  await db(em)
    .updateTable('git_sync_request')
    .set((eb) => ({
      state,
      revision_id: outcome.revisionId ?? null,
      commit: outcome.commit ?? null,
      detail: outcome.detail ? JSON.stringify(outcome.detail) : null,
      credentials: null,
      finished_at: eb.fn<Date>('now'),
    }))
    .where('id', '=', id)
    .where('state', '=', 'queued')
    .execute();
}

/**
 * Notes on a queued export the commit it is about to push, before the push: an attempt that dies
 * after pushing leaves the commit here, so the next attempt finds it at the tip of the branch and
 * knows the push was its own.
 */
export async function noteExportCommit(em: Em, id: string, commit: string): Promise<void> {
  await db(em).updateTable('git_sync_request').set({ commit }).where('id', '=', id).where('state', '=', 'queued').execute();
}

/** Sets the git metadata of a revision. */
export async function setRevisionGit(em: Em, revisionId: string, git: Record<string, unknown>): Promise<void> {
  await db(em)
    .updateTable('revision')
    .set({ git: JSON.stringify(git) })
    .where('id', '=', revisionId)
    .execute();
}

/** Points a space at a revision. */
export async function setSpaceRevision(em: Em, spaceId: string, revisionId: string): Promise<void> {
  await db(em)
    .updateTable('space')
    .set((eb) => ({ revision_id: revisionId, updated_at: eb.fn<Date>('now') }))
    .where('id', '=', spaceId)
    .execute();
}

/**
 * The space's current revision and organization, the row locked against other writers of it
 * (`for no key update`: rows that only refer to the space, such as a new sync request or comment,
 * are still inserted meanwhile).
 */
export async function lockSpace(
  em: Em,
  spaceId: string,
): Promise<{ revision_id: string; organization_id: string; deleted_at: Date | null } | undefined> {
  const row = await db(em)
    .selectFrom('space')
    .select(['revision_id', 'organization_id', 'deleted_at'])
    .where('id', '=', spaceId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return row && { ...row, deleted_at: toDateOrNull(row.deleted_at) };
}

/** The space's current revision and whether it is deleted, read without a lock (undefined: no such space). */
export async function spaceRevisionOf(em: Em, spaceId: string): Promise<{ revision_id: string; deleted_at: Date | null } | undefined> {
  const row = await db(em).selectFrom('space').select(['revision_id', 'deleted_at']).where('id', '=', spaceId).executeTakeFirst();
  return row && { ...row, deleted_at: toDateOrNull(row.deleted_at) };
}

/** Opens a change request numbered after the space's last one, whose content is `revisionId` based on `initialRevisionId`. */
export async function insertChangeRequest(
  em: Em,
  input: { id: string; spaceId: string; subject: string; createdBy: string | null; revisionId: string; initialRevisionId: string },
): Promise<number> {
  const { n } = await db(em)
    .updateTable('space')
    .set((eb) => ({ change_request_seq: eb('change_request_seq', '+', 1) }))
    .where('id', '=', input.spaceId)
    .returning('change_request_seq as n')
    .executeTakeFirstOrThrow();
  await db(em)
    .insertInto('change_request')
    .values((eb) => ({
      id: input.id,
      space_id: input.spaceId,
      number: n,
      status: 'open',
      subject: input.subject,
      created_by: input.createdBy,
      created_at: eb.fn<Date>('now'),
      updated_at: eb.fn<Date>('now'),
      revision_id: input.revisionId,
      revision_initial: input.initialRevisionId,
    }))
    .execute();
  return n;
}

/** Sets the push webhook of a space. */
export async function saveWebhook(
  em: Em,
  spaceId: string,
  hook: { provider: string; repository: string; branch: string; secret: string; credentials: string | null },
): Promise<void> {
  await db(em)
    .insertInto('git_sync')
    .values({
      space_id: spaceId,
      webhook_provider: hook.provider,
      webhook_repository: hook.repository,
      webhook_branch: hook.branch,
      webhook_secret: hook.secret,
      webhook_credentials: hook.credentials,
    })
    .onConflict((oc) =>
      oc.column('space_id').doUpdateSet((eb) => ({
        webhook_provider: eb.ref('excluded.webhook_provider'),
        webhook_repository: eb.ref('excluded.webhook_repository'),
        webhook_branch: eb.ref('excluded.webhook_branch'),
        webhook_secret: eb.ref('excluded.webhook_secret'),
        webhook_credentials: eb.ref('excluded.webhook_credentials'),
        updated_at: eb.fn<Date>('now'),
      })),
    )
    .execute();
}

/** Records a webhook delivery; false when it was received before. */
export async function recordDelivery(em: Em, spaceId: string, deliveryId: string): Promise<boolean> {
  const inserted = await db(em)
    .insertInto('git_webhook_delivery')
    .values({ space_id: spaceId, delivery_id: deliveryId })
    .onConflict((oc) => oc.doNothing())
    .returning('delivery_id')
    .execute();
  return inserted.length > 0;
}

/** The organization a space belongs to (deleted spaces included); undefined when there is no such space. */
export async function spaceOrganization(em: Em, spaceId: string): Promise<string | undefined> {
  return (await db(em).selectFrom('space').select('organization_id').where('id', '=', spaceId).executeTakeFirst())?.organization_id;
}

/** The space's organization and git sync row, for the unauthenticated webhook receiver. */
export async function webhookTarget(em: Em, spaceId: string): Promise<(GitSyncRow & { organization_id: string }) | undefined> {
  const row = await db(em)
    .selectFrom('git_sync as g')
    .innerJoin('space as s', 's.id', 'g.space_id')
    .selectAll('g')
    .select('s.organization_id')
    .where('g.space_id', '=', spaceId)
    .where('s.deleted_at', 'is', null)
    .where('g.webhook_secret', 'is not', null)
    .executeTakeFirst();
  return row && { ...asGitSync(row), organization_id: row.organization_id };
}
