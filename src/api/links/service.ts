import type { Static } from 'typebox';
import { openChangeRequestRevisions } from '../../db/change-requests.ts';
import { loadDocuments, loadFiles, loadPageMap, tokenHash } from '../../db/content.ts';
import type { Em } from '../../db/orm.ts';
import { decodeCursor, encodeCursor } from '../../domain/cursor.ts';
import { sharedCache } from '../../domain/lru.ts';
import { entryBytes } from '../../domain/sizeof.ts';
import { groupLinks, linkIndex, resolveLinks, type LinkIndex, type LinkReference, type ResolvedLink } from '../../domain/content/links.ts';
import { extractLinks, type ExtractedLink } from '../../domain/content/markdown.ts';
import type { PageNode } from '../../domain/content/tree.ts';
import { resolveTarget } from '../content/service.ts';
import type { ScopeRef } from '../content/schemas.ts';
import type { Ctx } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { DEFAULT_LIMIT } from '../pagination.ts';
import { presentLinkReference, presentPageLocation } from './present.ts';
import type { BacklinksQuery, LinksQuery } from './schemas.ts';

/**
 * Links of a revision and backlinks of its files, for a space's current content and for a change
 * request's content. Links are read from page markdown with `extractLinks`, and the hrefs of link
 * pages; status is `classifyLink`'s. `stats.broken.changeRequest` sums, over the space's open
 * change requests, the broken link references in the same scope (the page, or the whole content).
 */

/** Link references (one per status and target, with the pages holding them) of the content or of one page (`only`), with stats. */
export async function listLinks(ctx: Ctx, params: ScopeRef, only: string | null, query: Static<typeof LinksQuery>) {
  const { publicUrl } = ctx.deps.config;
  const target = await resolveTarget(ctx, params);
  const spaceId = target.space.id;
  const links = await revisionLinks(ctx.em, publicUrl, spaceId, target.revisionId, only);
  if (only !== null && !links.found) throw notFound('Page');
  const references = groupLinks(links.pages);
  const matching = query.status ? references.filter((r) => r.status === query.status) : references;
  const offset = decodeOffset(query.page);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const page = matching.slice(offset, offset + limit);
  return {
    items: page.map((r) => presentLinkReference(r, target.space.organizationId, spaceId)),
    count: matching.length,
    ...(offset + limit < matching.length ? { next: { page: encodeCursor([offset + limit]) } } : {}),
    stats: {
      total: references.length,
      broken: {
        total: countBroken(references),
        changeRequest: await brokenInOpenChangeRequests(ctx.em, publicUrl, spaceId, only),
      },
    },
  };
}

/** The pages linking to a file of the content, in page order. */
export async function listBacklinks(ctx: Ctx, params: ScopeRef & { fileId: string }, query: Static<typeof BacklinksQuery>) {
  const target = await resolveTarget(ctx, params);
  const spaceId = target.space.id;
  const links = await revisionLinks(ctx.em, ctx.deps.config.publicUrl, spaceId, target.revisionId, null);
  if (!links.index.fileIds.has(params.fileId)) throw notFound('File');
  const pages = links.pages
    .filter((p) => p.links.some((l) => l.target.kind === 'file' && l.target.file === params.fileId))
    .map((p) => p.pageId);
  const offset = decodeOffset(query.page);
  const limit = query.limit ?? DEFAULT_LIMIT;
  return {
    items: pages.slice(offset, offset + limit).map((page) => presentPageLocation(target.space.organizationId, spaceId, page)),
    count: pages.length,
    ...(offset + limit < pages.length ? { next: { page: encodeCursor([offset + limit]) } } : {}),
  };
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
  let broken = 0;
  for (const revisionId of await openChangeRequestRevisions(em, spaceId)) {
    const links = await revisionLinks(em, publicUrl, spaceId, revisionId, only);
    broken += countBroken(groupLinks(links.pages));
  }
  return broken;
}

/**
 * Links found in documents, by document hash: documents are content-addressed and shared by the
 * revisions of a space, so each is parsed once per process while it stays in this cache, within
 * the `documentLinks` share of CACHE_MEMORY (a document with 20 links: about 3 KB).
 */
const linkCache = sharedCache<string, ExtractedLink[]>('documentLinks', (links, hash) => entryBytes(hash, links));

/** The links of each page: a document's links, the href of a link page, none for a group. */
async function extractedLinks(em: Em, spaceId: string, pages: PageNode[]): Promise<ExtractedLink[][]> {
  // Read from the cache once, into a map of this call: a space with more documents than the cache
  // holds evicts its own first entries while the rest are parsed.
  const known = new Map<string, ExtractedLink[]>();
  const missing = new Set<string>();
  for (const page of pages) {
    const hash = page.type === 'document' ? tokenHash(page.markdown) : null;
    if (hash === null || known.has(hash)) continue;
    const cached = linkCache().get(hash);
    if (cached) known.set(hash, cached);
    else missing.add(hash);
  }
  if (missing.size > 0) {
    const texts = await loadDocuments(em, spaceId, [...missing]);
    for (const hash of missing) {
      const links = extractLinks(texts.get(hash) ?? '');
      known.set(hash, links);
      linkCache().set(hash, links);
    }
  }
  return pages.map((page) => {
    if (page.type === 'link') return page.href ? [{ url: page.href, kind: 'link' as const, text: page.title, line: 1 }] : [];
    if (page.type !== 'document') return [];
    const hash = tokenHash(page.markdown);
    if (hash === null) return extractLinks(page.markdown);
    return known.get(hash) ?? [];
  });
}
