import type { FastifyInstance, FastifyRequest } from 'fastify';
import { loadFiles, loadPage, loadPageMap, loadRevision } from '../../db/content.ts';
import { sql } from '../../db/sql.ts';
import { decodeCursor, encodeCursor } from '../../domain/cursor.ts';
import { LocalBlobStore } from '../../lib/blob-store.ts';
import { badRequest, notFound } from '../errors.ts';
import { DEFAULT_LIMIT } from '../pagination.ts';
import { errors } from '../schemas.ts';
import { presentFile, presentPage, presentRevision, presentTree, type PresentOptions } from './present.ts';
import { ChangeRequestContentParams, ContentQuery, FileParams, FilesQuery, PageParams, PageQuery, SpaceContentParams } from './schemas.ts';
import { resolveTarget, type ContentTarget } from './target.ts';
import { presentChangeRequestById } from '../change-requests/present.ts';

/**
 * Reads of a space's current content and of a change request's content: the same routes under
 * `/v1/spaces/{spaceId}` and `/v1/spaces/{spaceId}/change-requests/{changeRequestId}`.
 */
export async function contentRoutes(app: FastifyInstance) {
  const { config } = app.deps;
  const blobs = new LocalBlobStore(config.blobDir);

  const options = (request: FastifyRequest, target: ContentTarget): PresentOptions => ({
    publicUrl: config.publicUrl,
    spaceId: target.space.id,
    metadata: (request.query as { metadata?: boolean }).metadata !== false,
    base: target.changeRequest ? `/v1/spaces/${target.space.id}/change-requests/${target.changeRequest.id}` : `/v1/spaces/${target.space.id}`,
  });

  for (const withChangeRequest of [false, true]) {
    const prefix = withChangeRequest ? '/v1/spaces/:spaceId/change-requests/:changeRequestId' : '/v1/spaces/:spaceId';
    const params = withChangeRequest ? ChangeRequestContentParams : SpaceContentParams;
    const tags = [withChangeRequest ? 'change-request content' : 'space content'];

    app.get(`${prefix}/content`, {
      schema: { tags, summary: 'Get the revision', params, querystring: ContentQuery, response: errors(404) },
    }, async (request) => {
      const target = await resolveTarget(request);
      const [revision, pages, files] = await Promise.all([
        loadRevision(request.em, target.revisionId),
        loadPageMap(request.em, target.revisionId, true),
        loadFiles(request.em, target.revisionId),
      ]);
      if (!revision) throw notFound('Revision');
      let mergedFrom: unknown;
      if (revision.type === 'merge') {
        mergedFrom = await presentChangeRequestById(request, config.publicUrl, revision.id);
      }
      return presentRevision(revision, pages, files, options(request, target), mergedFrom);
    });

    app.get(`${prefix}/content/pages`, {
      schema: { tags, summary: 'List the pages (as a tree)', params, querystring: ContentQuery, response: errors(404) },
    }, async (request) => {
      const target = await resolveTarget(request);
      const pages = await loadPageMap(request.em, target.revisionId, true);
      return { pages: presentTree(pages, options(request, target)) };
    });

    app.get(`${prefix}/content/page/:pageId`, {
      schema: { tags, summary: 'Get a page', params: PageParams(withChangeRequest), querystring: PageQuery, response: errors(404) },
    }, async (request) => {
      const target = await resolveTarget(request);
      const { pageId } = request.params as { pageId: string };
      const page = await loadPage(request.em, target.revisionId, pageId);
      if (!page) throw notFound('Page');
      const path = await pagePath(request, target.revisionId, pageId);
      return presentPage(page, path, [], options(request, target));
    });

    app.get(`${prefix}/content/files`, {
      schema: { tags, summary: 'List the files', params, querystring: FilesQuery, response: errors(404) },
    }, async (request) => {
      const target = await resolveTarget(request);
      const query = request.query as { page?: string; limit?: number };
      const limit = query.limit ?? DEFAULT_LIMIT;
      let after: string | null = null;
      if (query.page !== undefined) {
        const values = decodeCursor(query.page, ['string']);
        if (!values) throw badRequest('page is not a valid page cursor: pass `next.page` of the previous answer');
        after = values[0] as string;
      }
      const rows = await sql<{ id: string; name: string; contentType: string; size: number; width: number | null; height: number | null; sha256: string; total: string }>(
        request.em,
        `select file_id as id, name, content_type as "contentType", size::int as size, width, height, sha256,
                (select count(*) from revision_file where revision_id = ?) as total
           from revision_file where revision_id = ? and (?::text is null or file_id > ?)
          order by file_id limit ?`,
        [target.revisionId, target.revisionId, after, after, limit + 1],
      );
      const page = rows.slice(0, limit);
      return {
        items: page.map((f) => presentFile(f, options(request, target))),
        count: rows.length ? Number(rows[0].total) : 0,
        ...(rows.length > limit ? { next: { page: encodeCursor([page[page.length - 1].id]) } } : {}),
      };
    });

    app.get(`${prefix}/content/files/:fileId`, {
      schema: { tags, summary: 'Get a file', params: FileParams(withChangeRequest), querystring: ContentQuery, response: errors(404) },
    }, async (request) => {
      const target = await resolveTarget(request);
      const file = await findFile(request, target.revisionId);
      return presentFile(file, options(request, target));
    });

    app.get(`${prefix}/content/files/:fileId/download`, {
      schema: { tags, summary: 'Download the bytes of a file', params: FileParams(withChangeRequest), response: errors(404) },
    }, async (request, reply) => {
      const target = await resolveTarget(request);
      const file = await findFile(request, target.revisionId);
      const bytes = await blobs.get(file.sha256);
      if (!bytes) throw notFound('File content');
      return reply
        .type(file.contentType)
        .header('content-disposition', `inline; filename="${file.name.replace(/["\\\r\n]/g, '_')}"`)
        .header('x-content-type-options', 'nosniff')
        .send(bytes);
    });
  }
}

async function findFile(request: FastifyRequest, revisionId: string) {
  const { fileId } = request.params as { fileId: string };
  const rows = await sql<{ id: string; name: string; contentType: string; size: number; width: number | null; height: number | null; sha256: string }>(
    request.em,
    `select file_id as id, name, content_type as "contentType", size::int as size, width, height, sha256
       from revision_file where revision_id = ? and file_id = ?`,
    [revisionId, fileId],
  );
  if (!rows[0]) throw notFound('File');
  return rows[0];
}

/** The path of one page from its ancestors' slugs (index rows only, no documents). */
async function pagePath(request: FastifyRequest, revisionId: string, pageId: string): Promise<string> {
  const rows = await sql<{ path: string }>(
    request.em,
    `with recursive up as (
       select page_id, parent_id, meta->>'slug' as slug, 0 as depth from revision_page where revision_id = ? and page_id = ?
       union all
       select rp.page_id, rp.parent_id, rp.meta->>'slug', up.depth + 1
         from revision_page rp join up on rp.page_id = up.parent_id and rp.revision_id = ? where up.depth < 100
     ) select string_agg(slug, '/' order by depth desc) as path from up`,
    [revisionId, pageId, revisionId],
  );
  return rows[0]?.path ?? '';
}
