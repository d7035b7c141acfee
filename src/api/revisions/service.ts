import {
  fileListing,
  loadFile,
  loadFiles,
  loadPage,
  loadPageMap,
  loadPagePath,
  loadReusableContent,
  loadRevision,
  type RevisionRow,
} from '../../db/content.ts';
import { semanticChanges, type ContentState } from '../../domain/content/semantic-changes.ts';
import { allPaths } from '../../domain/content/tree.ts';
import { loadSpace, requireContentScope, requireVisibleRevision, vouchedSpace } from '../access.ts';
import { presentMergedFrom } from '../change-requests/service.ts';
import { presentFile, presentPage, presentTree, withDocument, type PresentOptions } from '../content/present.ts';
import type { ScopeRef } from '../content/schemas.ts';
import {
  presentOptions as contentPresentOptions,
  resolveTarget,
  revisionAnswer,
  revisionAnswerKey,
  visitorQuery,
} from '../content/service.ts';
import type { Ctx } from '../context.ts';
import { pageSource, revisionDocument, revisionDocumentAnswer, revisionDocumentIfCached, type DocumentQuery } from './documents.ts';
import { notFound } from '../errors.ts';
import type { JsonAnswer } from '../json-answer.ts';
import { paginate } from '../pagination.ts';
import { presentMetaLinks, presentReusableContent, presentSemanticChanges } from './present.ts';

/**
 * Reads of any revision of a space by id, as GitBook's site renderer makes them: the revision,
 * its pages (by id or path, with their documents evaluated for the visitor and reusable contents
 * expanded), files and reusable contents, and pages' meta links. Every read loads the space
 * through access.ts (or, for a site visitor at the revision its token names, takes it from the
 * token: access.ts `vouchedSpace`) and the revision through `readableRevision`, the one place that
 * decides which revisions of a space a caller may read.
 */

type RevisionRef = { spaceId: string; revisionId: string };
type MetadataQuery = { metadata?: boolean };

/**
 * The revision `revisionId` of the space `spaceId` (loaded, or vouched for: see resolveRevision);
 * 404 unless it is one of the space's revisions and the caller may read it (a site visitor reads
 * only the published revision, see access.ts).
 */
export async function readableRevision(ctx: Ctx, space: { id: string; revisionId: string }, revisionId: string): Promise<RevisionRow> {
  requireVisibleRevision(ctx, space, revisionId);
  const revision = await loadRevision(ctx.em, revisionId);
  if (!revision || revision.space_id !== space.id) throw notFound('Revision');
  return revision;
}

/**
 * The id of a revision of `space` the caller may read, without reading the revision where that is
 * already known: a site visitor is only ever let through (requireVisibleRevision) to the space's
 * current revision or the one its lookup found in that space.
 */
async function readableRevisionId(ctx: Ctx, space: { id: string; revisionId: string }, revisionId: string): Promise<string> {
  // A preview's token reads any revision: that it is one of this space's is read, as for members.
  if (!ctx.caller.visitor || ctx.caller.visitor.preview) return (await readableRevision(ctx, space, revisionId)).id;
  requireVisibleRevision(ctx, space, revisionId);
  return revisionId;
}

/**
 * The space asked for: loaded (404 unless the caller may read it), or, for a site visitor reading
 * the revision its lookup answered with, vouched for by its token (vouchedSpace) without a read.
 */
async function readableSpace(ctx: Ctx, params: RevisionRef): Promise<{ id: string; revisionId: string }> {
  const vouched = vouchedSpace(ctx.caller, params.spaceId, params.revisionId);
  if (vouched) return vouched;
  const { space } = await loadSpace(ctx.em, ctx.caller, params.spaceId);
  requireContentScope(ctx.caller);
  return space;
}

/** The id of the space (404 unless the caller may read it) and the revision asked for. */
async function resolveRevision(ctx: Ctx, params: RevisionRef): Promise<{ spaceId: string; revision: RevisionRow }> {
  const space = await readableSpace(ctx, params);
  return { spaceId: space.id, revision: await readableRevision(ctx, space, params.revisionId) };
}

/**
 * Presented as the space's content is: a member downloads files through the space's content, a
 * site visitor through signed links to the revision's files.
 */
function presentOptions(ctx: Ctx, spaceId: string, revisionId: string, query: MetadataQuery): Promise<PresentOptions> {
  return contentPresentOptions(ctx, { space: { id: spaceId }, revisionId, changeRequest: null }, query);
}

/**
 * The revision, as a prepared answer (see revisionAnswer). A site visitor at the revision its token
 * names (vouchedSpace: every page view asks for it) is answered from what this process kept between
 * writes (AppDeps.visitorRevisions), without reading the revision row: by space, revision and
 * presentation, served only once every write committed anywhere before the request has been heard
 * and none was counted since it was read, so a space deleted or a revision's head changed through
 * any process is never answered from it.
 */
export async function getRevisionById(ctx: Ctx, params: RevisionRef, query: MetadataQuery): Promise<JsonAnswer> {
  const vouched = vouchedSpace(ctx.caller, params.spaceId, params.revisionId);
  if (!vouched) {
    const { spaceId, revision } = await resolveRevision(ctx, params);
    return revisionAnswer(ctx, revision, await presentOptions(ctx, spaceId, revision.id, query));
  }
  const options = await presentOptions(ctx, vouched.id, vouched.revisionId, query);
  const kept = ctx.deps.visitorRevisions;
  const key = `${vouched.id}\n${revisionAnswerKey(vouched.revisionId, options)}`;
  const answer = await kept.current(key, ctx.caughtUp);
  if (answer) return answer;
  const ticket = kept.ticket();
  const read = await revisionAnswer(ctx, await readableRevision(ctx, vouched, vouched.revisionId), options);
  kept.set(key, ticket, read);
  return read;
}

export async function listRevisionPages(ctx: Ctx, params: RevisionRef, query: MetadataQuery) {
  const { spaceId, revision } = await resolveRevision(ctx, params);
  return { pages: presentTree(await loadPageMap(ctx.em, revision.id, true), await presentOptions(ctx, spaceId, revision.id, query)) };
}

type PageQuery = MetadataQuery & DocumentQuery & { format?: 'document' | 'markdown' };

/** A page as GitBook presents it: its markdown, or with `format=document` its document instead. */
async function presentRevisionPage(
  ctx: Ctx,
  spaceId: string,
  revisionId: string,
  page: NonNullable<Awaited<ReturnType<typeof loadPage>>>,
  path: string,
  query: PageQuery,
) {
  const presented = presentPage(page, path, [], await presentOptions(ctx, spaceId, revisionId, query));
  if (query.format !== 'document' || page.type !== 'document') return presented;
  const document = await revisionDocument(
    ctx,
    spaceId,
    revisionId,
    pageSource(page.id, async () => path),
    page.markdown,
    visitorQuery(ctx, query),
  );
  return withDocument(presented, document);
}

export async function getRevisionPage(ctx: Ctx, params: RevisionRef & { pageId: string }, query: PageQuery) {
  const { spaceId, revision } = await resolveRevision(ctx, params);
  const page = await loadPage(ctx.em, revision.id, params.pageId);
  if (!page) throw notFound('Page');
  return presentRevisionPage(ctx, spaceId, revision.id, page, await loadPagePath(ctx.em, revision.id, page.id), query);
}

/** A page by its path in the revision (`guides/install`); a leading or trailing `/` is ignored. */
export async function getRevisionPageByPath(ctx: Ctx, params: RevisionRef & { pagePath: string }, query: PageQuery) {
  const { spaceId, revision } = await resolveRevision(ctx, params);
  const wanted = params.pagePath.replace(/^\/+|\/+$/g, '');
  const index = await loadPageMap(ctx.em, revision.id, false);
  let pageId: string | undefined;
  for (const [id, path] of allPaths(index)) {
    if (path === wanted) {
      pageId = id;
      break;
    }
  }
  const page = pageId === undefined ? undefined : await loadPage(ctx.em, revision.id, pageId);
  if (!page || page.type === 'link') throw notFound('Page');
  return presentRevisionPage(ctx, spaceId, revision.id, page, wanted, query);
}

export async function getRevisionPageDocument(ctx: Ctx, params: RevisionRef & { pageId: string }, asked: DocumentQuery) {
  const query = visitorQuery(ctx, asked);
  const space = await readableSpace(ctx, params);
  const revisionId = await readableRevisionId(ctx, space, params.revisionId);
  const fromPath = () => loadPagePath(ctx.em, revisionId, params.pageId);
  const cached = await revisionDocumentIfCached(ctx, space.id, revisionId, pageSource(params.pageId, fromPath).key, query);
  if (cached) return cached;
  const page = await loadPage(ctx.em, revisionId, params.pageId);
  if (!page || page.type !== 'document') throw notFound('Page');
  return revisionDocumentAnswer(ctx, space.id, revisionId, pageSource(page.id, fromPath), page.markdown, query);
}

export async function listRevisionFiles(ctx: Ctx, params: RevisionRef, query: MetadataQuery & { page?: string; limit?: number }) {
  const { spaceId, revision } = await resolveRevision(ctx, params);
  const options = await presentOptions(ctx, spaceId, revision.id, query);
  return paginate(ctx.em, fileListing(ctx.em, revision.id), query, (rows) => rows.map((f) => presentFile(f, options)));
}

export async function getRevisionFile(ctx: Ctx, params: RevisionRef & { fileId: string }, query: MetadataQuery) {
  const { spaceId, revision } = await resolveRevision(ctx, params);
  const file = await loadFile(ctx.em, revision.id, params.fileId);
  if (!file) throw notFound('File');
  return presentFile(file, await presentOptions(ctx, spaceId, revision.id, query));
}

async function requireReusableContent(ctx: Ctx, revisionId: string, reusableContentId: string) {
  const content = await loadReusableContent(ctx.em, revisionId, reusableContentId);
  if (!content) throw notFound('Reusable content');
  return content;
}

export async function getRevisionReusableContent(ctx: Ctx, params: RevisionRef & { reusableContentId: string }) {
  const { revision } = await resolveRevision(ctx, params);
  return presentReusableContent(await requireReusableContent(ctx, revision.id, params.reusableContentId));
}

export async function getRevisionReusableContentDocument(
  ctx: Ctx,
  params: RevisionRef & { reusableContentId: string },
  query: DocumentQuery,
) {
  const { spaceId, revision } = await resolveRevision(ctx, params);
  const content = await requireReusableContent(ctx, revision.id, params.reusableContentId);
  const source = { key: `reusable-content:${params.reusableContentId}`, fromPath: async () => '' };
  return revisionDocumentAnswer(ctx, spaceId, revision.id, source, content.markdown, visitorQuery(ctx, query));
}

async function requirePage(ctx: Ctx, revisionId: string, pageId: string): Promise<void> {
  const page = await loadPagePath(ctx.em, revisionId, pageId);
  if (page === '') throw notFound('Page');
}

export async function listRevisionPageMetaLinks(ctx: Ctx, params: RevisionRef & { pageId: string }) {
  const { revision } = await resolveRevision(ctx, params);
  await requirePage(ctx, revision.id, params.pageId);
  return presentMetaLinks();
}

/** A reusable content of a space's current content or of a change request's. */
export async function getContentReusableContent(ctx: Ctx, params: ScopeRef & { reusableContentId: string }) {
  const target = await resolveTarget(ctx, params);
  return presentReusableContent(await requireReusableContent(ctx, target.revisionId, params.reusableContentId));
}

/** The meta links of a page of a space's current content or of a change request's. */
export async function listContentPageMetaLinks(ctx: Ctx, params: ScopeRef & { pageId: string }) {
  const target = await resolveTarget(ctx, params);
  await requirePage(ctx, target.revisionId, params.pageId);
  return presentMetaLinks();
}

/** A revision's pages (documents as tokens: compared, never read) and files; empty for none. */
async function contentState(ctx: Ctx, revisionId: string | undefined): Promise<ContentState> {
  if (revisionId === undefined) return { pages: {}, files: [] };
  const [pages, files] = await Promise.all([loadPageMap(ctx.em, revisionId, false), loadFiles(ctx.em, revisionId)]);
  return { pages, files };
}

const DEFAULT_CHANGES_LIMIT = 10;

/** The semantic changes a revision made against its first parent (every page and file, for the first revision). */
export async function getRevisionSemanticChanges(ctx: Ctx, params: RevisionRef, query: MetadataQuery & { limit?: number }) {
  const { spaceId, revision } = await resolveRevision(ctx, params);
  const [before, after] = await Promise.all([contentState(ctx, revision.parents[0]), contentState(ctx, revision.id)]);
  const options = await presentOptions(ctx, spaceId, revision.id, query);
  const mergedFrom = revision.type === 'merge' ? await presentMergedFrom(ctx, revision.id) : undefined;
  return presentSemanticChanges(
    semanticChanges(before, after),
    query.limit ?? DEFAULT_CHANGES_LIMIT,
    (file) => presentFile(file, options).downloadURL,
    mergedFrom,
  );
}

/** The semantic changes of a change request's content against its base (the space revision it was last brought up to date with). */
export async function getChangeRequestChanges(ctx: Ctx, params: ScopeRef & { changeRequestId: string }, query: { limit?: number }) {
  const target = await resolveTarget(ctx, params);
  const changeRequest = target.changeRequest!;
  const base = changeRequest.revision_merged_ancestor ?? changeRequest.revision_initial;
  const [before, after] = await Promise.all([contentState(ctx, base), contentState(ctx, target.revisionId)]);
  const options = await contentPresentOptions(ctx, target, {});
  return presentSemanticChanges(
    semanticChanges(before, after),
    query.limit ?? DEFAULT_CHANGES_LIMIT,
    (file) => presentFile(file, options).downloadURL,
  );
}
