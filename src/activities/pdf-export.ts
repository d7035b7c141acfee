import { log } from '@temporalio/activity';
import type { Root } from 'hast';
import { loadFiles, loadPageMap, type FileRow } from '../db/content.ts';
import { forkEm, type Em, type Orm } from '../db/orm.ts';
import { findPdfExport, loadPrintHeading, loadSpacePrintHeading, recordPdfExport, revisionExists } from '../db/pdf-export.ts';
import { imageSources, markdownToSafeTree, printDocumentHtml, selectPrintPages, type PrintPage } from '../domain/content/html.ts';
import type { PageMap } from '../domain/content/tree.ts';
import { linkIndex, resolveLink } from '../domain/content/links.ts';
import type { BlobStore } from '../lib/blob-store.ts';
import { beat, heartbeating } from '../lib/heartbeat.ts';
import { lapTimer } from '../lib/lap-timer.ts';
import { printPdf, type PrintResult } from '../lib/pdf-printer.ts';

/** Which PDF: the content of a change request (or of the space itself) at one revision, whole or from one page. */
export interface PdfExportInput {
  spaceId: string;
  /** Null: the space's own content at `revisionId`. */
  changeRequestId: string | null;
  revisionId: string;
  /** Null: the whole content. */
  pageId: string | null;
  /** With `pageId`: that page alone, rather than the page and the pages under it. */
  only: boolean;
}

/**
 * Where a print's time went, in milliseconds: loading the pages and files, converting them to
 * HTML, the browser's phases (`PrintResult.timings`: waiting for a print slot, readying a blank
 * page, loading the HTML into it, printing, closing), and storing and recording the PDF.
 */
export type PdfTimings = { loadMs: number; convertMs: number } & PrintResult['timings'] & { storeMs: number };

export type PdfExportOutcome =
  | { status: 'ready'; sha256: string; size: number; pages: number; reused: boolean; timings?: PdfTimings }
  | { status: 'not-found'; what: 'change request' | 'space' | 'revision' | 'page' };

export interface PdfActivityOptions {
  blobs: BlobStore;
  chromiumPath: string;
  publicUrl: string;
}

/** Image types inlined into the PDF; others are printed as links. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml', 'image/avif']);
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const MAX_INLINED_BYTES = 50 * 1024 * 1024;

function logInfo(message: string, attributes: Record<string, unknown>): void {
  try {
    log.info(message, attributes);
  } catch {
    // not running inside an activity
  }
}

/** The title page of a PDF: a change request's subject and number, or the space's title; undefined when either is gone. */
async function printHeading(em: Em, input: PdfExportInput): Promise<{ title: string; subtitle: string } | undefined> {
  if (input.changeRequestId === null) {
    const space = await loadSpacePrintHeading(em, input.spaceId);
    return space && { title: space.spaceTitle.trim() || 'Untitled space', subtitle: space.spaceTitle };
  }
  const cr = await loadPrintHeading(em, input.spaceId, input.changeRequestId);
  if (!cr) return undefined;
  return {
    title: cr.subject.trim() || `Change request #${cr.number}`,
    subtitle: `${cr.spaceTitle} · Change request #${cr.number}${cr.subject.trim() ? `: ${cr.subject.trim()}` : ''}`,
  };
}

/** What the HTML of a PDF is built from, besides its pages. */
interface PrintSources {
  files: FileRow[];
  map: PageMap;
  heading: { title: string; subtitle: string };
  publicUrl: string;
  blobs: BlobStore;
  spaceId: string;
}

/**
 * The printable HTML of the selected pages, images that are files of the revision inlined from the
 * blob store. Each page's markdown is parsed once (for its images, then printed from the same
 * tree).
 */
async function printHtml(selected: PrintPage[], sources: PrintSources): Promise<string> {
  const { files, map, heading, publicUrl, blobs, spaceId } = sources;
  const fileById = new Map<string, FileRow>(files.map((f) => [f.id, f]));
  const index = linkIndex({ publicUrl, spaceId, pages: map, files });
  const fileOf = (src: string, pageId: string): FileRow | undefined => {
    const { target } = resolveLink(index, pageId, src);
    return target.kind === 'file' && target.space === spaceId ? fileById.get(target.file) : undefined;
  };
  const trees = new Map<string, Root>();
  for (const { page } of selected) if (page.type === 'document') trees.set(page.id, markdownToSafeTree(page.markdown));
  const dataUris = new Map<string, string>();
  let inlinedBytes = 0;
  for (const { page } of selected) {
    const tree = trees.get(page.id);
    if (!tree) continue;
    for (const src of imageSources(tree)) {
      const file = fileOf(src, page.id);
      if (!file || dataUris.has(file.id) || !IMAGE_TYPES.has(file.contentType) || file.size > MAX_IMAGE_BYTES) continue;
      if (inlinedBytes + file.size > MAX_INLINED_BYTES) continue;
      const bytes = await blobs.get(file.sha256);
      if (!bytes) continue;
      inlinedBytes += bytes.length;
      dataUris.set(file.id, `data:${file.contentType};base64,${bytes.toString('base64')}`);
    }
  }
  return printDocumentHtml(
    { ...heading, pages: selected },
    {
      image: (src, page) => {
        const file = page ? fileOf(src, page.id) : undefined;
        return file ? (dataUris.get(file.id) ?? null) : null;
      },
      trees,
    },
  );
}

/** Activities of the `pdf-export` workflow; the blob store, Chromium and public URL come from the factory. */
export function pdfActivities(orm: Orm, options: PdfActivityOptions) {
  const { blobs, chromiumPath, publicUrl } = options;
  return {
    /**
     * Prints the change request's content at `revisionId` to PDF, stores it in the blob store and
     * records it in `pdf_export`. Idempotent: a PDF already recorded for the same change request,
     * revision and options (whose bytes are still stored) is returned as it is; concurrent runs
     * end up returning the one recorded first.
     */
    async exportChangeRequestPdf(input: PdfExportInput): Promise<PdfExportOutcome> {
      return heartbeating(
        async () => {
          const em = forkEm(orm);
          const existing = await findPdfExport(em, input);
          if (existing && (await blobs.has(existing.sha256))) {
            return { status: 'ready', sha256: existing.sha256, size: existing.size, pages: existing.pageCount, reused: true };
          }

          const heading = await printHeading(em, input);
          if (!heading) return { status: 'not-found', what: input.changeRequestId === null ? 'space' : 'change request' };
          if (!(await revisionExists(em, input.spaceId, input.revisionId))) return { status: 'not-found', what: 'revision' };

          beat({ stage: 'loading' });
          const since = lapTimer();
          const map = await loadPageMap(em, input.revisionId, true);
          const selected = selectPrintPages(map, { pageId: input.pageId, only: input.only });
          if (!selected) return { status: 'not-found', what: 'page' };

          // Images of the printed pages that are files of the revision are inlined from the blob store.
          const files = await loadFiles(em, input.revisionId);
          const loadMs = since();
          beat({ stage: 'converting', pages: selected.length });
          const html = await printHtml(selected, { files, map, heading, publicUrl, blobs, spaceId: input.spaceId });
          const convertMs = since();
          const printed = await printPdf(html, {
            executablePath: chromiumPath,
            onProgress: (stage) => beat({ stage, pages: selected.length }),
          });
          since();
          beat({ stage: 'storing' });
          const sha256 = await blobs.put(printed.pdf);
          // A row whose bytes were lost is replaced; a row another run recorded meanwhile wins.
          await recordPdfExport(em, input, { sha256, size: printed.pdf.length, pageCount: selected.length }, existing?.sha256 ?? null);
          const row = (await findPdfExport(em, input))!;
          const timings: PdfTimings = { loadMs, convertMs, ...printed.timings, storeMs: since() };
          logInfo('PDF printed', {
            changeRequestId: input.changeRequestId,
            revisionId: input.revisionId,
            pages: selected.length,
            bytes: printed.pdf.length,
            ...timings,
            launchedBrowser: printed.launched,
            blockedRequests: printed.blockedRequests,
          });
          return { status: 'ready', sha256: row.sha256, size: row.size, pages: row.pageCount, reused: row.sha256 !== sha256, timings };
        },
        { stage: 'starting' },
      );
    },
  };
}

export type PdfActivities = ReturnType<typeof pdfActivities>;
