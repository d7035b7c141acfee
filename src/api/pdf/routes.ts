import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { loadPage } from '../../db/content.ts';
import { sql } from '../../db/sql.ts';
import { LocalBlobStore } from '../../lib/blob-store.ts';
import { lazySigningKey, signedUrl, verifySignedPath } from '../../lib/signed-urls.ts';
import { runPdfExport } from '../../temporal/pdf-export.ts';
import type { PdfExportInput, PdfExportOutcome } from '../../activities/pdf-export.ts';
import { resolveTarget } from '../content/target.ts';
import { badRequest, HttpError, notFound, unavailable } from '../errors.ts';
import { errors } from '../schemas.ts';
import { pdfContentDisposition } from './present.ts';
import { ChangeRequestPdfParams, ChangeRequestPdfQuery, PdfDownloadParams, PdfDownloadQuery, PdfUrl } from './schemas.ts';

/** How long a PDF link works. */
export const PDF_LINK_TTL_SECONDS = 3600;
const JOB_WAIT_MS = 60_000;

export const pdfPath = (sha256: string) => `/pdf/${sha256}`;

/**
 * PDF export of a change request's content: `GET …/change-requests/{id}/pdf` prints it (through
 * the `pdf-export` workflow, or reuses the PDF recorded for that revision) and answers a signed
 * link; `GET /pdf/{sha256}` serves the PDF to whoever holds a valid, unexpired link, with no token.
 */
export async function pdfRoutes(app: FastifyInstance) {
  const { deps } = app;
  const { config } = deps;
  const blobs = new LocalBlobStore(config.blobDir);
  const signingKey = lazySigningKey(config, 'pdf');

  app.get('/v1/spaces/:spaceId/change-requests/:changeRequestId/pdf', {
    schema: {
      tags: ['change requests'],
      summary: "Get a temporary URL (one hour) of the change request's content as PDF",
      operationId: 'getChangeRequestPDF',
      params: ChangeRequestPdfParams,
      querystring: ChangeRequestPdfQuery,
      response: { 200: PdfUrl, ...errors(404, 503) },
    },
  }, async (request) => {
    const { em, caller } = request;
    const query = request.query as Static<typeof ChangeRequestPdfQuery>;
    const target = await resolveTarget(request, 'read');
    const changeRequest = target.changeRequest!;
    if (query.only === true && query.page === undefined) throw badRequest('querystring.page is required when only is true');
    if (query.page !== undefined && !(await loadPage(em, target.revisionId, query.page))) throw notFound('Page');

    const input: PdfExportInput = {
      spaceId: target.space.id,
      changeRequestId: changeRequest.id,
      revisionId: target.revisionId,
      pageId: query.page ?? null,
      only: query.page !== undefined && query.only === true,
    };
    // A PDF already printed for this revision and these options is answered without a job.
    const recorded = await sql<{ sha256: string }>(
      em,
      'select sha256 from pdf_export where change_request_id = ? and revision_id = ? and only_page = ? and page_id = ?',
      [input.changeRequestId, input.revisionId, input.only, input.pageId ?? ''],
    );
    let sha256 = recorded[0] && (await blobs.has(recorded[0].sha256)) ? recorded[0].sha256 : undefined;
    if (sha256 === undefined) {
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        runPdfExport(deps.temporal, config.temporalTaskQueue, input, { organizationId: target.space.organizationId, requestedBy: caller.user.id }),
        new Promise<PdfExportOutcome>((_, fail) => {
          timer = setTimeout(() => fail(unavailable(`The PDF is being printed but was not ready within ${JOB_WAIT_MS / 1000} s; ask again shortly`)), JOB_WAIT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
      if (outcome.status === 'not-found') throw notFound(outcome.what === 'page' ? 'Page' : 'Change request');
      sha256 = outcome.sha256;
    }
    const expires = Math.floor(Date.now() / 1000) + PDF_LINK_TTL_SECONDS;
    return { url: signedUrl(await signingKey(), config.publicUrl, pdfPath(sha256), expires) };
  });

  app.get('/pdf/:sha256', {
    schema: {
      tags: ['change requests'],
      summary: 'Download a PDF through a temporary link (no token: the signature is the credential)',
      security: [],
      params: PdfDownloadParams,
      querystring: PdfDownloadQuery,
      response: errors(403, 404, 410),
    },
  }, async (request, reply) => {
    const { sha256 } = request.params as Static<typeof PdfDownloadParams>;
    const { expires, signature } = request.query as Static<typeof PdfDownloadQuery>;
    const now = Math.floor(Date.now() / 1000);
    const verdict = verifySignedPath(await signingKey(), pdfPath(sha256), expires, signature, now);
    if (verdict === 'bad-signature') throw new HttpError(403, 'The link is not valid: its signature does not match');
    if (verdict === 'expired') throw new HttpError(410, 'The link has expired: ask for the PDF again to get a new one');
    const rows = await sql<{ number: number; subject: string }>(
      request.em,
      `select cr.number, cr.subject
         from pdf_export p
         join change_request cr on cr.id = p.change_request_id
         join space s on s.id = p.space_id and s.deleted_at is null
        where p.sha256 = ?
        order by p.created_at desc
        limit 1`,
      [sha256],
    );
    const bytes = rows[0] ? await blobs.get(sha256) : null;
    if (!rows[0] || !bytes) throw notFound('PDF');
    return reply
      .header('content-type', 'application/pdf')
      .header('content-disposition', pdfContentDisposition(rows[0].subject, rows[0].number))
      .header('cache-control', `private, max-age=${Math.max(0, expires - now)}`)
      .header('x-content-type-options', 'nosniff')
      .send(bytes);
  });
}
