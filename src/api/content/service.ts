import type { Space } from '../../db/entities.ts';
import type { ChangeRequestRow } from '../../db/change-requests.ts';
import {
  fileListing,
  loadFile,
  loadFiles,
  loadPage,
  loadPagePath,
  loadPageMap,
  loadReusableContents,
  loadRevision,
  type FileRow,
  type RevisionRow,
} from '../../db/content.ts';
import type { Role } from '../../domain/roles.ts';
import type { BlobStream } from '../../lib/blob-store.ts';
import { loadSpace, requireContentScope, requireRole } from '../access.ts';
import { presentMergedFrom, requireChangeRequest } from '../change-requests/service.ts';
import type { Ctx } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { signedFileUrlExpiry, signedFileUrls, verifyFileUrl } from '../object-urls.ts';
import { SizedLru } from '../../domain/lru.ts';
import { JsonAnswer } from '../json-answer.ts';
import {
  fileContentDisposition,
  presentFile,
  presentPage,
  revisionHeadJson,
  revisionTailJson,
  presentTree,
  withDocument,
  type PresentOptions,
} from './present.ts';
import type { ScopeRef } from './schemas.ts';
import { pageSource, revisionDocument, type DocumentQuery } from '../revisions/documents.ts';
import { conditionalMarkdown } from '../../domain/content/conditional-markdown.ts';
import { conditionContext, conditionHolds } from '../../domain/sites/conditions.ts';
import { createHash } from 'node:crypto';
import { presentReusableContent } from '../revisions/present.ts';

/**
 * The content a request reads: a space's current revision (`/v1/spaces/{spaceId}/...`) or a change
 * request's (`/v1/spaces/{spaceId}/change-requests/{changeRequestId}/...`). One resolver for both,
 * used by every content-scoped group (content, links, comments, search, pdf).
 */
export interface ContentTarget {
  space: Space;
  role: Role | null;
  revisionId: string;
  changeRequest: ChangeRequestRow | null;
}

/** The space (404 unless the caller sees it, 403 below `min`) and, on change-request routes, the change request (by id or number). */
export async function resolveTarget(ctx: Ctx, params: ScopeRef, min: Role = 'read'): Promise<ContentTarget> {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, params.spaceId);
  requireRole(role, min, 'read this content');
  requireContentScope(ctx.caller);
  if (params.changeRequestId === undefined) return { space, role, revisionId: space.revisionId, changeRequest: null };
  // A site visitor reads published content only; a preview's token reads change requests too.
  if (ctx.caller.visitor && !ctx.caller.visitor.preview) throw notFound('Change request');
  const changeRequest = await requireChangeRequest(ctx.em, space.id, params.changeRequestId);
  return { space, role, revisionId: changeRequest.revision_id, changeRequest };
}

/** `metadata=false` leaves out mutable git metadata. */
type MetadataQuery = { metadata?: boolean };

/** How content is presented to the caller: a site visitor's files get signed links a browser loads as they are. */
export async function presentOptions(
  ctx: Ctx,
  target: { space: { id: string }; revisionId: string; changeRequest: { id: string } | null },
  query: MetadataQuery,
): Promise<PresentOptions> {
  const spaceId = target.space.id;
  const { publicUrl } = ctx.deps.config;
  return {
    publicUrl,
    spaceId,
    metadata: query.metadata !== false,
    base: target.changeRequest ? `/v1/spaces/${spaceId}/change-requests/${target.changeRequest.id}` : `/v1/spaces/${spaceId}`,
    ...(ctx.caller.visitor ? await signedLinks(ctx, spaceId, target.revisionId) : {}),
    ...(ctx.caller.visitor ? visitorMarkdown(ctx.caller.visitor.claims) : {}),
  };
}

/**
 * A site visitor reads markdown with the `{% if %}` branches their claims exclude removed
 * (conditional-markdown.ts), as documents are evaluated for them: never content their claims
 * exclude, on any read. Answers built with it are kept by the claims (`markdownKey`).
 */
function visitorMarkdown(claims: Record<string, unknown>): Pick<PresentOptions, 'markdown' | 'markdownKey'> {
  return {
    markdown: visibleMarkdown(claims),
    markdownKey: createHash('sha256').update(JSON.stringify(claims)).digest('base64url'),
  };
}

/**
 * Markdown as a visitor with these claims reads it: the branches their claims exclude removed.
 * Reads and site search (api/sites/search) both go through it, so search never answers a visitor
 * text their page reads would not show.
 */
export function visibleMarkdown(claims: Record<string, unknown>): (markdown: string) => string {
  let context: object | undefined;
  // Built on the first condition met: most answers are kept, and most pages have none.
  const contextOf = () => {
    const { unsigned, ...signed } = claims;
    return (context ??= conditionContext({ signed, unsigned: isRecord(unsigned) ? unsigned : {} }));
  };
  return (markdown) => conditionalMarkdown(markdown, (expression) => conditionHolds(expression, contextOf()));
}

const isRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/** The document query of a read: a site visitor's documents are always evaluated for their claims. */
export function visitorQuery<Q extends DocumentQuery>(ctx: Ctx, query: Q): Q {
  return ctx.caller.visitor ? { ...query, evaluated: 'true' } : query;
}

async function signedLinks(ctx: Ctx, spaceId: string, revisionId: string): Promise<Pick<PresentOptions, 'downloadURL' | 'downloadKey'>> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  return {
    downloadURL: signedFileUrls(await ctx.deps.fileUrlKey(), ctx.deps.config.publicUrl, spaceId, revisionId, nowSeconds),
    downloadKey: `expires:${signedFileUrlExpiry(nowSeconds)}`,
  };
}

/**
 * Revisions as answered, serialized: a revision's pages, files and reusable contents never change,
 * so a reader's page view (which reads the whole revision) costs one indexed row and a copy of
 * these bytes instead of reading and presenting every page. Keyed by revision and by what the
 * answer depends on (where the content lives, the signed links' expiry, `metadata`, the visitor's
 * claims); the head (git metadata an export sets later, the change request it was merged from) is
 * checked on every read and the answer rebuilt when it changed. Bounded by bytes held; see
 * docs/scaling.md. A site visitor's whole answer, head included, is also kept between writes
 * (AppDeps.visitorRevisions, api/revisions/service.ts), so a page view need not read the row.
 */
export const REVISION_CACHE_BYTES = 32 * 1024 * 1024;
interface CachedRevision {
  /** `,"pages":…,"files":…,"reusableContents":…}`: the answer after its head, UTF-8. */
  tail: Buffer;
  head: string;
  answer: JsonAnswer;
}
const revisionAnswers = new SizedLru<string, CachedRevision>(REVISION_CACHE_BYTES, (c) => c.tail.length + c.answer.bytes);

/** GitBook's Revision for `revision`, presented with `options`, as a prepared answer. */
export async function revisionAnswer(ctx: Ctx, revision: RevisionRow, options: PresentOptions): Promise<JsonAnswer> {
  const key = revisionAnswerKey(revision.id, options);
  const mergedFrom = revision.type === 'merge' ? await presentMergedFrom(ctx, revision.id) : undefined;
  const head = revisionHeadJson(revision, options, mergedFrom);
  const cached = revisionAnswers.get(key);
  if (cached?.head === head) return cached.answer;
  let tail = cached?.tail;
  if (!tail) {
    const [pages, files, reusableContents] = await Promise.all([
      loadPageMap(ctx.em, revision.id, true),
      loadFiles(ctx.em, revision.id),
      loadReusableContents(ctx.em, revision.id),
    ]);
    tail = Buffer.from(revisionTailJson(pages, files, options, reusableContents.map(presentReusableContent)));
  }
  const answer = new JsonAnswer(Buffer.concat([Buffer.from(head.slice(0, -1)), tail]));
  revisionAnswers.set(key, { tail, head, answer });
  return answer;
}

/**
 * What a revision's answer is kept by (revisionAnswer, and a site visitor's whole answer in
 * AppDeps.visitorRevisions): the revision, and every presentation option the answer depends on,
 * among them the space it is read in (`options.base`), so an answer is never served for another space.
 */
export function revisionAnswerKey(revisionId: string, options: PresentOptions): string {
  return `${revisionId}\n${options.publicUrl}\n${options.base}\n${options.downloadKey ?? ''}\n${options.metadata}\n${options.markdownKey ?? ''}`;
}

/** The revision with its page tree and files; a merge revision names the change request it came from. */
export async function getRevision(ctx: Ctx, params: ScopeRef, query: MetadataQuery): Promise<JsonAnswer> {
  const target = await resolveTarget(ctx, params);
  const revision = await loadRevision(ctx.em, target.revisionId);
  if (!revision) throw notFound('Revision');
  return revisionAnswer(ctx, revision, await presentOptions(ctx, target, query));
}

export async function listPages(ctx: Ctx, params: ScopeRef, query: MetadataQuery) {
  const target = await resolveTarget(ctx, params);
  const pages = await loadPageMap(ctx.em, target.revisionId, true);
  return { pages: presentTree(pages, await presentOptions(ctx, target, query)) };
}

/** A page; with `format=document`, its document in GitBook's model in place of its markdown. */
export async function getPage(
  ctx: Ctx,
  params: ScopeRef & { pageId: string },
  query: MetadataQuery & { format?: 'document' | 'markdown' },
) {
  const target = await resolveTarget(ctx, params);
  const page = await loadPage(ctx.em, target.revisionId, params.pageId);
  if (!page) throw notFound('Page');
  const path = await loadPagePath(ctx.em, target.revisionId, params.pageId);
  const presented = presentPage(page, path, [], await presentOptions(ctx, target, query));
  if (query.format !== 'document' || page.type !== 'document') return presented;
  const document = await revisionDocument(
    ctx,
    target.space.id,
    target.revisionId,
    pageSource(page.id, async () => path),
    page.markdown,
    visitorQuery(ctx, {}),
  );
  return withDocument(presented, document);
}

/** The files of the revision by id, a page at a time. */
export async function listFiles(ctx: Ctx, params: ScopeRef, query: MetadataQuery & { page?: string; limit?: number }) {
  const target = await resolveTarget(ctx, params);
  const options = await presentOptions(ctx, target, query);
  return paginate(ctx.em, fileListing(ctx.em, target.revisionId), query, (rows) => rows.map((f) => presentFile(f, options)));
}

async function requireFile(ctx: Pick<Ctx, 'em'>, revisionId: string, fileId: string): Promise<FileRow> {
  const file = await loadFile(ctx.em, revisionId, fileId);
  if (!file) throw notFound('File');
  return file;
}

export async function getFile(ctx: Ctx, params: ScopeRef & { fileId: string }, query: MetadataQuery) {
  const target = await resolveTarget(ctx, params);
  return presentFile(await requireFile(ctx, target.revisionId, params.fileId), await presentOptions(ctx, target, query));
}

/** How long a redirect to the blob store's presigned URL of a file works. */
export const FILE_DOWNLOAD_TTL_SECONDS = 300;

/**
 * The bytes of a file, with its name and type: a presigned URL of the blob store to redirect to
 * when the store serves downloads itself, else a stream of the bytes (never the whole file in memory).
 */
export async function downloadFile(
  ctx: Ctx,
  params: ScopeRef & { fileId: string },
): Promise<{ file: FileRow; disposition: string } & ({ redirect: string } | { blob: BlobStream })> {
  const target = await resolveTarget(ctx, params);
  const file = await requireFile(ctx, target.revisionId, params.fileId);
  return fileBytes(ctx, file);
}

/**
 * The bytes of a file through a signed link (object-urls.ts `signedFileUrls`): no token, the
 * signature is the credential. 403 for a link whose signature does not match or that expired.
 */
export async function downloadSignedFile(
  ctx: Pick<Ctx, 'em' | 'deps'>,
  params: { spaceId: string; fileId: string },
  query: { revision: string; expires: number; signature: string },
): Promise<{ file: FileRow; disposition: string } & ({ redirect: string } | { blob: BlobStream })> {
  const ref = { spaceId: params.spaceId, fileId: params.fileId, revisionId: query.revision };
  const verdict = verifyFileUrl(await ctx.deps.fileUrlKey(), ref, query.expires, query.signature, Math.floor(Date.now() / 1000));
  if (verdict === 'expired') throw forbidden('This link has expired');
  if (verdict !== 'valid') throw forbidden('This link is not valid');
  const file = await requireFile(ctx, query.revision, params.fileId);
  return fileBytes(ctx, file);
}

async function fileBytes(
  ctx: Pick<Ctx, 'deps'>,
  file: FileRow,
): Promise<{ file: FileRow; disposition: string } & ({ redirect: string } | { blob: BlobStream })> {
  const { blobs } = ctx.deps;
  const disposition = fileContentDisposition(file.name);
  const redirect = await blobs.downloadUrl(file.sha256, {
    contentType: file.contentType,
    contentDisposition: disposition,
    expiresIn: FILE_DOWNLOAD_TTL_SECONDS,
  });
  if (redirect !== null) return { file, disposition, redirect };
  const blob = await blobs.open(file.sha256);
  if (!blob) throw notFound('File content');
  return { file, disposition, blob };
}
