import type { Space } from '../../db/entities.ts';
import {
  fileListing,
  loadFile,
  loadFiles,
  loadPage,
  loadPageMap,
  loadPagePath,
  loadReusableContent,
  loadReusableContents,
  loadReusableContentTexts,
  loadRevision,
  type RevisionRow,
} from '../../db/content.ts';
import { markdownToDocument, type JsonDocument } from '../../domain/content/document.ts';
import { SizedLru } from '../../domain/lru.ts';
import { dereferenceReusableContents, evaluateDocument } from '../../domain/content/document-reads.ts';
import { documentResolvers as buildResolvers, type DocumentResolvers, type ResolverSources } from '../../domain/content/resolvers.ts';
import { allPaths } from '../../domain/content/tree.ts';
import { conditionContext, conditionHolds } from '../../domain/sites/conditions.ts';
import { loadSpace, requireVisibleRevision } from '../access.ts';
import { presentMergedFrom } from '../change-requests/service.ts';
import { presentFile, presentPage, presentRevision, presentTree, type PresentOptions } from '../content/present.ts';
import type { ScopeRef } from '../content/schemas.ts';
import { presentOptions as contentPresentOptions, resolveTarget } from '../content/service.ts';
import type { Ctx } from '../context.ts';
import { notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { presentMetaLinks, presentReusableContent } from './present.ts';

/**
 * Reads of any revision of a space by id, as GitBook's site renderer makes them: the revision,
 * its pages (by id or path, with their documents evaluated for the visitor and reusable contents
 * expanded), files and reusable contents, and pages' meta links. Every read loads the space
 * through access.ts and the revision through `readableRevision`, the one place that decides
 * which revisions of a space a caller may read.
 */

type RevisionRef = { spaceId: string; revisionId: string };
type MetadataQuery = { metadata?: boolean };
export type DocumentQuery = { evaluated?: 'true' | 'false' | 'deterministic-only'; dereferenced?: 'true' | 'false' | 'reusable-contents' };

/**
 * The revision `revisionId` of `space`; 404 unless it is one of the space's revisions and the
 * caller may read it (a site visitor reads only the published revision, see access.ts).
 */
export async function readableRevision(ctx: Ctx, space: Space, revisionId: string): Promise<RevisionRow> {
  requireVisibleRevision(ctx, space, revisionId);
  const revision = await loadRevision(ctx.em, revisionId);
  if (!revision || revision.space_id !== space.id) throw notFound('Revision');
  return revision;
}

/** The space (404 unless the caller may read it) and the revision asked for. */
async function resolveRevision(ctx: Ctx, params: RevisionRef): Promise<{ space: Space; revision: RevisionRow }> {
  const { space } = await loadSpace(ctx.em, ctx.caller, params.spaceId);
  return { space, revision: await readableRevision(ctx, space, params.revisionId) };
}

/**
 * Presented as the space's content is: a member downloads files through the space's content, a
 * site visitor through signed links to the revision's files.
 */
function presentOptions(ctx: Ctx, space: Space, revisionId: string, query: MetadataQuery): Promise<PresentOptions> {
  return contentPresentOptions(ctx, { space, revisionId, changeRequest: null }, query);
}

/**
 * How the markdown → document conversion resolves a revision's references: links to page ids
 * (by page path), images and file links to file ids (by name), `{% include %}` paths to reusable
 * content ids (by path under `.gitbook/includes/`).
 */
export function documentResolvers(sources: ResolverSources): DocumentResolvers {
  return buildResolvers(sources);
}

async function revisionResolvers(ctx: Ctx, revisionId: string): Promise<DocumentResolvers> {
  const [pages, files, reusableContents] = await Promise.all([
    loadPageMap(ctx.em, revisionId, false),
    loadFiles(ctx.em, revisionId),
    loadReusableContents(ctx.em, revisionId),
  ]);
  return documentResolvers({ pages, files, reusableContents });
}

/** The claims `if` blocks are evaluated against: a site visitor's, or none. */
function visitorContext(ctx: Ctx): object {
  const { unsigned, ...signed } = ctx.caller.visitor?.claims ?? {};
  const unsignedClaims = unsigned && typeof unsigned === 'object' && !Array.isArray(unsigned) ? (unsigned as Record<string, unknown>) : {};
  return conditionContext({ signed, unsigned: unsignedClaims });
}

/**
 * Documents of a revision's pages and reusable contents as converted, before they are evaluated
 * for a visitor: a revision never changes, so a document is converted once per process and
 * answered from here after that. Bounded by the bytes of the documents' JSON (about twice that in
 * memory); see docs/scaling.md.
 */
export const DOCUMENT_CACHE_BYTES = 32 * 1024 * 1024;
const documents = new SizedLru<string, { document: JsonDocument; conditional: boolean; bytes: number }>(
  DOCUMENT_CACHE_BYTES,
  (entry) => entry.bytes,
);

/**
 * The document of a markdown text of the revision (`source` names it: a page or a reusable
 * content), with reusable contents expanded (`dereferenced`) and `if` blocks decided for the
 * caller (`evaluated`). Visitor claims are the only inputs conditions read, and they are fixed by
 * the token, so `deterministic-only` evaluates the same as `true`.
 */
async function revisionDocument(
  ctx: Ctx,
  revisionId: string,
  source: string,
  markdown: string,
  query: DocumentQuery,
): Promise<JsonDocument> {
  const dereference = query.dereferenced === 'true' || query.dereferenced === 'reusable-contents';
  const key = `${revisionId}\n${source}\n${dereference ? 'dereferenced' : ''}`;
  let entry = documents.get(key);
  if (!entry) {
    const document = await convertDocument(ctx, revisionId, markdown, dereference);
    const json = JSON.stringify(document);
    // Only a document with `if` blocks changes when evaluated; the others are answered as cached.
    entry = { document, conditional: json.includes('"type":"if"'), bytes: 2 * json.length };
    documents.set(key, entry);
  }
  if (entry.conditional && (query.evaluated === 'true' || query.evaluated === 'deterministic-only')) {
    const context = visitorContext(ctx);
    return evaluateDocument(entry.document, (expression) => conditionHolds(expression, context));
  }
  return entry.document;
}

async function convertDocument(ctx: Ctx, revisionId: string, markdown: string, dereference: boolean): Promise<JsonDocument> {
  const resolvers = await revisionResolvers(ctx, revisionId);
  // The resolvers are handed to the converter as its second argument once it takes them.
  void resolvers;
  const document = markdownToDocument(markdown);
  if (!dereference) return document;
  const texts = new Map((await loadReusableContentTexts(ctx.em, revisionId)).map((c) => [c.id, c.markdown]));
  const converted = new Map<string, JsonDocument>();
  return dereferenceReusableContents(document, (id) => {
    const text = texts.get(id);
    if (text === undefined) return undefined;
    let found = converted.get(id);
    if (!found) converted.set(id, (found = markdownToDocument(text)));
    return found;
  });
}

export async function getRevisionById(ctx: Ctx, params: RevisionRef, query: MetadataQuery) {
  const { space, revision } = await resolveRevision(ctx, params);
  const [pages, files, reusableContents] = await Promise.all([
    loadPageMap(ctx.em, revision.id, true),
    loadFiles(ctx.em, revision.id),
    loadReusableContents(ctx.em, revision.id),
  ]);
  const mergedFrom = revision.type === 'merge' ? await presentMergedFrom(ctx, revision.id) : undefined;
  return presentRevision(
    revision,
    pages,
    files,
    await presentOptions(ctx, space, revision.id, query),
    mergedFrom,
    reusableContents.map(presentReusableContent),
  );
}

export async function listRevisionPages(ctx: Ctx, params: RevisionRef, query: MetadataQuery) {
  const { space, revision } = await resolveRevision(ctx, params);
  return { pages: presentTree(await loadPageMap(ctx.em, revision.id, true), await presentOptions(ctx, space, revision.id, query)) };
}

type PageQuery = MetadataQuery & DocumentQuery & { format?: 'document' | 'markdown' };

/** A page as GitBook presents it: its markdown, or with `format=document` its document instead. */
async function presentRevisionPage(
  ctx: Ctx,
  space: Space,
  revisionId: string,
  page: NonNullable<Awaited<ReturnType<typeof loadPage>>>,
  path: string,
  query: PageQuery,
) {
  const presented = presentPage(page, path, [], await presentOptions(ctx, space, revisionId, query));
  if (query.format !== 'document' || page.type !== 'document') return presented;
  const rest = Object.fromEntries(Object.entries(presented).filter(([key]) => key !== 'markdown'));
  return { ...rest, document: await revisionDocument(ctx, revisionId, `page:${page.id}`, page.markdown, query) };
}

export async function getRevisionPage(ctx: Ctx, params: RevisionRef & { pageId: string }, query: PageQuery) {
  const { space, revision } = await resolveRevision(ctx, params);
  const page = await loadPage(ctx.em, revision.id, params.pageId);
  if (!page) throw notFound('Page');
  return presentRevisionPage(ctx, space, revision.id, page, await loadPagePath(ctx.em, revision.id, page.id), query);
}

/** A page by its path in the revision (`guides/install`); a leading or trailing `/` is ignored. */
export async function getRevisionPageByPath(ctx: Ctx, params: RevisionRef & { pagePath: string }, query: PageQuery) {
  const { space, revision } = await resolveRevision(ctx, params);
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
  return presentRevisionPage(ctx, space, revision.id, page, wanted, query);
}

export async function getRevisionPageDocument(ctx: Ctx, params: RevisionRef & { pageId: string }, query: DocumentQuery) {
  const { revision } = await resolveRevision(ctx, params);
  const page = await loadPage(ctx.em, revision.id, params.pageId);
  if (!page || page.type !== 'document') throw notFound('Page');
  return revisionDocument(ctx, revision.id, `page:${page.id}`, page.markdown, query);
}

export async function listRevisionFiles(ctx: Ctx, params: RevisionRef, query: MetadataQuery & { page?: string; limit?: number }) {
  const { space, revision } = await resolveRevision(ctx, params);
  const options = await presentOptions(ctx, space, revision.id, query);
  return paginate(ctx.em, fileListing(ctx.em, revision.id), query, (rows) => rows.map((f) => presentFile(f, options)));
}

export async function getRevisionFile(ctx: Ctx, params: RevisionRef & { fileId: string }, query: MetadataQuery) {
  const { space, revision } = await resolveRevision(ctx, params);
  const file = await loadFile(ctx.em, revision.id, params.fileId);
  if (!file) throw notFound('File');
  return presentFile(file, await presentOptions(ctx, space, revision.id, query));
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
  const { revision } = await resolveRevision(ctx, params);
  const content = await requireReusableContent(ctx, revision.id, params.reusableContentId);
  return revisionDocument(ctx, revision.id, `reusable-content:${params.reusableContentId}`, content.markdown, query);
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
