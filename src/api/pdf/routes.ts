import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import {
  ChangeRequestPdfParams,
  ChangeRequestPdfQuery,
  PdfBytes,
  PdfDownloadParams,
  PdfDownloadQuery,
  PdfRedirect,
  PdfUrl,
  SpacePdfParams,
} from './schemas.ts';
import { exportChangeRequestPdf, exportSpacePdf, openSignedPdf } from './service.ts';

/**
 * PDF export of a change request's content and of a space's current content: HTTP only, the
 * rules are in ./service.ts. `GET …/change-requests/{id}/pdf` and `GET /v1/spaces/{id}/pdf` answer a signed link; `GET /pdf/{sha256}` serves the PDF to
 * whoever holds a valid, unexpired link, with no token.
 */
export const pdfRoutes: RoutePlugin = async (app) => {
  app.get(
    '/v1/spaces/:spaceId/change-requests/:changeRequestId/pdf',
    {
      schema: {
        tags: ['change requests'],
        summary: "Get a temporary URL (one hour) of the change request's content as PDF",
        operationId: 'getChangeRequestPDF',
        params: ChangeRequestPdfParams,
        querystring: ChangeRequestPdfQuery,
        response: { 200: PdfUrl, ...errors(404, 503) },
      },
    },
    async (request) => exportChangeRequestPdf(ctxOf(request), request.params.spaceId, request.params.changeRequestId, request.query),
  );

  app.get(
    '/v1/spaces/:spaceId/pdf',
    {
      schema: {
        tags: ['space content'],
        summary: "Get a temporary URL (one hour) of the space's current content as PDF",
        operationId: 'getSpacePDF',
        params: SpacePdfParams,
        querystring: ChangeRequestPdfQuery,
        response: { 200: PdfUrl, ...errors(404, 503) },
      },
    },
    async (request) => exportSpacePdf(ctxOf(request), request.params.spaceId, request.query),
  );

  app.get(
    '/pdf/:sha256',
    {
      // The signed link is the credential.
      config: { public: true },
      schema: {
        tags: ['change requests'],
        summary: 'Download a PDF through a temporary link (no token: the signature is the credential)',
        security: [],
        params: PdfDownloadParams,
        querystring: PdfDownloadQuery,
        response: { 200: PdfBytes, 302: PdfRedirect, ...errors(403, 404, 410) },
      },
    },
    async (request, reply) => {
      const pdf = await openSignedPdf(ctxOf(request), request.params.sha256, request.query.expires, request.query.signature);
      if ('redirect' in pdf) return reply.header('cache-control', 'private, no-store').redirect(pdf.redirect, 302);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-length', pdf.blob.size)
        .header('content-disposition', pdf.disposition)
        .header('cache-control', `private, max-age=${pdf.maxAge}`)
        .header('x-content-type-options', 'nosniff')
        .send(pdf.blob.body);
    },
  );
};
