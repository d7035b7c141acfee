import { auditCause, refineAudit } from '../../db/audit.ts';
import { integrationsByNames } from '../../db/integrations.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Static } from 'typebox';
import {
  changeRequestListing,
  changeRequestMergedAs,
  changeRequestPeople,
  findChangeRequest,
  insertChangeRequest,
  organizationChangeRequestListing,
  lockChangeRequest,
  setChangeRequestRevision,
  spaceRevisions,
  updateChangeRequest,
  type ChangeRequestRow,
  type ChangeRequestStatus,
} from '../../db/change-requests.ts';
import { countOpenComments } from '../../db/comments.ts';
import { recordChangeRequestEdit } from '../../db/reviews.ts';
import { loadPageMap, revisionSpace, writeRevision, type FileRow } from '../../db/content.ts';
import { transaction, type Em } from '../../db/orm.ts';
import { descriptionText, MAX_DESCRIPTION_CHARS } from '../../domain/change-request-description.ts';
import { measureImage } from '../../domain/files.ts';
import { newId } from '../../domain/ids.ts';
import { checkMergeRules, describeUnmet, effectiveMergeRules, needsEvaluationContext } from '../../domain/merge-rules.ts';
import { mergeRuleFacts, mergeRulesContextRows } from '../../db/merge-rules.ts';
import type { Role } from '../../domain/roles.ts';
import {
  applyOperations,
  documentMetadata,
  OperationError,
  type ChangeOutcome,
  type ContentOperation,
  type DocumentMetadata,
} from '../../domain/content/operations.ts';
import type { PageMap } from '../../domain/content/tree.ts';
import { FetchError, guardedFetch, type FetchPolicy } from '../../lib/guarded-fetch.ts';
import type { BlobStore } from '../../lib/blob-store.ts';
import { runChangeRequestJob } from '../../temporal/change-request-merge.ts';
import { grantedContent, loadSpace, requireContentScope, requireOrganization, requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { presentChangeRequest, presentContentUpdate, presentMergeRulesContext, type ChangeRequestFacts } from './present.ts';
import type {
  ContentChangesBody,
  CreateChangeRequestBody,
  ListChangeRequestsQuery,
  ListOrgChangeRequestsQuery,
  UpdateChangeRequestBody,
} from './schemas.ts';

/** The rules of change requests: who may create, update, edit, merge and update them from the space. */

/** A change request of the space by id or by its number; 404 otherwise. */
export async function requireChangeRequest(em: Em, spaceId: string, idOrNumber: string): Promise<ChangeRequestRow> {
  const row = await findChangeRequest(em, spaceId, idOrNumber);
  if (!row) throw notFound('Change request');
  return row;
}

/** What is shown with these change requests, in three queries whatever their number. */
async function changeRequestFacts(em: Em, rows: ChangeRequestRow[]): Promise<ChangeRequestFacts> {
  const userIds = [
    ...new Set(rows.flatMap((r) => [r.created_by, r.merged_by, r.merge_bypass?.by ?? null]).filter((u): u is string => !!u)),
  ];
  const integrationNames = [...new Set(rows.map((r) => r.created_by_integration).filter((n): n is string => !!n))];
  const [users, integrations, heads, comments] = await Promise.all([
    changeRequestPeople(em, userIds),
    integrationsByNames(em, integrationNames),
    spaceRevisions(em, [...new Set(rows.map((r) => r.space_id))]),
    countOpenComments(
      em,
      'change_request_id',
      rows.map((r) => r.id),
    ),
  ]);
  return { users, integrations: new Map(integrations.map((i) => [i.name, i.title])), heads, comments };
}

/** Change requests as the API shows them. */
export async function presentChangeRequests(ctx: Ctx, rows: ChangeRequestRow[]) {
  if (rows.length === 0) return [];
  const facts = await changeRequestFacts(ctx.em, rows);
  return rows.map((r) => presentChangeRequest(r, facts, ctx.deps.config.publicUrl, ctx.caller.visitor !== undefined));
}

const present = async (ctx: Ctx, row: ChangeRequestRow) => (await presentChangeRequests(ctx, [row]))[0];

/** The change request a merge revision came from, as the API shows it (undefined when none). */
export async function presentMergedFrom(ctx: Ctx, mergedRevisionId: string) {
  const row = await changeRequestMergedAs(ctx.em, mergedRevisionId);
  return row ? present(ctx, row) : undefined;
}

/** A space's change requests with a status (default open), newest first. */
export async function listChangeRequests(ctx: Ctx, spaceId: string, query: Static<typeof ListChangeRequestsQuery>) {
  const { space } = await loadSpace(ctx.em, ctx.caller, spaceId);
  requireContentScope(ctx.caller);
  const listing = changeRequestListing(ctx.em, {
    spaceId: space.id,
    status: query.status ?? 'open',
    contributor: query.contributor ?? null,
  });
  return paginate(ctx.em, listing, query, (rows) => presentChangeRequests(ctx, rows));
}

/**
 * Who opens a change request: the user, or for a token acting as an installation its integration
 * (GitBook shows the integration as its author; no user did).
 */
function authorOf(ctx: Ctx): string | { integration: string } {
  return ctx.caller.installation ? { integration: ctx.caller.installation.integrationName } : ctx.caller.user.id;
}

/** Whether the caller opened the change request: the same user, or the same integration through any of its installations. */
function openedBy(ctx: Ctx, cr: ChangeRequestRow): boolean {
  const installation = ctx.caller.installation;
  return installation ? cr.created_by_integration === installation.integrationName : cr.created_by === ctx.caller.user.id;
}

/** A new open change request on the current content; needs `edit` and a live space. */
export async function createChangeRequest(ctx: Ctx, spaceId: string, body: Static<typeof CreateChangeRequestBody>) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  requireRole(role, 'edit', 'create change requests in this space');
  if (space.editMode === 'locked') throw forbidden('The space is locked: unlock it (editMode "live") to create change requests');
  const row = await transaction(ctx.em, async (tx) => {
    const created = await insertChangeRequest(tx, space.id, body.subject ?? '', authorOf(ctx));
    // The audit event names the change request created (src/db/audit.ts).
    refineAudit(tx, { type: 'change-request', id: created.id, label: created.subject || undefined });
    return created;
  });
  return present(ctx, row);
}

export async function getChangeRequest(ctx: Ctx, spaceId: string, changeRequestId: string) {
  const { space } = await loadSpace(ctx.em, ctx.caller, spaceId);
  requireContentScope(ctx.caller);
  return present(ctx, await requireChangeRequest(ctx.em, space.id, changeRequestId));
}

/**
 * Subject, status and description (GitBook's JSON document, of which its text is kept, or the
 * text): the author with at least `edit`, or `review`; a merged change request no longer changes.
 */
export async function updateChangeRequestFields(
  ctx: Ctx,
  spaceId: string,
  changeRequestId: string,
  body: Static<typeof UpdateChangeRequestBody>,
) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  const cr = await requireChangeRequest(ctx.em, space.id, changeRequestId);
  if (!(openedBy(ctx, cr) && role !== null && role !== 'read' && role !== 'comment'))
    requireRole(role, 'review', 'update this change request');
  if (cr.status === 'merged') throw conflict(`Change request #${cr.number} is merged and cannot change`);
  const { description, ...fields } = body;
  const text = description === undefined || typeof description === 'string' ? description : descriptionText(description);
  if (text !== undefined && text.length > MAX_DESCRIPTION_CHARS) {
    throw badRequest(`body.description holds more than ${MAX_DESCRIPTION_CHARS} characters of text`);
  }
  return present(ctx, await updateChangeRequest(ctx.em, cr.id, { ...fields, ...(text !== undefined ? { description: text } : {}) }));
}

/**
 * Applies a batch of content operations (see applyContentChanges). Answers the change request, or
 * with `compat` false also what each operation did and the files added.
 */
export async function editChangeRequestContent(
  ctx: Ctx,
  spaceId: string,
  changeRequestId: string,
  body: Static<typeof ContentChangesBody>,
  compat: boolean,
) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  requireRole(role, 'edit', 'edit this change request');
  const cr = await requireChangeRequest(ctx.em, space.id, changeRequestId);
  assertEditable(cr, space.editMode, 'edit its content');
  const result = await applyContentChanges(ctx.em, ctx.deps.blobs, space.id, cr.id, body, ctx.deps.config.fetch);
  // An integration's edits are its change request's; they count for no user.
  await recordChangeRequestEdit(ctx.em, cr.id, result.changeRequest.revision_id, ctx.caller.installation ? null : ctx.caller.user.id);
  const changeRequest = await present(ctx, result.changeRequest);
  if (compat) return changeRequest;
  return presentContentUpdate(changeRequest, result.changes, result.insertedFiles, ctx.deps.config.publicUrl);
}

/**
 * Merges a change request into the space (`review`), or pulls the space's content into it
 * (`edit`), through the change-request workflow; waits up to a minute for the outcome.
 */
export async function runChangeRequestMerge(ctx: Ctx, kind: 'merge' | 'update', spaceId: string, changeRequestId: string) {
  const { deps, caller } = ctx;
  const { space, role } = await loadSpace(ctx.em, caller, spaceId);
  requireRole(role, kind === 'merge' ? 'review' : 'edit', kind === 'merge' ? 'merge change requests' : 'update this change request');
  const cr = await requireChangeRequest(ctx.em, space.id, changeRequestId);
  if (!(kind === 'merge' && cr.status === 'merged')) assertEditable(cr, space.editMode, kind === 'merge' ? 'merge it' : 'update it');
  const admin = role === 'admin';
  // Checked here for a prompt answer, and again by the merge inside its transaction.
  if (kind === 'merge' && cr.status !== 'merged') await assertMergeRules(ctx, space.id, cr.id, { userId: caller.user.id, admin, role });
  // The request's event first: the job's event names it as its cause.
  const audit = await auditCause(ctx.em);
  const outcome = await runChangeRequestJob(deps.temporal, deps.config.temporalTaskQueue, kind, {
    spaceId: space.id,
    changeRequestId: cr.id,
    userId: caller.user.id,
    organizationId: space.organizationId,
    ...(audit ? { audit } : {}),
    ...(kind === 'merge' ? { admin, ...(role ? { role } : {}) } : {}),
  });
  if (outcome.result === 'refused') {
    if (outcome.reason === 'not-found') throw notFound('Change request');
    if (outcome.reason === 'locked') throw forbidden('The space is locked: unlock it (editMode "live") first');
    if (outcome.reason === 'merge-rules') throw conflict(describeUnmet(outcome.unmet ?? []));
    throw conflict(`Change request #${cr.number} is ${outcome.reason}`);
  }
  return { revision: outcome.revision, result: outcome.result };
}

/**
 * 409 naming every unmet merge rule, unless there is none or the caller may bypass them. Custom
 * rules see the space, the change request, its reviews and the caller as the API presents them.
 */
async function assertMergeRules(
  ctx: Ctx,
  spaceId: string,
  changeRequestId: string,
  caller: { userId: string; admin: boolean; role: Role | null },
): Promise<void> {
  const { organization, space, ...facts } = await mergeRuleFacts(ctx.em, spaceId, changeRequestId);
  const rules = effectiveMergeRules(organization, space);
  const rows = needsEvaluationContext(rules)
    ? await mergeRulesContextRows(ctx.em, { spaceId, changeRequestId, userId: caller.userId })
    : undefined;
  const check = checkMergeRules(rules, {
    ...facts,
    caller: { userId: caller.userId, admin: caller.admin },
    context: rows && presentMergeRulesContext(rows, caller, ctx.deps.config.publicUrl),
  });
  if (check.unmet.length > 0 && !check.bypass) throw conflict(describeUnmet(check.unmet));
}

const MAX_INLINE_FILE = 1024 * 1024;

/** Refuses edits to merged or archived change requests and to locked spaces. */
export function assertEditable(changeRequest: ChangeRequestRow, editMode: string, action: string): void {
  if (editMode === 'locked') throw forbidden(`The space is locked: unlock it (editMode "live") to ${action}`);
  if (changeRequest.status === 'merged')
    throw conflict(
      `Change request #${changeRequest.number} is merged; it cannot ${action.startsWith('merge') ? 'be merged again' : 'change any more'}`,
    );
  if (changeRequest.status === 'archived')
    throw conflict(`Change request #${changeRequest.number} is archived: reopen it (status "open" or "draft") to ${action}`);
}

type FileInput = Extract<Static<typeof ContentChangesBody>['changes'][number], { operation: 'insert_files' }>['files'][number];

async function storeFile(blobs: BlobStore, file: FileInput, where: string, fetchPolicy: FetchPolicy): Promise<FileRow> {
  let bytes: Buffer;
  let contentType = file.contentType;
  if ((file.url === undefined) === (file.base64 === undefined)) throw badRequest(`${where}: set exactly one of url or base64`);
  if (file.base64 !== undefined) {
    if (!contentType) throw badRequest(`${where}.contentType is required with base64`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(file.base64.replace(/\s/g, ''))) throw badRequest(`${where}.base64 is not base64`);
    bytes = Buffer.from(file.base64, 'base64');
    if (bytes.length > MAX_INLINE_FILE) throw badRequest(`${where}.base64 is larger than 1 MB; send a url instead`);
  } else {
    try {
      const fetched = await guardedFetch(file.url!, fetchPolicy);
      bytes = fetched.body;
      contentType ??= fetched.contentType?.split(';')[0].trim() || 'application/octet-stream';
    } catch (error) {
      if (error instanceof FetchError) throw badRequest(`${where}.url could not be fetched (${error.code}): ${error.message}`);
      throw error;
    }
  }
  const sha = await blobs.put(bytes);
  const { width, height } = measureImage(bytes, contentType!);
  return { id: newId(), name: file.name, contentType: contentType!, size: bytes.length, width, height, sha256: sha };
}

/**
 * Applies a batch of content operations to a change request as ONE new revision, atomically:
 * any invalid operation rejects the whole batch and nothing changes.
 */
export async function applyContentChanges(
  em: Em,
  blobs: BlobStore,
  spaceId: string,
  changeRequestId: string,
  body: Static<typeof ContentChangesBody>,
  fetchPolicy: FetchPolicy,
): Promise<{ changeRequest: ChangeRequestRow; changes: ChangeOutcome[]; insertedFiles: FileRow[] }> {
  // Files are fetched and stored before the transaction: bytes are content-addressed, so an
  // aborted batch leaves at most unreferenced blobs behind, never a half-applied revision.
  const insertedFiles: FileRow[] = [];
  for (const [index, change] of body.changes.entries()) {
    if (change.operation !== 'insert_files') continue;
    for (const [i, file] of change.files.entries())
      insertedFiles.push(await storeFile(blobs, file, `changes[${index}].files[${i}]`, fetchPolicy));
  }
  // Each document's title and front matter are read one document per turn of the event loop, before
  // the transaction: a batch of 50 large documents never holds the loop (or a transaction) for long.
  const metadata: (DocumentMetadata | undefined)[] = [];
  for (const change of body.changes) {
    const markdown = change.operation === 'insert_page' || change.operation === 'update_page' ? change.document?.markdown : undefined;
    metadata.push(markdown === undefined ? undefined : documentMetadata(markdown));
    if (markdown !== undefined) await nextTurn();
  }
  return transaction(em, async (tx) => {
    const changeRequest = (await lockChangeRequest(tx, spaceId, changeRequestId))!;
    assertEditable(changeRequest, changeRequest.edit_mode, 'edit its content');
    const head = await loadPageMap(tx, changeRequest.revision_id, false);
    const base = await loadPageMap(tx, changeRequest.revision_merged_ancestor ?? changeRequest.revision_initial, false);
    const byRevision: Record<string, PageMap> = {};
    for (const change of body.changes) {
      if (change.operation === 'revert_page' && change.revision && !byRevision[change.revision]) {
        if ((await revisionSpace(tx, change.revision)) === spaceId)
          byRevision[change.revision] = await loadPageMap(tx, change.revision, false);
      }
    }
    let applied;
    try {
      applied = applyOperations(head, body.changes as ContentOperation[], {
        newId: () => newId(),
        revertSources: { base, byRevision },
        metadata,
      });
    } catch (error) {
      if (error instanceof OperationError) throw badRequest(error.message);
      throw error;
    }
    const revisionId = await writeRevision(tx, {
      spaceId,
      parents: [changeRequest.revision_id],
      type: 'edits',
      changeRequestId,
      base: { revisionId: changeRequest.revision_id, pages: head },
      pages: applied.pages,
      addedFiles: insertedFiles,
    });
    const updated = await setChangeRequestRevision(tx, changeRequestId, revisionId);
    return { changeRequest: updated, changes: applied.changes, insertedFiles };
  });
}

/**
 * The change requests of an organization's spaces that the caller reads (every live space for a
 * member with a role, the granted ones for a guest), newest first. No change request here is
 * linked to a site, a site topic or a style guide run, so those filters match none.
 */
export async function listOrganizationChangeRequests(ctx: Ctx, organizationId: string, query: Static<typeof ListOrgChangeRequestsQuery>) {
  const { em, caller } = ctx;
  const { organization, role } = await requireOrganization(ctx, organizationId);
  const spaceIds = role === null ? (await grantedContent(em, organization.id, caller.user.id)).spaces : undefined;
  const linked = query.site !== undefined || query.topic !== undefined || query.styleguideRun !== undefined;
  const listing = organizationChangeRequestListing(em, {
    organizationId: organization.id,
    spaceIds: linked ? [] : spaceIds,
    statuses: [...new Set(query.status ?? ['open'])].filter(isStatus),
    creator: query.creator,
    contributor: query.contributor,
    requestedReviewer: query.requestedReviewer,
    space: query.space,
    orderBy: query.orderBy ?? 'updatedAt',
  });
  return paginate(em, listing, query, (rows) => presentChangeRequests(ctx, rows));
}

const STATUSES: readonly string[] = ['draft', 'open', 'archived', 'merged'] satisfies ChangeRequestStatus[];
const isStatus = (s: string): s is ChangeRequestStatus => STATUSES.includes(s);
