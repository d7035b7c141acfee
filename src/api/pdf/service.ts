import type { Static } from 'typebox';
import type { PdfExportInput } from '../../activities/pdf-export.ts';
import { loadPage } from '../../db/content.ts';
import { findPdfExport, pdfSource } from '../../db/pdf-export.ts';
import type { BlobStream } from '../../lib/blob-store.ts';
import { signedUrl, verifySignedPath } from '../../lib/signed-urls.ts';
import { runPdfExport } from '../../temporal/pdf-export.ts';
import { resolveTarget, type ContentTarget } from '../content/service.ts';
import type { Ctx } from '../context.ts';
import { badRequest, HttpError, notFound } from '../errors.ts';
import { pdfContentDisposition } from './present.ts';
import type { ChangeRequestPdfQuery } from './schemas.ts';

/**
 * PDF export of a change request's content or of a space's current content: the export prints it (through the `pdf-export`
 * workflow, or reuses the PDF recorded for that revision) and answers a signed link; the download
 * serves the PDF to whoever holds a valid, unexpired link, with no token.
 */

/** How long a PDF link works. */
export const PDF_LINK_TTL_SECONDS = 3600;

export const pdfPath = (sha256: string) => `/pdf/${sha256}`;

/** A signed link (one hour) to the PDF of a change request's content, or of one page (with the pages under it unless `only`). */
export async function exportChangeRequestPdf(
  ctx: Ctx,
  spaceId: string,
  changeRequestId: string,
  query: Static<typeof ChangeRequestPdfQuery>,
) {
  return exportPdf(ctx, await resolveTarget(ctx, { spaceId, changeRequestId }, 'read'), query);
}

/** A signed link (one hour) to the PDF of a space's current content, or of one page (with the pages under it unless `only`). */
export async function exportSpacePdf(ctx: Ctx, spaceId: string, query: Static<typeof ChangeRequestPdfQuery>) {
  return exportPdf(ctx, await resolveTarget(ctx, { spaceId }, 'read'), query);
}

/** Prints the target's content (through the `pdf-export` workflow, or reuses the PDF recorded for that revision) and signs a link to it. */
async function exportPdf(ctx: Ctx, target: ContentTarget, query: Static<typeof ChangeRequestPdfQuery>) {
  const { em, caller, deps } = ctx;
  const { config } = deps;
  if (query.only === true && query.page === undefined) throw badRequest('querystring.page is required when only is true');
  if (query.page !== undefined && !(await loadPage(em, target.revisionId, query.page))) throw notFound('Page');

  const input: PdfExportInput = {
    spaceId: target.space.id,
    changeRequestId: target.changeRequest?.id ?? null,
    revisionId: target.revisionId,
    pageId: query.page ?? null,
    only: query.page !== undefined && query.only === true,
  };
  const { blobs } = deps;
  // A PDF already printed for this revision and these options is answered without a job.
  const recorded = (await findPdfExport(em, input))?.sha256;
  let sha256 = recorded && (await blobs.has(recorded)) ? recorded : undefined;
  if (sha256 === undefined) {
    const outcome = await runPdfExport(deps.temporal, config.temporalHeavyTaskQueue, input, {
      organizationId: target.space.organizationId,
      requestedBy: caller.user.id,
    });
    if (outcome.status === 'not-found')
      throw notFound(outcome.what === 'page' ? 'Page' : target.changeRequest ? 'Change request' : 'Space');
    sha256 = outcome.sha256;
  }
  const expires = Math.floor(Date.now() / 1000) + PDF_LINK_TTL_SECONDS;
  return { url: signedUrl(await deps.pdfSigningKey(), config.publicUrl, pdfPath(sha256), expires) };
}

/**
 * The PDF behind a signed link: 403 for a bad signature, 410 once expired, 404 when the PDF or
 * its space is gone. `maxAge`: seconds the link still works. There is no
 * caller here (the route takes no token: the signature is the credential). The PDF is a presigned
 * URL of the blob store (expiring with the link) when the store serves downloads, else a stream.
 */
export async function openSignedPdf(
  ctx: Ctx,
  sha256: string,
  expires: number,
  signature: string,
): Promise<{ disposition: string; maxAge: number } & ({ redirect: string } | { blob: BlobStream })> {
  const now = Math.floor(Date.now() / 1000);
  const verdict = verifySignedPath(await ctx.deps.pdfSigningKey(), pdfPath(sha256), expires, signature, now);
  if (verdict === 'bad-signature') throw new HttpError(403, 'The link is not valid: its signature does not match');
  if (verdict === 'expired') throw new HttpError(410, 'The link has expired: ask for the PDF again to get a new one');
  const source = await pdfSource(ctx.em, sha256);
  if (!source) throw notFound('PDF');
  const { blobs } = ctx.deps;
  const disposition = pdfContentDisposition(source);
  const maxAge = Math.max(0, expires - now);
  // A redirect only to a PDF that exists: a missing one answers 404 here, not the store's error page.
  if (!(await blobs.has(sha256))) throw notFound('PDF');
  const redirect = await blobs.downloadUrl(sha256, {
    contentType: 'application/pdf',
    contentDisposition: disposition,
    expiresIn: Math.max(1, maxAge),
  });
  if (redirect !== null) return { disposition, maxAge, redirect };
  const blob = await blobs.open(sha256);
  if (!blob) throw notFound('PDF');
  return { disposition, maxAge, blob };
}
