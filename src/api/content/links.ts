import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { loadDocuments, loadFiles, loadPageMap, tokenHash } from '../../db/content.ts';
import type { Em } from '../../db/orm.ts';
import { sql } from '../../db/sql.ts';
import { decodeCursor, encodeCursor } from '../../domain/cursor.ts';
import { groupLinks, linkIndex, resolveLinks, type LinkIndex, type LinkReference, type ResolvedLink } from '../../domain/content/links.ts';
import { extractLinks, type ExtractedLink } from '../../domain/content/markdown.ts';
import type { PageNode } from '../../domain/content/tree.ts';
import { badRequest, notFound } from '../errors.ts';
import { DEFAULT_LIMIT } from '../pagination.ts';
import { errors } from '../schemas.ts';
import {
  BacklinkList, BacklinksQuery, ChangeRequestContentParams, FileParams, LinkList, LinksQuery, PageParams, SpaceContentParams,
} from './schemas.ts';
import { resolveTarget } from './target.ts';

/**
 * Links of a revision and backlinks of its files, for a space's current content and for a change
 * request's content (same routes under both prefixes):
 *
 * - `{prefix}/links` and `{prefix}/content/page/{pageId}/links`: link references (one per status
 *   and target, with the pages holding them), in page order then link order, with `stats`;
 * - `{prefix}/content/files/{fileId}/backlinks`: the pages linking to a file.
 *
 * Links are read from page markdown with `extractLinks`, and the hrefs of link pages; status is
 * `classifyLink`'s. `stats.broken.changeRequest` sums, over the space's open change requests, the
 * broken link references in the same scope (the page, or the whole content).
 */
export async function linkRoutes(app: FastifyInstance) {
  const { publicUrl } = app.deps.config;

  for (const withChangeRequest of [false, true]) {
    const prefix = withChangeRequest ? '/v1/spaces/:spaceId/change-requests/:changeRequestId' : '/v1/spaces/:spaceId';
    const params = withChangeRequest ? ChangeRequestContentParams : SpaceContentParams;
    const tags = [withChangeRequest ? 'change-request content' : 'space content'];

    const listLinks = async (request: Parameters<typeof resolveTarget>[0], only: string | null) => {
      const query = request.query as Static<typeof LinksQuery>;
      const target = await resolveTarget(request);
      const spaceId = target.space.id;
      const links = await revisionLinks(request.em, publicUrl, spaceId, target.revisionId, only);
      if (only !== null && !links.found) throw notFound('Page');
      const references = groupLinks(links.pages);
      const matching = query.status ? references.filter((r) => r.status === query.status) : references;
      const offset = decodeOffset(query.page);
      const limit = query.limit ?? DEFAULT_LIMIT;
      const page = matching.slice(offset, offset + limit);
      const location = (pageId: string) => ({ kind: 'page' as const, organization: target.space.organizationId, space: spaceId, page: pageId });
      return {
        items: page.map((r) => ({ status: r.status, relation: 'reference' as const, targetReference: r.target, locationReferences: r.pages.map(location) })),
        count: matching.length,
        ...(offset + limit < matching.length ? { next: { page: encodeCursor([offset + limit]) } } : {}),
        stats: {
          total: references.length,
          broken: {
            total: countBroken(references),
            changeRequest: await brokenInOpenChangeRequests(request.em, publicUrl, spaceId, only),
          },
        },
      };
    };

    app.get(`${prefix}/links`, {
      schema: { tags, summary: 'List the links of every page, with their status', params, querystring: LinksQuery, response: { 200: LinkList, ...errors(403, 404) } },
    }, async (request) => listLinks(request, null));

    app.get(`${prefix}/content/page/:pageId/links`, {
      schema: {
        tags,
        summary: 'List the links of a page, with their status',
        params: PageParams(withChangeRequest),
        querystring: LinksQuery,
        response: { 200: LinkList, ...errors(403, 404) },
      },
    }, async (request) => listLinks(request, (request.params as { pageId: string }).pageId));

    app.get(`${prefix}/content/files/:fileId/backlinks`, {
      schema: {
        tags,
        summary: 'List the pages linking to a file',
        params: FileParams(withChangeRequest),
        querystring: BacklinksQuery,
        response: { 200: BacklinkList, ...errors(403, 404) },
      },
    }, async (request) => {
      const query = request.query as Static<typeof BacklinksQuery>;
      const { fileId } = request.params as { fileId: string };
      const target = await resolveTarget(request);
      const spaceId = target.space.id;
      const links = await revisionLinks(request.em, publicUrl, spaceId, target.revisionId, null);
      if (!links.index.fileIds.has(fileId)) throw notFound('File');
      const pages = links.pages.filter((p) => p.links.some((l) => l.target.kind === 'file' && l.target.file === fileId)).map((p) => p.pageId);
      const offset = decodeOffset(query.page);
      const limit = query.limit ?? DEFAULT_LIMIT;
      return {
        items: pages.slice(offset, offset + limit).map((page) => ({ kind: 'page' as const, organization: target.space.organizationId, space: spaceId, page })),
        count: pages.length,
        ...(offset + limit < pages.length ? { next: { page: encodeCursor([offset + limit]) } } : {}),
      };
    });
  }
}

function decodeOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const values = decodeCursor(cursor, ['number']);
  if (!values || !Number.isInteger(values[0]) || (values[0] as number) < 0) {
    throw badRequest('page is not a valid page cursor: pass `next.page` of the previous answer');
  }
  return values[0] as number;
}

function countBroken(references: LinkReference[]): number {
  return references.filter((r) => r.status === 'broken').length;
}

interface RevisionLinks {
  index: LinkIndex;
  /** Whether the page asked for (if any) is in the revision. */
  found: boolean;
  pages: { pageId: string; links: ResolvedLink[] }[];
}

/** The resolved links of every page of a revision in page order, or of one page (`only`). */
async function revisionLinks(em: Em, publicUrl: string, spaceId: string, revisionId: string, only: string | null): Promise<RevisionLinks> {
  const [map, files] = await Promise.all([loadPageMap(em, revisionId, false), loadFiles(em, revisionId)]);
  const index = linkIndex({ publicUrl, spaceId, pages: map, files });
  const found = only === null || Object.hasOwn(map, only);
  const ids = only === null ? index.order : found ? [only] : [];
  const nodes = ids.map((id) => map[id]);
  const extracted = await extractedLinks(em, spaceId, nodes);
  return { index, found, pages: nodes.map((node, i) => ({ pageId: node.id, links: resolveLinks(index, node.id, extracted[i]) })) };
}

/** Broken link references in the given scope, summed over the open change requests of the space. */
async function brokenInOpenChangeRequests(em: Em, publicUrl: string, spaceId: string, only: string | null): Promise<number> {
  const open = await sql<{ revision_id: string }>(em, "select revision_id from change_request where space_id = ? and status = 'open' order by number", [spaceId]);
  let broken = 0;
  for (const { revision_id } of open) {
    const links = await revisionLinks(em, publicUrl, spaceId, revision_id, only);
    broken += countBroken(groupLinks(links.pages));
  }
  return broken;
}

/**
 * Links found in documents, by document hash: documents are content-addressed and shared by the
 * revisions of a space, so each is parsed once per process while it stays in this cache.
 */
const CACHE_SIZE = 20_000;
const linkCache = new Map<string, ExtractedLink[]>();

function remember(hash: string, links: ExtractedLink[]) {
  linkCache.delete(hash);
  linkCache.set(hash, links);
  if (linkCache.size > CACHE_SIZE) linkCache.delete(linkCache.keys().next().value!);
}

/** The links of each page: a document's links, the href of a link page, none for a group. */
async function extractedLinks(em: Em, spaceId: string, pages: PageNode[]): Promise<ExtractedLink[][]> {
  const missing = new Set<string>();
  for (const page of pages) {
    const hash = page.type === 'document' ? tokenHash(page.markdown) : null;
    if (hash !== null && !linkCache.has(hash)) missing.add(hash);
  }
  if (missing.size > 0) {
    const texts = await loadDocuments(em, spaceId, [...missing]);
    for (const hash of missing) remember(hash, extractLinks(texts.get(hash) ?? ''));
  }
  return pages.map((page) => {
    if (page.type === 'link') return page.href ? [{ url: page.href, kind: 'link' as const, text: page.title, line: 1 }] : [];
    if (page.type !== 'document') return [];
    const hash = tokenHash(page.markdown);
    if (hash === null) return extractLinks(page.markdown);
    const links = linkCache.get(hash) ?? [];
    remember(hash, links);
    return links;
  });
}
